// The narrow faces of a running labbot (src/app.ts wires one of each): what the edges and the
// queue depend on instead of the whole Labbot. Asking, writing the index, and administering
// physical indexes are separate: the queue worker needs the indexer and index administration,
// never the answerer; the Slack bot and the dashboard ask, and read what the index holds.
import type { Embeddings } from '@langchain/core/embeddings';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { Logger } from 'pino';
import type { AskResult, HistoryTurn } from './answer/answer.ts';
import type { Config } from './config.ts';
import type { CrossrefEnricher } from './enrich/crossref-enricher.ts';
import type { NoticeBoard } from './enrich/notices.ts';
import type { PhysicalIndex } from './index/physical-index.ts';
import type { Indexer } from './indexer.ts';
import type { Catalog } from './search/catalog.ts';
import type { RetrievalResult } from './search/retrieve.ts';
import type { RecordStore } from './store/records.ts';
import type { Redis } from './store/redis.ts';

/** One physical index: Chroma collections of a base name, its lexical catalog and its records. */
export type IndexHandle = PhysicalIndex;

export interface AskedEvent {
  result?: AskResult;
  error?: Error;
  totalMs: number;
}

/** The installation every part runs in: its config, log, and Redis under its key namespace. */
export interface Installation {
  config: Config;
  log: Logger;
  redis: Redis | undefined;
  /** Redis key namespace of this installation. */
  ns: string;
}

/** What an index holds now (the live one: it changes on a blue/green switch). */
export interface IndexView {
  readonly catalog: Catalog;
  readonly records: RecordStore | undefined;
}

/** Answering questions. */
export interface Asker extends IndexView {
  /** The chat model, when one is configured (a follow-up is made standalone with it too). */
  chat: BaseChatModel | undefined;
  /** The live index's settings version (shown by `/labbot status`). */
  readonly version: string;
  retrieve(question: string, groups: string[], k?: number): Promise<RetrievalResult>;
  ask(
    question: string,
    opts?: { channel?: string; user?: string; k?: number; history?: HistoryTurn[]; onToken?: (delta: string) => void },
  ): Promise<AskResult>;
  /** Called after every ask (metrics); errors are passed too. */
  onAsked(listener: (e: AskedEvent) => void): void;
  /** Retraction notices of indexed DOIs, in processes that answer with enrichment on. */
  notices: NoticeBoard | undefined;
}

/** Writing the index: the one writer, and what planning a sync reads. */
export interface Indexing extends IndexView {
  indexer: Indexer;
  /** Crossref enrichment (`enrich.crossref`); undefined when it is off. */
  enricher: CrossrefEnricher | undefined;
}

/** Administering physical indexes: open one beside the live one, switch, empty. */
export interface IndexAdmin extends IndexView {
  readonly base: string;
  /** The embedder of the configured settings (a rebuilt index is checked with it). */
  embeddings: Embeddings;
  /** Opens another physical index beside the live one (blue/green rebuild). */
  openIndex(base: string): Promise<IndexHandle>;
  /** Makes `base` the live index here, and for every process when `publish` is set. */
  switchTo(handle: IndexHandle, publish: boolean): Promise<void>;
  /** Drops every collection of this index (used before a full rebuild). */
  reset(): Promise<void>;
}
