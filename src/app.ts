// Wires the parts from a Config: Chroma (store/chroma-supervisor.ts), models, the live physical
// index (index/physical-index.ts, followed across processes by index/live-index.ts), and over it
// the ports of src/ports.ts: the asker (asker.ts), the one writer (indexer.ts) and index
// administration. CLI and server both use it.
import path from 'node:path';
import type { Embeddings } from '@langchain/core/embeddings';
import type { Logger } from 'pino';
import type { IndexedDoc, IngestTarget } from './types.ts';
import type { IngestSummary, ProgressEvent } from './ingest/pipeline.ts';
import { createIndexer } from './indexer.ts';
import type { TranslationStatus } from './translate/translator.ts';
import { configuredReranker, configuredTranslator, createAsker } from './asker.ts';
import type { Asker, IndexAdmin, Indexing, Installation } from './ports.ts';
import type { Config, SourceConfig } from './config.ts';
import { createChatModel } from './models/chat.ts';
import { createEmbeddings } from './models/embeddings.ts';
import type { Reranker } from './search/rerank.ts';
import type { VectorStore } from './store/chroma-store.ts';
import { createSnapshotKeeper } from './index/catalog-loader.ts';
import { pruneSnapshots } from './index/lexical-snapshot.ts';
import { connectChroma, type ChromaProcessStatus } from './store/chroma-supervisor.ts';
import { createEmbeddingCache } from './store/embedding-cache.ts';
import type { IndexEvents } from './index/events.ts';
import { followLiveIndex } from './index/live-index.ts';
import {
  describeSettings,
  embeddingKey,
  openPhysicalIndex,
  settingsVersion,
  type CatalogLoad,
  type EmbeddingSettings,
  type IndexSettings,
} from './index/physical-index.ts';
import type { Redis } from './store/redis.ts';
import { openCrossref } from './enrich/open.ts';

export type { AskedEvent, IndexHandle } from './ports.ts';

/** A running labbot: every port (src/ports.ts) wired over one live index. */
export interface Labbot extends Installation, Asker, Indexing, IndexAdmin {
  /** The live index's store (it changes on a blue/green switch). */
  readonly store: VectorStore;
  /** How the live index's lexical catalog was loaded (undefined where it is not mirrored). */
  readonly lexical: CatalogLoad | undefined;
  events: IndexEvents | undefined;
  reranker: Reranker;
  versionDescription: string;
  chromaUrl: string;
  /** Whether questions are also searched in translation, and why not (src/translate/). */
  translation: TranslationStatus;
  /** app.indexer.ingest / ingestSource / remove on the live index. */
  ingest(target: IngestTarget, onProgress?: (e: ProgressEvent) => void): Promise<IngestSummary>;
  ingestSource(source: SourceConfig, onProgress?: (e: ProgressEvent) => void): Promise<IngestSummary>;
  removeDocument(doc: IndexedDoc): Promise<void>;
  /** The embedded Chroma process, when this process started and supervises it. */
  chromaProcess(): ChromaProcessStatus | undefined;
  close(): Promise<void>;
}

/** Redis key namespace of an installation: every key labbot writes starts with it and a colon. */
export const namespaceOf = (collection: string) => `labbot:${collection}`;

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

export async function openLabbot(config: Config, log: Logger, opts: { loadCatalog?: boolean; redis?: Redis } = {}): Promise<Labbot> {
  const chroma = await connectChroma({ chromaUrl: config.chromaUrl, dataDir: config.dataDir }, log);
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
  const ns = namespaceOf(config.collection);
  // Without a loaded catalog (a queue worker, a CLI reindex) this process answers nothing: it does
  // not mirror the lexical index, it only follows which index is live.
  const mirror = opts.loadCatalog !== false;
  // Only processes that mirror the lexical index keep a snapshot of it (for a fast restart).
  const snapshotDir = mirror ? path.join(config.dataDir, 'lexical') : undefined;
  const openIndex = (base: string) =>
    openPhysicalIndex({ chromaUrl: chroma.url, redis, ns, configured: settings, log, embedder: embedderFor, snapshotDir }, base);
  // Saved a while after the live catalog last changed, not on every change (a save serialises it all).
  const snapshots = createSnapshotKeeper(async () => {
    await liveIndex.current.saveSnapshot();
    if (snapshotDir) pruneSnapshots(snapshotDir, liveIndex.current.base);
  }, 60_000);
  const liveIndex = await followLiveIndex({
    redis,
    ns,
    defaultBase: config.collection,
    open: openIndex,
    mirror,
    log,
    onChanged: () => snapshots.changed(),
  });
  const events = liveIndex.events;
  const cache = redis ? createEmbeddingCache(redis, ns, embeddingKey(settings.embeddings)) : undefined;
  const { enricher, notices } = await openCrossref(config, { redis, ns, log, answering: mirror });

  const chat = await createChatModel(config);
  const reranker = configuredReranker(config, log);
  const translator = configuredTranslator(config, log, chat);
  const asker = createAsker({ config, log, live: () => liveIndex.current, chat, notices, translator }, reranker);

  const indexer = createIndexer({
    settings: {
      chunking: config.chunking,
      maxFileBytes: Math.round(config.ingest.maxFileMb * 1024 * 1024),
      embedBatch: config.ingest.embedBatch,
      defaultAccess: config.access.default,
    },
    live: () => liveIndex.current,
    answering: mirror,
    embeddings,
    cache,
    enrich: enricher,
    events,
    log,
    onLiveChanged: () => snapshots.changed(),
  });

  return {
    config,
    log,
    get store() {
      return liveIndex.current.store;
    },
    get catalog() {
      return liveIndex.current.catalog;
    },
    get records() {
      return liveIndex.current.records;
    },
    get base() {
      return liveIndex.current.base;
    },
    get lexical() {
      return liveIndex.current.loaded;
    },
    redis,
    ns,
    events,
    indexer,
    openIndex,
    removeDocument: (doc) => indexer.remove(doc),
    switchTo: (h, publish) => liveIndex.switchTo(h, publish),
    embeddings,
    chat,
    reranker,
    enricher,
    notices,
    version,
    versionDescription: describeSettings(settings),
    chromaUrl: chroma.url,
    // A getter: the translator lists its modes on first use, not when the app opens.
    get translation() {
      return translator.status();
    },
    ...asker,
    ingest: (target, onProgress) => indexer.ingest(target, { onProgress }),
    ingestSource: (source, onProgress) => indexer.ingestSource(source, { onProgress }),
    reset: async () => {
      const index = liveIndex.current;
      await index.drop();
      // Emptied, not replaced: the same index goes on being written.
      await index.records?.setIdentity(index.id);
      for (const d of [...index.catalog.docs()]) index.catalog.removeDocument(d.id);
      if (mirror) snapshots.changed();
    },
    chromaProcess: () => chroma.supervised?.status(),
    close: async () => {
      notices?.close();
      await translator.close();
      if (mirror) await snapshots.flush();
      await liveIndex.close();
      await chroma.stop();
    },
  };
}
