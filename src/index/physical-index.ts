// One physical index: the Chroma collections of a base name, the lexical catalog loaded from them,
// the Redis records describing them, the settings they were built with, and the identity that
// ties records to collections.
//
// Identity: every physical index has an id, stored in each of its collections' metadata and in
// its Redis records. Records that describe other collections (a fresh data dir under an old
// Redis) or collections with no records (Redis flushed) are found by comparing the two, and
// repaired from what Chroma actually holds: records of documents Chroma lacks are dropped (so the
// next ingest or sync indexes them again), records of documents Chroma holds are rewritten from
// its metadata (no re-embedding). The check (one listing of collections and two Redis reads) runs
// when the index is opened, and before any read of the records that could lead to an "unchanged"
// skip: once per ingest run or job, once per sync.
import { randomUUID } from 'node:crypto';
import type { Embeddings } from '@langchain/core/embeddings';
import type { Logger } from 'pino';
import { createCatalog, type Catalog } from '../search/catalog.ts';
import { loadCatalog as loadLexicalCatalog, saveCatalogSnapshot, type LoadedCatalog } from './catalog-loader.ts';
import { snapshotFile } from './lexical-snapshot.ts';
import type { ChunkOptions } from '../types.ts';
import { META, openChromaStore, type CollectionInfo, type VectorStore } from '../store/chroma-store.ts';
import type { RepairReport } from './repair.ts';
import { createReconciler } from './reconcile.ts';
import { describeIndexVersion, indexVersion, type IndexVersionInput } from './version.ts';
import { createRecordStore, type RecordStore } from '../store/records.ts';
import type { Redis } from '../store/redis.ts';

export interface EmbeddingSettings {
  provider: 'openai' | 'hash';
  model: string;
  dimensions: number | undefined;
}

/** Everything an index is built with. */
export interface IndexSettings {
  embeddings: EmbeddingSettings;
  chunking: ChunkOptions;
  hnsw: { m: number; efConstruction: number; efSearch: number };
}

export function versionInput(s: IndexSettings): IndexVersionInput {
  return {
    embeddingProvider: s.embeddings.provider,
    embeddingModel: s.embeddings.model,
    dimensions: s.embeddings.dimensions,
    chunking: s.chunking,
    hnsw: { m: s.hnsw.m, efConstruction: s.hnsw.efConstruction },
  };
}

export const settingsVersion = (s: IndexSettings) => indexVersion(versionInput(s));
export const describeSettings = (s: IndexSettings) => describeIndexVersion(versionInput(s));
export const embeddingKey = (e: EmbeddingSettings) => `${e.provider}.${e.model}.${e.dimensions ?? 'd'}`;

/** Collection metadata naming the embedding settings an index was built with. */
const SETTINGS_META = {
  provider: 'labbot_embedding_provider',
  model: 'labbot_embedding_model',
  dimensions: 'labbot_embedding_dimensions',
} as const;

function settingsStamp(s: IndexSettings): Record<string, string | number> {
  const out: Record<string, string | number> = {
    [SETTINGS_META.provider]: s.embeddings.provider,
    [SETTINGS_META.model]: s.embeddings.model,
  };
  if (s.embeddings.dimensions !== undefined) out[SETTINGS_META.dimensions] = s.embeddings.dimensions;
  return out;
}

/** The embedding settings stored with existing collections, if they were stored. */
function storedEmbedding(cols: CollectionInfo[]): EmbeddingSettings | undefined {
  const m = cols[0]?.metadata;
  const provider = m?.[SETTINGS_META.provider];
  const model = m?.[SETTINGS_META.model];
  if ((provider !== 'openai' && provider !== 'hash') || typeof model !== 'string') return undefined;
  const dims = m?.[SETTINGS_META.dimensions];
  return { provider, model, dimensions: typeof dims === 'number' ? dims : undefined };
}

export interface PhysicalIndex {
  readonly base: string;
  /** The id tying these collections to their records. */
  readonly id: string;
  /** Version of the settings this index was built with (the configured one for a new index). */
  readonly version: string;
  /** Embedding settings this index was built with; queries against it are embedded with these. */
  readonly embedding: EmbeddingSettings;
  /** The embedder for queries against this index. */
  readonly embeddings: Embeddings;
  readonly store: VectorStore;
  readonly catalog: Catalog;
  /** Records, checked against Chroma before each read that decides what to index (a sync's listing). */
  readonly records: RecordStore | undefined;
  /** Records for one ingest run or job: checked against Chroma once, before its first read. */
  recordsForRun(): RecordStore | undefined;
  /**
   * Fills the lexical catalog: from its snapshot on disk when that agrees with the records and
   * Chroma (patched for a few changed documents), else by scanning Chroma (then saved).
   */
  loadCatalog(): Promise<void>;
  /** How the catalog was loaded, once it was. */
  readonly loaded: CatalogLoad | undefined;
  /** Saves the catalog's snapshot now (no-op without a snapshot directory). */
  saveSnapshot(): Promise<void>;
  /** Compares records with Chroma and repairs them; undefined when they agreed. */
  /**
   * Compares records with Chroma and repairs them; undefined when they agreed. The check compares
   * ids (and emptiness); `deep` also compares chunk counts per group (a Chroma restored from an
   * older backup keeps its id), which reads every record: used when an index is opened for use.
   */
  reconcile(opts?: { truth?: Catalog; deep?: boolean }): Promise<RepairReport | undefined>;
  /** Drops collections and records (a failed rebuild, or an index switched away from). */
  drop(): Promise<void>;
}

/** How a catalog was loaded: from where, how long it took, how a snapshot was checked against the records. */
export type CatalogLoad = Pick<LoadedCatalog, 'from' | 'ms' | 'recordsCheck'>;

export interface IndexEnv {
  chromaUrl: string;
  redis: Redis | undefined;
  ns: string;
  configured: IndexSettings;
  log: Logger;
  /** An embedder for given settings (same endpoint and credentials, possibly another model). */
  embedder(settings: EmbeddingSettings): Promise<Embeddings>;
  /** Where lexical snapshots are kept (one file per index); none: always scan Chroma. */
  snapshotDir?: string;
}

export async function openPhysicalIndex(env: IndexEnv, base: string): Promise<PhysicalIndex> {
  const { log, configured } = env;
  const configuredVersion = settingsVersion(configured);
  const probe = openChromaStore({ url: env.chromaUrl, base, version: configuredVersion, efSearch: configured.hnsw.efSearch });
  const cols = await probe.describe();
  const storedVersion = cols.length ? String(cols[0].metadata[META.version] ?? configuredVersion) : configuredVersion;
  const built = storedEmbedding(cols) ?? (storedVersion === configuredVersion ? configured.embeddings : undefined);
  if (!built) {
    log.warn(
      { base, stored: storedVersion, configured: configuredVersion },
      'the index does not record the embedding settings it was built with; its queries use the configured embedder',
    );
  }
  const embedding = built ?? configured.embeddings;
  const embeddings = await env.embedder(embedding);

  const raw = env.redis ? createRecordStore(env.redis, env.ns, base, configuredVersion) : undefined;
  const chromaIds = new Set(cols.map((c) => c.metadata[META.indexId]).filter((v): v is string => typeof v === 'string'));
  const stampedId = chromaIds.size === 1 ? [...chromaIds][0] : undefined;
  // Chroma's id wins (the vectors are there); an empty index takes the records' id or a new one.
  const id = stampedId ?? (raw ? await raw.claimIdentity(randomUUID()) : randomUUID());

  const store = openChromaStore({
    url: env.chromaUrl,
    base,
    version: configuredVersion,
    queryVersion: storedVersion,
    indexId: id,
    stamp: settingsStamp(configured),
    efSearch: configured.hnsw.efSearch,
    m: configured.hnsw.m,
    efConstruction: configured.hnsw.efConstruction,
  });
  // ef_search is a search-time setting Chroma can change in place; the build settings (m,
  // ef_construction) are part of the index version instead, so a change to them means a rebuild.
  if (cols.length) {
    for (const c of await store.applySearchSetting())
      log.info({ base, group: c.group, from: c.from, to: c.to }, 'applied the configured HNSW ef_search to the index');
  }
  let catalog = createCatalog();
  let loaded: CatalogLoad | undefined;
  const snapshotDeps = {
    file: env.snapshotDir ? snapshotFile(env.snapshotDir, base) : undefined,
    // A recreated index (new id) or other settings never match an older snapshot.
    stamp: { base, indexVersion: storedVersion, identity: id },
    log,
  };

  // Chunks per group in the records, as the catalog load just found them (equal to the catalog).
  // The deep check that follows when an index is opened uses these instead of reading every
  // record again (a few hundred ms at 100k chunks); taken once.
  let loadedCounts: Map<string, number> | undefined;
  const loadCatalog = async () => {
    const got = await loadLexicalCatalog({ ...snapshotDeps, store, records: raw });
    loadedCounts = got.recordChunks;
    catalog = got.catalog;
    loaded = { from: got.from, ms: got.ms, recordsCheck: got.recordsCheck };
    const s = catalog.stats();
    log.info(
      { base, documents: s.documents, chunks: s.chunks, from: got.from, recordsCheck: got.recordsCheck, ms: Math.round(got.ms) },
      'lexical index loaded',
    );
  };

  const reconcile = createReconciler({
    store,
    records: raw,
    redis: env.redis,
    lockKey: `${env.ns}:idx:${base}:repair`,
    base,
    id,
    log,
    takeLoadedCounts: () => {
      const counts = loadedCounts;
      loadedCounts = undefined;
      return counts;
    },
  });
  // Concurrent readers share one check.
  let checking: Promise<unknown> | undefined;
  const ensure = (): Promise<unknown> =>
    (checking ??= reconcile().finally(() => {
      checking = undefined;
    }));

  // Reads that decide what to (re)index go through the check; writes and dashboard reads do not.
  const checkedBy = (check: () => Promise<unknown>): RecordStore | undefined =>
    raw && {
      ...raw,
      atPath: async (source, p) => {
        await check();
        return raw.atPath(source, p);
      },
      byId: async (docId) => {
        await check();
        return raw.byId(docId);
      },
      bySource: async (source) => {
        await check();
        return raw.bySource(source);
      },
    };
  const records = checkedBy(ensure);
  const recordsForRun = () => {
    let once: Promise<unknown> | undefined;
    return checkedBy(() => (once ??= reconcile()));
  };

  return {
    base,
    id,
    version: storedVersion,
    embedding,
    embeddings,
    store,
    get catalog() {
      return catalog;
    },
    get loaded() {
      return loaded;
    },
    saveSnapshot: async () => {
      await saveCatalogSnapshot(catalog, { ...snapshotDeps, records: raw });
    },
    records,
    recordsForRun,
    loadCatalog,
    reconcile,
    drop: async () => {
      await store.dropAll();
      await raw?.drop();
    },
  };
}

export type { RepairReport };
