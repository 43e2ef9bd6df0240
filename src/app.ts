// Wires the parts from a Config: Chroma (started here when CHROMA_URL is unset), models, the
// in-memory catalog rebuilt from Chroma, retrieval and answering. CLI and server both use it.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Embeddings } from '@langchain/core/embeddings';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { Logger } from 'pino';
import { ingest, type IngestSummary, type IngestTarget, type ProgressEvent } from '../ingest/pipeline.ts';
import { answerQuestion, type AskResult, type HistoryTurn } from './answer/answer.ts';
import { groupsForChannel, type Config, type SourceConfig } from './config.ts';
import { createChatModel, describeModel } from './models/chat.ts';
import { createEmbeddings } from './models/embeddings.ts';
import { createCatalog, type Catalog } from './search/catalog.ts';
import { createHttpReranker, createOfflineReranker, type Reranker } from './search/rerank.ts';
import { retrieve, type RetrievalResult } from './search/retrieve.ts';
import { startChromaServer, waitForHeartbeat, type ChromaServer } from './store/chroma-server.ts';
import { openChromaStore, type VectorStore } from './store/chroma-store.ts';
import { describeIndexVersion, indexVersion } from './store/index-version.ts';

export interface App {
  config: Config;
  log: Logger;
  store: VectorStore;
  catalog: Catalog;
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
  /** Drops every collection of this index (used before a full rebuild). */
  reset(): Promise<void>;
  close(): Promise<void>;
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

export async function openApp(config: Config, log: Logger, opts: { loadCatalog?: boolean } = {}): Promise<App> {
  const chroma = await connectChroma(config, log);
  const embeddings = await createEmbeddings(config);
  const versionInput = {
    embeddingProvider: config.embeddings.provider,
    embeddingModel: config.embeddings.model,
    dimensions: config.embeddings.provider === 'hash' ? (config.embeddings.dimensions ?? 384) : config.embeddings.dimensions,
    chunking: config.chunking,
  };
  const version = indexVersion(versionInput);
  const store = openChromaStore({
    url: chroma.url,
    base: config.collection,
    version,
    efSearch: config.retrieval.hnswEfSearch,
    m: config.retrieval.hnswM,
    efConstruction: config.retrieval.hnswEfConstruction,
  });
  const catalog = createCatalog();
  const chat = await createChatModel(config);
  const reranker = config.rerank
    ? createHttpReranker({
        ...config.rerank,
        fetch,
        timeoutMs: config.openai.timeoutMs,
        onError: (err) => log.warn({ err: err.message }, 'rerank endpoint failed; keeping the fused order'),
      })
    : createOfflineReranker({ idf: (t) => catalog.idf(t) });

  if (opts.loadCatalog !== false) {
    const t0 = performance.now();
    for (const group of await store.groups()) await store.scan(group, (records) => catalog.load(records));
    const s = catalog.stats();
    log.debug({ documents: s.documents, chunks: s.chunks, ms: Math.round(performance.now() - t0) }, 'catalog loaded from Chroma');
  }

  const doRetrieve = (question: string, groups: string[], k?: number) =>
    retrieve(
      question,
      groups,
      config.retrieval,
      {
        catalog,
        dense: (group, vector, n) => store.query(group, vector, n),
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
  const runIngest = (target: IngestTarget, onProgress?: (e: ProgressEvent) => void) =>
    ingest(target, ingestSettings, { store, catalog, embeddings, log, onProgress });

  return {
    config,
    log,
    store,
    catalog,
    embeddings,
    chat,
    reranker,
    version,
    versionDescription: describeIndexVersion(versionInput),
    chromaUrl: chroma.url,
    retrieve: doRetrieve,
    ask: (question, o = {}) =>
      answerQuestion(
        question,
        {
          retrieve: (q) => doRetrieve(q, groupsForChannel(config.access, o.channel, o.user), o.k),
          chat,
          modelName: describeModel(config),
          log,
        },
        o.history,
      ),
    ingest: runIngest,
    ingestSource: (source, onProgress) =>
      runIngest({ sourceId: source.id, root: source.path, kind: source.kind, access: source.access }, onProgress),
    reset: async () => {
      await store.dropAll();
      for (const d of [...catalog.docs()]) catalog.removeDocument(d.id);
    },
    close: async () => {
      await chroma.server?.stop();
    },
  };
}
