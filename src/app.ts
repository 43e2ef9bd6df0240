// Wires the parts from a Config: Chroma (started here when CHROMA_URL is unset), models, the
// in-memory catalog rebuilt from Chroma, retrieval and answering. CLI and server both use it.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Embeddings } from '@langchain/core/embeddings';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { Logger } from 'pino';
import { catalogLookup, ingest, removeIndexed, type IndexedDoc, type IngestDeps, type IngestSummary, type IngestTarget, type ProgressEvent } from '../ingest/pipeline.ts';
import { answerQuestion, type AskResult, type HistoryTurn } from './answer/answer.ts';
import { termWeightFromDf } from './answer/extractive.ts';
import { groupsForChannel, type Config, type SourceConfig } from './config.ts';
import { createChatModel, describeModel } from './models/chat.ts';
import { createEmbeddings } from './models/embeddings.ts';
import { createCatalog, type Catalog } from './search/catalog.ts';
import { createHttpReranker, createOfflineReranker, type Reranker } from './search/rerank.ts';
import { retrieve, type RetrievalResult } from './search/retrieve.ts';
import { startChromaServer, waitForHeartbeat, type ChromaServer } from './store/chroma-server.ts';
import { ChromaUnavailableError, openChromaStore, type VectorStore } from './store/chroma-store.ts';
import { describeIndexVersion, indexVersion } from './store/index-version.ts';
import { createEmbeddingCache } from './store/embedding-cache.ts';
import { openIndexEvents, type IndexEvent, type IndexEvents } from './store/index-events.ts';
import { aliasKey, createRecordStore, liveBase, type RecordStore } from './store/records.ts';
import type { Redis } from './store/redis.ts';

/** One physical index: Chroma collections of a base name, its lexical catalog and its records. */
export interface IndexHandle {
  base: string;
  store: VectorStore;
  catalog: Catalog;
  records: RecordStore | undefined;
}

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

async function connectChroma(config: Config, log: Logger): Promise<{ url: string; server?: ChromaServer }> {
  if (config.chromaUrl) {
    await waitForHeartbeat(config.chromaUrl, 10_000).catch((err: Error) => {
      throw new Error(`Chroma at CHROMA_URL=${config.chromaUrl} is not reachable: ${err.message}`);
    });
    return { url: config.chromaUrl };
  }
  const lockFile = path.join(config.dataDir, 'chroma.json');
  if (existsSync(lockFile)) {
    try {
      const lock = JSON.parse(readFileSync(lockFile, 'utf8')) as ChromaLock;
      process.kill(lock.pid, 0);
      await waitForHeartbeat(lock.url, 2000);
      log.debug({ url: lock.url }, 'reusing the Chroma server started by another labbot process');
      return { url: lock.url };
    } catch {
      // Stale lock: the process that wrote it is gone.
    }
  }
  const server = await startChromaServer(path.join(config.dataDir, 'chroma'));
  writeFileSync(lockFile, JSON.stringify({ pid: process.pid, url: server.url } satisfies ChromaLock));
  log.info({ url: server.url, dir: path.join(config.dataDir, 'chroma') }, 'started a local Chroma server');
  return {
    url: server.url,
    server: {
      ...server,
      stop: async () => {
        rmSync(lockFile, { force: true });
        await server.stop();
      },
    },
  };
}

export async function openApp(config: Config, log: Logger, opts: { loadCatalog?: boolean; redis?: Redis } = {}): Promise<App> {
  const chroma = await connectChroma(config, log);
  const embeddings = await createEmbeddings(config);
  const versionInput = {
    embeddingProvider: config.embeddings.provider,
    embeddingModel: config.embeddings.model,
    dimensions: config.embeddings.provider === 'hash' ? (config.embeddings.dimensions ?? 384) : config.embeddings.dimensions,
    chunking: config.chunking,
  };
  const version = indexVersion(versionInput);
  const redis = opts.redis;
  const ns = `labbot:${config.collection}`;

  const loadCatalog = async (h: IndexHandle) => {
    const t0 = performance.now();
    for (const group of await h.store.groups()) await h.store.scan(group, (records) => h.catalog.load(records));
    const s = h.catalog.stats();
    log.debug({ base: h.base, documents: s.documents, chunks: s.chunks, ms: Math.round(performance.now() - t0) }, 'catalog loaded from Chroma');
  };
  const openIndex = async (base: string): Promise<IndexHandle> => ({
    base,
    store: openChromaStore({
      url: chroma.url,
      base,
      version,
      efSearch: config.retrieval.hnswEfSearch,
      m: config.retrieval.hnswM,
      efConstruction: config.retrieval.hnswEfConstruction,
    }),
    catalog: createCatalog(),
    records: redis ? createRecordStore(redis, ns, base, version) : undefined,
  });
  let live = await openIndex((redis && (await liveBase(redis, ns))) ?? config.collection);
  const cache = redis ? createEmbeddingCache(redis, ns, `${config.embeddings.provider}.${config.embeddings.model}.${versionInput.dimensions ?? 'd'}`) : undefined;
  let events: IndexEvents | undefined;

  // Without a loaded catalog (a queue worker, a CLI reindex) this process answers nothing: it does
  // not mirror the lexical index, it only follows which index is live.
  const mirror = opts.loadCatalog !== false;
  const applyEvent = async (e: IndexEvent) => {
    if (e.type === 'switch') {
      if (e.base === live.base) return;
      const next = await openIndex(e.base);
      if (mirror) await loadCatalog(next);
      const stored = await next.store.storedVersion();
      if (stored && stored !== version) log.warn({ base: e.base, stored, configured: version }, 'the new live index was built with other settings; restart this process with them');
      live = next;
      log.info({ base: e.base }, 'switched to the rebuilt index');
      return;
    }
    if (e.base !== live.base || !mirror) return;
    if (e.type === 'put') live.catalog.putDocument(e.doc, e.chunks);
    else live.catalog.removeDocument(e.docId);
  };
  if (redis) {
    events = await openIndexEvents(
      redis,
      ns,
      {
        apply: applyEvent,
        resync: async () => {
          const base = (await liveBase(redis, ns)) ?? config.collection;
          const next = await openIndex(base);
          if (mirror) await loadCatalog(next);
          live = next;
        },
      },
      log,
    );
  }

  const ingestDeps = (h: IndexHandle = live, onProgress?: (e: ProgressEvent) => void): IngestDeps => ({
    store: h.store,
    catalog: h.catalog,
    embeddings,
    log,
    onProgress,
    cache,
    lookup: h.records ?? catalogLookup(h.catalog),
    onPut: async (doc, chunks) => {
      await h.records?.put(doc, chunks);
      await events?.publish({ type: 'put', base: h.base, doc, chunks });
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
    : createOfflineReranker({ idf: (t) => live.catalog.idf(t) });

  if (opts.loadCatalog !== false) await loadCatalog(live);

  const doRetrieve = (question: string, groups: string[], k?: number) =>
    retrieve(
      question,
      groups,
      config.retrieval,
      {
        catalog: live.catalog,
        // An outage must reach the user ("index unavailable"); any other dense failure (a
        // collection built with other vector dimensions, mid-switch) leaves lexical retrieval.
        dense: (group, vector, n) =>
          live.store.query(group, vector, n).catch((err: Error) => {
            if (err instanceof ChromaUnavailableError) throw err;
            log.warn({ group, err: err.message }, 'dense search failed; answering from lexical retrieval');
            return [];
          }),
        embedQuery: (q) => embeddings.embedQuery(q),
        reranker,
        onDenseError: (err) => log.warn({ err: err.message }, 'query embedding failed; answering from lexical retrieval only'),
      },
      k,
    );

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
    },
    embeddings,
    chat,
    reranker,
    version,
    versionDescription: describeIndexVersion(versionInput),
    chromaUrl: chroma.url,
    retrieve: doRetrieve,
    ask: async (question, o = {}) => {
      const t0 = performance.now();
      try {
        const groups = groupsForChannel(config.access, o.channel, o.user);
        const result = await answerQuestion(
          question,
          {
            retrieve: (q) => doRetrieve(q, groups, o.k),
            chat,
            modelName: describeModel(config),
            log,
            // Document frequencies past a few thousand chunks all mean "common": counting stops there.
            termWeight: termWeightFromDf((t) => live.catalog.idsWithTerm(groups, t, 5000).length, live.catalog.chunkCount),
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
      await live.store.dropAll();
      await live.records?.drop();
      for (const d of [...live.catalog.docs()]) live.catalog.removeDocument(d.id);
    },
    close: async () => {
      await events?.close();
      await chroma.server?.stop();
    },
  };
}
