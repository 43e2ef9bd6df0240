// Wires the parts from a Config: Chroma (started here when CHROMA_URL is unset), models, the
// in-memory catalog rebuilt from Chroma, retrieval and answering. CLI and server both use it.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Embeddings } from '@langchain/core/embeddings';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { Logger } from 'pino';
import { catalogLookup, ingest, removeIndexed, type IndexedDoc, type IngestDeps, type IngestSummary, type IngestTarget, type ProgressEvent } from '../ingest/pipeline.ts';
import { answerQuestion, type AskResult, type HistoryTurn } from './answer/answer.ts';
import { groupsForChannel, type Config, type SourceConfig } from './config.ts';
import { createChatModel, describeModel } from './models/chat.ts';
import { createEmbeddings } from './models/embeddings.ts';
import { createHttpReranker, createOfflineReranker, type Reranker } from './search/rerank.ts';
import type { Catalog } from './search/catalog.ts';
import { retrieve, type RetrievalResult } from './search/retrieve.ts';
import { waitForHeartbeat } from './store/chroma-server.ts';
import { ChromaUnavailableError, type VectorStore } from './store/chroma-store.ts';
import { startSupervisedChroma, type ChromaProcessStatus, type SupervisedChroma } from './store/chroma-supervisor.ts';
import { createEmbeddingCache } from './store/embedding-cache.ts';
import { openIndexEvents, type IndexEvent, type IndexEvents } from './store/index-events.ts';
import { describeSettings, embeddingKey, openPhysicalIndex, settingsVersion, type EmbeddingSettings, type IndexSettings, type PhysicalIndex } from './store/physical-index.ts';
import { startPresence, type Presence } from './store/presence.ts';
import { aliasKey, liveBase, type RecordStore } from './store/records.ts';
import type { Redis } from './store/redis.ts';

/** One physical index: Chroma collections of a base name, its lexical catalog and its records. */
export type IndexHandle = PhysicalIndex;

export interface App {
  config: Config;
  log: Logger;
  /** The live index's store and catalog (they change on a blue/green switch). */
  readonly store: VectorStore;
  readonly catalog: Catalog;
  readonly records: RecordStore | undefined;
  readonly base: string;
  redis: Redis | undefined;
  /** Redis key namespace of this installation. */
  ns: string;
  events: IndexEvents | undefined;
  embeddings: Embeddings;
  chat: BaseChatModel | undefined;
  reranker: Reranker;
  version: string;
  versionDescription: string;
  chromaUrl: string;
  retrieve(question: string, groups: string[], k?: number): Promise<RetrievalResult>;
  ask(question: string, opts?: { channel?: string; user?: string; k?: number; history?: HistoryTurn[] }): Promise<AskResult>;
  ingest(target: IngestTarget, onProgress?: (e: ProgressEvent) => void): Promise<IngestSummary>;
  ingestSource(source: SourceConfig, onProgress?: (e: ProgressEvent) => void): Promise<IngestSummary>;
  /** Removes a document from the live index (its chunks, catalog entry and record). */
  removeDocument(doc: IndexedDoc): Promise<void>;
  /** Opens another physical index beside the live one (blue/green rebuild). */
  openIndex(base: string): Promise<IndexHandle>;
  /** Ingest deps writing into a given index (the live one by default). */
  ingestDeps(handle?: IndexHandle, onProgress?: (e: ProgressEvent) => void): IngestDeps;
  /** Makes `base` the live index here, and for every process when `publish` is set. */
  switchTo(handle: IndexHandle, publish: boolean): Promise<void>;
  ingestSettings: { chunking: Config['chunking']; maxFileBytes: number; embedBatch: number; defaultAccess: string };
  /** Called after every ask (metrics); errors are passed too. */
  onAsked(listener: (e: AskedEvent) => void): void;
  /** Drops every collection of this index (used before a full rebuild). */
  reset(): Promise<void>;
  /** The embedded Chroma process, when this process started and supervises it. */
  chromaProcess(): ChromaProcessStatus | undefined;
  close(): Promise<void>;
}

export interface AskedEvent {
  result?: AskResult;
  error?: Error;
  totalMs: number;
}

/** Shared by every process using the same data dir, so a CLI run next to `serve` reuses its Chroma. */
interface ChromaLock {
  pid: number;
  url: string;
}

interface ChromaConnection {
  url: string;
  supervised?: SupervisedChroma;
  stop(): Promise<void>;
}

async function connectChroma(config: Config, log: Logger): Promise<ChromaConnection> {
  if (config.chromaUrl) {
    await waitForHeartbeat(config.chromaUrl, 10_000).catch((err: Error) => {
      throw new Error(`Chroma at CHROMA_URL=${config.chromaUrl} is not reachable: ${err.message}`);
    });
    return { url: config.chromaUrl, stop: async () => undefined };
  }
  const lockFile = path.join(config.dataDir, 'chroma.json');
  if (existsSync(lockFile)) {
    try {
      const lock = JSON.parse(readFileSync(lockFile, 'utf8')) as ChromaLock;
      process.kill(lock.pid, 0);
      await waitForHeartbeat(lock.url, 2000);
      log.debug({ url: lock.url }, 'reusing the Chroma server started by another labbot process');
      return { url: lock.url, stop: async () => undefined };
    } catch {
      // Stale lock: the process that wrote it is gone.
    }
  }
  const dir = path.join(config.dataDir, 'chroma');
  const supervised = await startSupervisedChroma(dir, log);
  writeFileSync(lockFile, JSON.stringify({ pid: process.pid, url: supervised.url } satisfies ChromaLock));
  log.info({ url: supervised.url, dir }, 'started a local Chroma server');
  return {
    url: supervised.url,
    supervised,
    stop: async () => {
      rmSync(lockFile, { force: true });
      await supervised.stop();
    },
  };
}

/** The settings the configuration asks a new index to be built with. */
function configuredSettings(config: Config): IndexSettings {
  return {
    embeddings: {
      provider: config.embeddings.provider,
      model: config.embeddings.model,
      dimensions: config.embeddings.provider === 'hash' ? (config.embeddings.dimensions ?? 384) : config.embeddings.dimensions,
    },
    chunking: config.chunking,
    hnsw: { m: config.retrieval.hnswM, efConstruction: config.retrieval.hnswEfConstruction, efSearch: config.retrieval.hnswEfSearch },
  };
}

export async function openApp(config: Config, log: Logger, opts: { loadCatalog?: boolean; redis?: Redis } = {}): Promise<App> {
  const chroma = await connectChroma(config, log);
  const settings = configuredSettings(config);
  const embeddings = await createEmbeddings(config);
  // One embedder per embedding setting: an index built with another model is queried with it.
  const embedders = new Map<string, Promise<Embeddings>>([[embeddingKey(settings.embeddings), Promise.resolve(embeddings)]]);
  const embedderFor = (e: EmbeddingSettings) => {
    const key = embeddingKey(e);
    if (!embedders.has(key)) embedders.set(key, createEmbeddings({ embeddings: e, openai: config.openai }));
    return embedders.get(key)!;
  };
  const version = settingsVersion(settings);
  const redis = opts.redis;
  const ns = `labbot:${config.collection}`;
  const openIndex = (base: string) => openPhysicalIndex({ chromaUrl: chroma.url, redis, ns, configured: settings, log, embedder: embedderFor }, base);

  // Without a loaded catalog (a queue worker, a CLI reindex) this process answers nothing: it does
  // not mirror the lexical index, it only follows which index is live.
  const mirror = opts.loadCatalog !== false;
  /** Opens an index for use here: its catalog loaded (when mirroring) and its records checked against Chroma. */
  const activate = async (base: string): Promise<PhysicalIndex> => {
    const index = await openIndex(base);
    if (mirror) await index.loadCatalog();
    await index.reconcile({ truth: mirror ? index.catalog : undefined });
    return index;
  };
  let live = await activate((redis && (await liveBase(redis, ns))) ?? config.collection);
  const cache = redis ? createEmbeddingCache(redis, ns, embeddingKey(settings.embeddings)) : undefined;
  let events: IndexEvents | undefined;
  let presence: Presence | undefined;

  const applyEvent = async (e: IndexEvent) => {
    if (e.type === 'switch') {
      if (e.base === live.base) return;
      live = await activate(e.base);
      await presence?.beat();
      log.info({ base: e.base, embedding: embeddingKey(live.embedding) }, 'switched to the rebuilt index');
      return;
    }
    if (e.base !== live.base || !mirror) return;
    const index = live;
    if (e.type === 'remove') {
      index.catalog.removeDocument(e.docId);
      return;
    }
    const stored = await index.store.documentChunks(e.access, e.docId);
    index.catalog.removeDocument(e.docId);
    if (stored.length) index.catalog.load(stored);
  };
  if (redis) {
    events = await openIndexEvents(
      redis,
      ns,
      {
        apply: applyEvent,
        resync: async () => {
          live = await activate((await liveBase(redis, ns)) ?? config.collection);
          await presence?.beat();
        },
      },
      log,
    );
    presence = startPresence(redis, ns, events.origin, () => live.base, log);
  }

  const ingestDeps = (h: PhysicalIndex = live, onProgress?: (e: ProgressEvent) => void): IngestDeps => ({
    store: h.store,
    catalog: h.catalog,
    embeddings,
    log,
    onProgress,
    cache,
    lookup: h.recordsForRun() ?? catalogLookup(h.catalog),
    onPut: async (doc, chunks) => {
      await h.records?.put(doc, chunks);
      await events?.publish({ type: 'put', base: h.base, docId: doc.id, access: doc.access, chunks: chunks.length });
    },
    onRemove: async (doc) => {
      await h.records?.remove(doc);
      await events?.publish({ type: 'remove', base: h.base, docId: doc.id });
    },
  });
  const chat = await createChatModel(config);
  const askListeners: ((e: AskedEvent) => void)[] = [];
  const reranker = config.rerank
    ? createHttpReranker({
        ...config.rerank,
        fetch,
        timeoutMs: config.openai.timeoutMs,
        onError: (err) => log.warn({ err: err.message }, 'rerank endpoint failed; keeping the fused order'),
      })
    : // Term weights come with each search (idf over the groups searched), never from all groups.
      createOfflineReranker();

  const doRetrieve = (question: string, groups: string[], k?: number) => {
    // One index for the whole question, even if a switch lands meanwhile; queries are embedded
    // with the model that index was built with.
    const index = live;
    return retrieve(
      question,
      groups,
      config.retrieval,
      {
        catalog: index.catalog,
        // An outage must reach the user ("index unavailable"); any other dense failure (a
        // collection built with other vector dimensions, mid-switch) leaves lexical retrieval.
        dense: (group, vector, n) =>
          index.store.query(group, vector, n).catch((err: Error) => {
            if (err instanceof ChromaUnavailableError) throw err;
            log.warn({ group, err: err.message }, 'dense search failed; answering from lexical retrieval');
            return [];
          }),
        embedQuery: (q) => index.embeddings.embedQuery(q),
        reranker,
        onDenseError: (err) => log.warn({ err: err.message }, 'query embedding failed; answering from lexical retrieval only'),
      },
      k,
    );
  };

  const ingestSettings = {
    chunking: config.chunking,
    maxFileBytes: Math.round(config.ingest.maxFileMb * 1024 * 1024),
    embedBatch: config.ingest.embedBatch,
    defaultAccess: config.access.default,
  };
  const runIngest = (target: IngestTarget, onProgress?: (e: ProgressEvent) => void) => ingest(target, ingestSettings, ingestDeps(live, onProgress));

  return {
    config,
    log,
    get store() {
      return live.store;
    },
    get catalog() {
      return live.catalog;
    },
    get records() {
      return live.records;
    },
    get base() {
      return live.base;
    },
    redis,
    ns,
    events,
    ingestSettings,
    openIndex,
    ingestDeps,
    removeDocument: (doc) => removeIndexed(doc, ingestDeps(live)),
    switchTo: async (h, publish) => {
      if (publish && redis) {
        await redis.set(aliasKey(ns), h.base);
        await events?.publish({ type: 'switch', base: h.base });
      }
      live = h;
      await presence?.beat();
    },
    embeddings,
    chat,
    reranker,
    version,
    versionDescription: describeSettings(settings),
    chromaUrl: chroma.url,
    retrieve: doRetrieve,
    ask: async (question, o = {}) => {
      const t0 = performance.now();
      try {
        const result = await answerQuestion(
          question,
          {
            retrieve: (q) => doRetrieve(q, groupsForChannel(config.access, o.channel, o.user), o.k),
            chat,
            modelName: describeModel(config),
            log,
          },
          o.history,
        );
        for (const l of askListeners) l({ result, totalMs: performance.now() - t0 });
        return result;
      } catch (err) {
        for (const l of askListeners) l({ error: err as Error, totalMs: performance.now() - t0 });
        throw err;
      }
    },
    onAsked: (l) => void askListeners.push(l),
    ingest: runIngest,
    ingestSource: (source, onProgress) =>
      runIngest({ sourceId: source.id, root: source.path, kind: source.kind, access: source.access }, onProgress),
    reset: async () => {
      await live.drop();
      // Emptied, not replaced: the same index goes on being written.
      await live.records?.setIdentity(live.id);
      for (const d of [...live.catalog.docs()]) live.catalog.removeDocument(d.id);
    },
    chromaProcess: () => chroma.supervised?.status(),
    close: async () => {
      await presence?.stop();
      await events?.close();
      await chroma.stop();
    },
  };
}
