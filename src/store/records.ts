// The shared record of what is indexed, in Redis: per document its content hash, chunk ids and
// chunk hashes, when and with which index version it was indexed; per source its last sync. Every
// worker on every machine reads and writes this, so no process relies on its own memory to know
// what a sync must change.
import { randomBytes, randomUUID } from 'node:crypto';
import type { IndexedDoc, IndexLookup } from '../types.ts';
import type { Chunk, LabDocument } from '../types.ts';
import { execChecked, type Redis } from './redis.ts';

export interface DocRecord extends IndexedDoc {
  title: string;
  indexedAt: string;
  version: string;
}

export interface SourceState {
  lastSyncAt?: string;
  /** Last commit indexed (git sources). */
  commit?: string;
  lastError?: string;
}

/** A file that could not be indexed (or was skipped), with the reason, until it indexes cleanly. */
export interface FileProblem {
  path: string;
  status: 'skipped' | 'failed';
  reason: string;
  at: string;
  /** Content hash of the file that failed: an unchanged failing file is not retried every sync. */
  hash?: string;
}

/** Something an admin should know about the index (a source removed from the config). */
export interface IndexNote {
  at: string;
  text: string;
}

export interface RecordStore extends IndexLookup {
  readonly base: string;
  put(doc: LabDocument, chunks: Chunk[]): Promise<void>;
  remove(doc: IndexedDoc): Promise<void>;
  count(): Promise<number>;
  sourceState(source: string): Promise<SourceState>;
  setSourceState(source: string, patch: SourceState): Promise<void>;
  setProblem(source: string, path: string, problem: Omit<FileProblem, 'path' | 'at'> | undefined): Promise<void>;
  problems(source: string): Promise<FileProblem[]>;
  /** Drops every record of this index (after a blue/green switch away from it). */
  drop(): Promise<void>;
  /** Every document record of this index, over all sources. */
  all(): Promise<DocRecord[]>;
  /**
   * A token that changes with every record written or removed (or dropped), so whoever compared
   * something with the records at one token knows, seeing the same token later, that no record
   * changed in between. Claimed on first use for records written before tokens existed.
   */
  revision(): Promise<string>;
  /** Every record with the revision they are all at; no revision when a write raced the read. */
  allAtRevision(): Promise<{ records: DocRecord[]; revision: string | undefined }>;
  /**
   * The secret that seals this index's lexical snapshots (index/snapshot-seal.ts), claimed on
   * first use. It lives with the records, not beside the snapshots, so a process that can write
   * the data dir but not read Redis cannot make a snapshot a load accepts.
   */
  snapshotKey(): Promise<Buffer>;
  /** The physical index these records describe (see physical-index.ts); undefined when never set. */
  identity(): Promise<string | undefined>;
  /** Sets the identity unless one is set; returns the identity now stored. */
  claimIdentity(id: string): Promise<string>;
  setIdentity(id: string): Promise<void>;
  /** Sources that were in the config of a process that started or synced (CLI-only sources never are). */
  configuredSources(): Promise<string[]>;
  markConfigured(sources: string[]): Promise<void>;
  /** Forgets a source that left the config: its state, its problems, its place among the configured. */
  forgetSource(source: string): Promise<void>;
  addNote(text: string): Promise<void>;
  /** The newest notes first. */
  notes(): Promise<IndexNote[]>;
}

const MAX_NOTES = 50;

const SEP = '\u0000';

/** The Redis keys of one physical index: `k` for its own keys, `srcKey` for a source's records. */
interface IndexKeys {
  k: (s: string) => string;
  srcKey: (source: string) => string;
}

/** `ns` isolates one labbot installation (and each test); `base` is one physical index. */
export function createRecordStore(redis: Redis, ns: string, base: string, version: string): RecordStore {
  const k = (s: string) => `${ns}:idx:${base}:${s}`;
  const srcKey = (source: string) => k(`src:${source}`);
  const indexKeys: IndexKeys = { k, srcKey };
  const parse = (json: string | null | undefined): DocRecord | undefined => (json ? (JSON.parse(json) as DocRecord) : undefined);

  async function atPath(source: string, p: string): Promise<DocRecord | undefined> {
    return parse(await redis.hget(srcKey(source), p));
  }
  async function byId(id: string): Promise<DocRecord | undefined> {
    const where = await redis.hget(k('ids'), id);
    if (!where) return undefined;
    const [source, p] = where.split(SEP);
    const rec = await atPath(source, p);
    return rec?.id === id ? rec : undefined;
  }

  async function all(): Promise<DocRecord[]> {
    const out: DocRecord[] = [];
    for (const s of await redis.smembers(k('sources')))
      out.push(...Object.values(await redis.hgetall(srcKey(s))).map((j) => JSON.parse(j) as DocRecord));
    return out;
  }
  async function revision(): Promise<string> {
    await redis.set(k('rev'), randomUUID(), 'NX');
    return (await redis.get(k('rev'))) ?? '';
  }

  return {
    base,
    atPath,
    byId,
    async bySource(source) {
      const all = await redis.hgetall(srcKey(source));
      return Object.values(all).map((j) => JSON.parse(j) as DocRecord);
    },
    async put(doc, chunks) {
      const rec = recordOf(doc, chunks, version);
      const before = await redis.hget(k('ids'), doc.id);
      const tx = redis.multi();
      // A renamed page keeping its id: its old path no longer holds it.
      if (before && before !== `${doc.source}${SEP}${doc.path}`) {
        const [s, p] = before.split(SEP);
        tx.hdel(srcKey(s), p);
      }
      tx.hset(srcKey(doc.source), doc.path, JSON.stringify(rec));
      tx.hset(k('ids'), doc.id, `${doc.source}${SEP}${doc.path}`);
      tx.sadd(k('sources'), doc.source);
      tx.set(k('rev'), randomUUID());
      await execChecked(tx, `record of ${doc.id}`);
    },
    async remove(doc) {
      const current = await atPath(doc.source, doc.path);
      const tx = redis.multi();
      if (current?.id === doc.id) tx.hdel(srcKey(doc.source), doc.path);
      if ((await redis.hget(k('ids'), doc.id)) === `${doc.source}${SEP}${doc.path}`) tx.hdel(k('ids'), doc.id);
      tx.set(k('rev'), randomUUID());
      await execChecked(tx, `removing the record of ${doc.id}`);
    },
    count: () => redis.hlen(k('ids')),
    ...sourceBookkeeping(redis, indexKeys),
    async drop() {
      const sources = await redis.smembers(k('sources'));
      const keys = [
        k('ids'),
        k('sources'),
        k('identity'),
        k('rev'),
        k('snapshot-key'),
        k('configured'),
        k('notes'),
        ...sources.flatMap((s) => [srcKey(s), k(`state:${s}`), k(`problems:${s}`)]),
      ];
      await redis.del(...keys);
    },
    all,
    revision,
    async allAtRevision() {
      // Every write changes the token in the same transaction as the records, so the same token
      // before and after the read means no write came in between.
      const before = await revision();
      const records = await all();
      return { records, revision: (await redis.get(k('rev'))) === before ? before : undefined };
    },
    ...indexProperties(redis, indexKeys),
  };
}

/** The record of a document as indexed now, with this index version. */
function recordOf(doc: LabDocument, chunks: Chunk[], version: string): DocRecord {
  return {
    id: doc.id,
    source: doc.source,
    path: doc.path,
    access: doc.access,
    ...(doc.accessFrom ? { accessFrom: doc.accessFrom } : {}),
    kind: doc.kind,
    title: doc.title,
    contentHash: doc.contentHash,
    ...(doc.fileDoi ? { fileDoi: doc.fileDoi } : {}),
    chunkIds: chunks.map((c) => c.id),
    chunkHashes: chunks.map((c) => c.hash),
    indexedAt: new Date().toISOString(),
    version,
  };
}

/** Per source: its sync state, its problem files, whether the config names it. */
function sourceBookkeeping(
  redis: Redis,
  { k, srcKey }: IndexKeys,
): Pick<
  RecordStore,
  'sourceState' | 'setSourceState' | 'setProblem' | 'problems' | 'configuredSources' | 'markConfigured' | 'forgetSource'
> {
  return {
    async sourceState(source) {
      const raw = await redis.hgetall(k(`state:${source}`));
      return {
        lastSyncAt: raw.lastSyncAt,
        commit: raw.commit,
        lastError: raw.lastError || undefined,
      };
    },
    async setSourceState(source, patch) {
      const fields: Record<string, string> = {};
      if (patch.lastSyncAt !== undefined) fields.lastSyncAt = patch.lastSyncAt;
      if (patch.commit !== undefined) fields.commit = patch.commit;
      if (patch.lastError !== undefined) fields.lastError = patch.lastError;
      if (Object.keys(fields).length)
        await execChecked(
          redis
            .multi()
            .hset(k(`state:${source}`), fields)
            .sadd(k('sources'), source),
          `state of ${source}`,
        );
    },
    async setProblem(source, p, problem) {
      if (problem) await redis.hset(k(`problems:${source}`), p, JSON.stringify({ ...problem, path: p, at: new Date().toISOString() }));
      else await redis.hdel(k(`problems:${source}`), p);
    },
    async problems(source) {
      return Object.values(await redis.hgetall(k(`problems:${source}`))).map((j) => JSON.parse(j) as FileProblem);
    },
    configuredSources: () => redis.smembers(k('configured')),
    async markConfigured(sources) {
      if (sources.length) await redis.sadd(k('configured'), ...sources);
    },
    async forgetSource(source) {
      await execChecked(
        redis
          .multi()
          .del(k(`state:${source}`), k(`problems:${source}`), srcKey(source))
          .srem(k('sources'), source)
          .srem(k('configured'), source),
        `forgetting ${source}`,
      );
    },
  };
}

/** What the index holds besides records: its snapshot key, its identity, the notes for admins. */
function indexProperties(
  redis: Redis,
  { k }: IndexKeys,
): Pick<RecordStore, 'snapshotKey' | 'identity' | 'claimIdentity' | 'setIdentity' | 'addNote' | 'notes'> {
  return {
    async snapshotKey() {
      await redis.set(k('snapshot-key'), randomBytes(32).toString('base64'), 'NX');
      const key = await redis.get(k('snapshot-key'));
      if (!key) throw new Error('the lexical snapshot key vanished as it was claimed');
      return Buffer.from(key, 'base64');
    },
    identity: async () => (await redis.get(k('identity'))) ?? undefined,
    async claimIdentity(id) {
      await redis.set(k('identity'), id, 'NX');
      return (await redis.get(k('identity'))) ?? id;
    },
    async setIdentity(id) {
      await redis.set(k('identity'), id);
    },
    async addNote(text) {
      await execChecked(
        redis
          .multi()
          .lpush(k('notes'), JSON.stringify({ at: new Date().toISOString(), text }))
          .ltrim(k('notes'), 0, MAX_NOTES - 1),
        'index note',
      );
    },
    async notes() {
      return (await redis.lrange(k('notes'), 0, -1)).map((j) => JSON.parse(j) as IndexNote);
    },
  };
}

/** The Redis key naming the live physical index (blue/green alias). */
export const aliasKey = (ns: string) => `${ns}:live`;

export async function liveBase(redis: Redis, ns: string): Promise<string | undefined> {
  return (await redis.get(aliasKey(ns))) ?? undefined;
}
