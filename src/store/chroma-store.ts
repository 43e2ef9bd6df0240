// Chroma adapter: one collection per access group (`<base>--<group>`), vectors passed in by us.
// Separate collections instead of a `where` filter: filtered HNSW search costs ~300 ms at 100k
// chunks here against ~5 ms unfiltered, and a collection is a hard wall between groups.
// The parts: chroma/collections.ts (finding them, the version check), chroma/records.ts (chunk
// reads and writes), chroma/admin.ts (version, settings and identity of the whole index).
import { ChromaClient } from 'chromadb';
import * as admin from './chroma/admin.ts';
import type { CollectionInfo } from './chroma/admin.ts';
import { openCollections, type CollectionSettings } from './chroma/collections.ts';
import * as rec from './chroma/records.ts';
import type { StoredRecord, VectorRecord } from './chroma/records.ts';

export { GROUP_SEP, IndexVersionError, META } from './chroma/collections.ts';
export type { CollectionInfo } from './chroma/admin.ts';
export type { StoredRecord, VectorRecord } from './chroma/records.ts';

export class ChromaUnavailableError extends Error {}

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

/**
 * Waits before each retry of a request Chroma answered with "database is locked": its SQLite
 * catalog refuses a write while another holds the lock (two processes, or a rebuild beside a
 * sync), and the refused statement did not run, so sending it again is safe.
 */
export const LOCKED_RETRY_MS = [50, 100, 200, 400, 800];

const isLocked = (err: unknown): boolean => /database is locked/i.test((err as { message?: string })?.message ?? '');

/** `fn`, sent again after each delay while Chroma says its database is locked. */
export async function retryWhileLocked<T>(fn: () => Promise<T>, delays: readonly number[] = LOCKED_RETRY_MS): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (!isLocked(err) || attempt >= delays.length) throw err;
      await new Promise((r) => setTimeout(r, delays[attempt]));
    }
  }
}

async function guard<T>(url: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isConnectionError(err)) throw new ChromaUnavailableError(`Chroma at ${url} is unreachable: ${(err as Error).message}`);
    throw err;
  }
}

export interface ChromaStoreOptions extends CollectionSettings {
  url: string;
}

export function openChromaStore(opts: ChromaStoreOptions): VectorStore {
  const client = new ChromaClient(parseUrl(opts.url));
  const cols = openCollections(client, opts);
  const g = <T>(fn: () => Promise<T>) => guard(opts.url, () => retryWhileLocked(fn));
  // A scan hands batches over as it reads: sent again, it would hand the first ones twice.
  const once = <T>(fn: () => Promise<T>) => guard(opts.url, fn);
  return {
    url: opts.url,
    base: opts.base,
    groups: () => g(async () => (await cols.listOwn()).map(cols.groupOf)),
    storedVersion: () => g(() => admin.storedVersion(cols)),
    assertVersion: () => g(() => admin.assertVersion(cols, opts.version)),
    upsert: (group, records) => g(() => rec.upsertRecords(cols, group, records)),
    delete: (group, ids) => g(() => rec.deleteRecords(cols, group, ids)),
    query: (group, vector, n) => g(() => rec.queryNearest(cols, group, vector, n)),
    embeddingsOf: (group, ids) => g(() => rec.embeddingsOf(cols, group, ids)),
    scan: (group, onBatch, batchSize) => once(() => rec.scanRecords(cols, group, onBatch, batchSize)),
    count: (group) => g(async () => (await cols.get(group, false, false))?.count() ?? 0),
    dropAll: () => g(() => admin.dropAll(client, cols)),
    heartbeat: async () => {
      try {
        await client.heartbeat();
        return true;
      } catch {
        return false;
      }
    },
    describe: () => g(() => admin.describeCollections(cols)),
    setIndexId: (id) => g(() => admin.setIndexId(cols, id)),
    applySearchSetting: () => g(() => admin.applySearchSetting(cols, opts.efSearch)),
    documentChunks: (group, docId) => g(() => rec.documentChunks(cols, group, docId)),
  };
}
