// Chroma adapter: one collection per access group (`<base>--<group>`), vectors passed in by us.
// Separate collections instead of a `where` filter: filtered HNSW search costs ~300 ms at 100k
// chunks here against ~5 ms unfiltered, and a collection is a hard wall between groups.
import { ChromaClient, type Collection, type Metadata } from 'chromadb';
import type { ChunkMetadata } from '../types.ts';

export class IndexVersionError extends Error {}
export class ChromaUnavailableError extends Error {}

export interface StoredRecord {
  id: string;
  text: string;
  /** As stored: may also hold the adapter's own text field, which readers ignore. */
  metadata: ChunkMetadata;
}

export interface VectorRecord extends StoredRecord {
  embedding: number[];
}

export interface VectorStore {
  readonly url: string;
  readonly base: string;
  groups(): Promise<string[]>;
  /** The version stored with existing collections, if any (all groups share one). */
  storedVersion(): Promise<string | undefined>;
  /** Throws IndexVersionError when existing collections were built with another version. */
  assertVersion(): Promise<void>;
  upsert(group: string, records: VectorRecord[]): Promise<void>;
  delete(group: string, ids: string[]): Promise<void>;
  query(group: string, vector: number[], n: number): Promise<{ id: string; score: number }[]>;
  embeddingsOf(group: string, ids: string[]): Promise<Map<string, number[]>>;
  /** Streams every record of a group (for rebuilding in-memory indexes at start-up). */
  scan(group: string, onBatch: (records: StoredRecord[]) => void, batchSize?: number): Promise<void>;
  count(group: string): Promise<number>;
  /** Drops every collection of this base name (all groups). */
  dropAll(): Promise<void>;
  heartbeat(): Promise<boolean>;
  /** This index's collections with their stored metadata and search setting (identity, settings). */
  describe(): Promise<CollectionInfo[]>;
  /** Writes the physical index id into every collection of this base (and into collections created later). */
  setIndexId(id: string): Promise<void>;
  /** Applies the configured ef_search to existing collections; returns the groups that changed. */
  applySearchSetting(): Promise<{ group: string; from: number | undefined; to: number }[]>;
  /** Every stored chunk of one document in a group (index events carry ids; readers fetch the text). */
  documentChunks(group: string, docId: string): Promise<StoredRecord[]>;
}

export interface CollectionInfo {
  group: string;
  metadata: Record<string, unknown>;
  efSearch: number | undefined;
  m: number | undefined;
  efConstruction: number | undefined;
}

/** Collection metadata keys (scalars only: Chroma metadata cannot hold objects). */
export const META = {
  version: 'labbot_index_version',
  group: 'labbot_group',
  indexId: 'labbot_index_id',
} as const;

const SCAN_PARALLEL = 2;
const MAX_UPSERT = 5000; // Chroma refuses batches above ~5,461 records.
/**
 * Chunk text is stored as this metadata field, not as Chroma's document. The local Chroma server
 * builds a trigram full-text index over every document (its schema option to turn that off is
 * ignored there), which labbot never queries: BM25 is its own. Measured at 12k chunks, writes
 * with the text as metadata ran at 1,150-1,290 chunks/s against 620-690 with it as document.
 * Collections written before keep their text as documents; reads accept both.
 */
const TEXT_KEY = 'labbot_text';
export const GROUP_SEP = '--';

export function parseUrl(url: string): { host: string; port: number; ssl: boolean } {
  const u = new URL(url);
  const ssl = u.protocol === 'https:';
  return { host: u.hostname, port: Number(u.port || (ssl ? 443 : 80)), ssl };
}

function isConnectionError(err: unknown): boolean {
  const e = err as { name?: string; message?: string; cause?: { code?: string } };
  return (
    e?.name === 'ChromaConnectionError' ||
    /fetch failed|ECONNREFUSED|ECONNRESET|socket hang up|Failed to connect/i.test(e?.message ?? '') ||
    e?.cause?.code === 'ECONNREFUSED'
  );
}

async function guard<T>(url: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isConnectionError(err)) throw new ChromaUnavailableError(`Chroma at ${url} is unreachable: ${(err as Error).message}`);
    throw err;
  }
}

/** Records from a `get` result; the text is our metadata field, or the document in older collections. */
function storedRecords(res: { ids: string[]; metadatas: (Metadata | null)[]; documents: (string | null)[] }): StoredRecord[] {
  return res.ids.map((id, i) => {
    const metadata = (res.metadatas[i] ?? {}) as ChunkMetadata;
    const text = metadata[TEXT_KEY];
    return { id, text: typeof text === 'string' ? text : (res.documents[i] ?? ''), metadata };
  });
}

export interface ChromaStoreOptions {
  url: string;
  base: string;
  /** The version writes must match (the configured settings). */
  version: string;
  /** The version queries must match: the index's own, when it was built with other settings. */
  queryVersion?: string;
  /** Physical index id stored with every collection (see physical-index.ts). */
  indexId?: string;
  /** More scalar metadata stored with new collections (the settings the index is built with). */
  stamp?: Record<string, string | number>;
  efSearch: number;
  m?: number;
  efConstruction?: number;
}

export function openChromaStore(opts: ChromaStoreOptions): VectorStore {
  const client = new ChromaClient(parseUrl(opts.url));
  let indexId = opts.indexId;
  const cache = new Map<string, Collection>();
  const nameOf = (group: string) => `${opts.base}${GROUP_SEP}${group}`;

  async function listOwn(): Promise<Collection[]> {
    const out: Collection[] = [];
    for (let offset = 0; ; offset += 100) {
      const page = await client.listCollections({ limit: 100, offset });
      out.push(...page.filter((c) => c.name.startsWith(`${opts.base}${GROUP_SEP}`)));
      if (page.length < 100) return out;
    }
  }

  /**
   * Writes, vector reads and queries need the collection's vectors to match our settings (strict);
   * scanning texts, counting and deleting do not, so a process with new settings can still load
   * the lexical index and serve while a blue/green rebuild runs.
   */
  async function collection(group: string, create: boolean, strict: boolean | 'query' = true): Promise<Collection | undefined> {
    const expected = strict === 'query' ? (opts.queryVersion ?? opts.version) : opts.version;
    const hit = cache.get(group);
    if (hit) {
      const v = hit.metadata?.labbot_index_version;
      if (strict && v !== undefined && v !== expected) throw versionError(String(v));
      return hit;
    }
    const name = nameOf(group);
    let col: Collection | undefined;
    if (create) {
      col = await client.getOrCreateCollection({
        name,
        embeddingFunction: null,
        metadata: { ...opts.stamp, [META.version]: opts.version, [META.group]: group, ...(indexId ? { [META.indexId]: indexId } : {}) },
        configuration: { hnsw: { space: 'cosine', ef_construction: opts.efConstruction ?? 200, ef_search: opts.efSearch, max_neighbors: opts.m ?? 16 } },
      });
    } else {
      try {
        col = await client.getCollection({ name });
      } catch (err) {
        if ((err as Error).name === 'ChromaNotFoundError' || /not found|does not exist/i.test((err as Error).message)) return undefined;
        throw err;
      }
    }
    cache.set(group, col);
    const stored = col.metadata?.labbot_index_version;
    if (strict && stored !== undefined && stored !== expected) throw versionError(String(stored));
    return col;
  }

  function versionError(stored: string): IndexVersionError {
    return new IndexVersionError(
      `The index "${opts.base}" was built with index version ${stored}, but the current settings give ${opts.version} ` +
        `(embedding model or chunking changed). Rebuild it with \`labbot ingest --rebuild\`, or set LABBOT_COLLECTION to a new name.`,
    );
  }

  return {
    url: opts.url,
    base: opts.base,
    groups: () => guard(opts.url, async () => (await listOwn()).map((c) => c.name.slice(opts.base.length + GROUP_SEP.length))),
    storedVersion: () =>
      guard(opts.url, async () => {
        const first = (await listOwn())[0];
        const v = first?.metadata?.labbot_index_version;
        return v === undefined ? undefined : String(v);
      }),
    assertVersion: () =>
      guard(opts.url, async () => {
        for (const c of await listOwn()) {
          const v = c.metadata?.labbot_index_version;
          if (v !== undefined && v !== opts.version) throw versionError(String(v));
        }
      }),
    upsert: (group, records) =>
      guard(opts.url, async () => {
        if (records.length === 0) return;
        const col = (await collection(group, true))!;
        for (let i = 0; i < records.length; i += MAX_UPSERT) {
          const batch = records.slice(i, i + MAX_UPSERT);
          await col.upsert({
            ids: batch.map((r) => r.id),
            embeddings: batch.map((r) => r.embedding),
            metadatas: batch.map((r) => ({ ...r.metadata, [TEXT_KEY]: r.text }) as Metadata),
          });
        }
      }),
    delete: (group, ids) =>
      guard(opts.url, async () => {
        if (ids.length === 0) return;
        const col = await collection(group, false, false);
        if (!col) return;
        for (let i = 0; i < ids.length; i += MAX_UPSERT) await col.delete({ ids: ids.slice(i, i + MAX_UPSERT) });
      }),
    query: (group, vector, n) =>
      guard(opts.url, async () => {
        const col = await collection(group, false, 'query');
        if (!col) return [];
        const res = await col.query({ queryEmbeddings: [vector], nResults: n, include: ['distances'] });
        const ids = res.ids[0] ?? [];
        const dists = res.distances[0] ?? [];
        // Cosine distance -> similarity, so higher is better like every other score here.
        return ids.map((id, i) => ({ id, score: 1 - (dists[i] ?? 1) }));
      }),
    embeddingsOf: (group, ids) =>
      guard(opts.url, async () => {
        const out = new Map<string, number[]>();
        const col = await collection(group, false);
        if (!col || ids.length === 0) return out;
        for (let i = 0; i < ids.length; i += MAX_UPSERT) {
          const res = await col.get({ ids: ids.slice(i, i + MAX_UPSERT), include: ['embeddings'] });
          res.ids.forEach((id, j) => {
            const e = res.embeddings[j];
            if (e) out.set(id, Array.from(e));
          });
        }
        return out;
      }),
    scan: (group, onBatch, batchSize = 2000) =>
      guard(opts.url, async () => {
        const col = await collection(group, false, false);
        if (!col) return;
        const page = async (offset: number) => {
          const res = await col.get({ limit: batchSize, offset, include: ['documents', 'metadatas'] });
          const records = storedRecords(res);
          if (records.length) onBatch(records);
          return res.ids.length;
        };
        // Pages are fetched SCAN_PARALLEL at a time: Chroma serves them on several threads, and
        // start-up time is mostly this scan (106k chunks: 24.5 s one at a time, 17-20 s two at a
        // time). More in flight kept more parsed pages alive at once for no further gain. The
        // count is only a plan: paging goes on until a short page.
        const planned = await col.count();
        let offset = 0;
        for (;;) {
          const offsets: number[] = [];
          for (let i = 0; i < SCAN_PARALLEL && (offsets.length === 0 || offset < planned); i++, offset += batchSize) offsets.push(offset);
          const sizes = await Promise.all(offsets.map(page));
          if (sizes.some((n) => n < batchSize)) return;
        }
      }),
    count: (group) =>
      guard(opts.url, async () => {
        const col = await collection(group, false, false);
        return col ? col.count() : 0;
      }),
    dropAll: () =>
      guard(opts.url, async () => {
        for (const c of await listOwn()) await client.deleteCollection({ name: c.name });
        cache.clear();
      }),
    heartbeat: async () => {
      try {
        await client.heartbeat();
        return true;
      } catch {
        return false;
      }
    },
    describe: () =>
      guard(opts.url, async () =>
        (await listOwn()).map((c) => {
          const hnsw = (c.configuration as { hnsw?: { ef_search?: number; max_neighbors?: number; ef_construction?: number } | null } | undefined)?.hnsw ?? undefined;
          return {
            group: c.name.slice(opts.base.length + GROUP_SEP.length),
            metadata: { ...(c.metadata ?? {}) },
            efSearch: hnsw?.ef_search,
            m: hnsw?.max_neighbors,
            efConstruction: hnsw?.ef_construction,
          };
        }),
      ),
    setIndexId: (id) =>
      guard(opts.url, async () => {
        indexId = id;
        for (const c of await listOwn()) {
          if (c.metadata?.[META.indexId] === id) continue;
          // Chroma replaces metadata on modify: write it back whole.
          await c.modify({ metadata: { ...(c.metadata ?? {}), [META.indexId]: id } });
        }
        cache.clear();
      }),
    applySearchSetting: () =>
      guard(opts.url, async () => {
        const changed: { group: string; from: number | undefined; to: number }[] = [];
        for (const c of await listOwn()) {
          const from = (c.configuration as { hnsw?: { ef_search?: number } | null } | undefined)?.hnsw?.ef_search;
          if (from === opts.efSearch) continue;
          await c.modify({ configuration: { hnsw: { ef_search: opts.efSearch } } });
          changed.push({ group: c.name.slice(opts.base.length + GROUP_SEP.length), from, to: opts.efSearch });
        }
        if (changed.length) cache.clear();
        return changed;
      }),
    documentChunks: (group, docId) =>
      guard(opts.url, async () => {
        const col = await collection(group, false, false);
        if (!col) return [];
        const out: StoredRecord[] = [];
        for (let offset = 0; ; offset += MAX_UPSERT) {
          const res = await col.get({ where: { doc_id: docId }, limit: MAX_UPSERT, offset, include: ['documents', 'metadatas'] }).catch((err: Error) => {
            // The collection was dropped since it was cached (an emptied Chroma): it holds nothing.
            if (err.name !== 'ChromaNotFoundError') throw err;
            cache.delete(group);
            return undefined;
          });
          if (!res) return out;
          out.push(...storedRecords(res));
          if (res.ids.length < MAX_UPSERT) return out;
        }
      }),
  };
}
