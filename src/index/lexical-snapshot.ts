// The lexical catalog (documents, chunk texts, BM25 postings) saved to disk, so a restarted bot
// answers at once instead of re-reading every chunk from Chroma and re-analysing it (about 20 s
// at 120k chunks). A snapshot is only a cache: it is stamped with the physical index and the
// index version it mirrors, checked against the records before use, and any doubt means the
// catalog is rebuilt from Chroma as before.
//
// Why hand-written framing over one v8.serialize call: one buffer for the whole catalog (~150 MB
// at 120k chunks) on top of the live catalog would raise peak memory; frames keep each buffer
// small. v8's serializer itself is used for the values (typed arrays and strings at native speed).
// Chunk texts are the exception: one raw frame of UTF-8 bytes (search/text-table.ts), read
// straight into the buffer the catalog keeps, so a restart neither parses nor copies them.
//
// The file is MAGIC, then frames of [u32 length][32-byte tag][body]; the tags chain and are keyed
// with the index's secret (snapshot-seal.ts), and each frame is verified before it is
// deserialised or used.
import { randomUUID } from 'node:crypto';
import {
  closeSync,
  mkdirSync,
  openSync,
  read,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import v8 from 'node:v8';
import type { LexicalSnapshot } from '../search/bm25.ts';
import type { CatalogSnapshot, DocRecord } from '../search/catalog.ts';
import { isValidTable } from '../search/text-table.ts';
import type { ChunkInfo } from '../types.ts';
import { FIRST_TAG, frameTag, noteTag, noteTagMatches, sameTag, TAG_BYTES } from './snapshot-seal.ts';

const FORMAT = 'labbot-lexical-snapshot';
// 2: chunk texts moved out of the chunk frames into one raw UTF-8 frame.
// 3: "equal to the records" includes access groups: the notes beside snapshots of version 2
//    compared none, so none of them may be believed.
// 4: every frame sealed (snapshot-seal.ts); the "checked" note names the snapshot's id, sealed.
const FORMAT_VERSION = 4;
// Files of older formats start with a frame length instead: told apart without reading them.
export const MAGIC = Buffer.from(`${FORMAT} ${FORMAT_VERSION}\n`);
const DOCS_PER_FRAME = 5_000;
const CHUNKS_PER_FRAME = 10_000;

/** What a snapshot must match to be used: the physical index and the settings it was built with. */
export interface SnapshotStamp {
  base: string;
  indexVersion: string;
  /** The physical index's identity, when it has one (a recreated index gets a new one). */
  identity?: string;
}

interface Header extends SnapshotStamp {
  format: typeof FORMAT;
  formatVersion: number;
  /** v8's serialization format can change between Node releases. */
  v8: string;
  /** This file's own id: what a "checked" note names. */
  id: string;
  createdAt: string;
  documents: number;
  chunks: number;
  partitions: string[];
}

export interface SnapshotInfo {
  id: string;
  createdAt: string;
  documents: number;
  chunks: number;
  bytes: number;
}

/** `damaged`: the file is there, of this format, but fails its checks (say so loudly). */
export type SnapshotRead = { ok: true; snapshot: CatalogSnapshot; info: SnapshotInfo } | { ok: false; reason: string; damaged?: true };

/** One file per physical index; the name is safe because Chroma restricts index names. */
export const snapshotFile = (dir: string, base: string) => path.join(dir, `${base}.lexical`);

/** Removes the snapshots of other indexes (switched away from): each is as large as the catalog. */
export function pruneSnapshots(dir: string, keepBase: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  const keep = path.basename(snapshotFile(dir, keepBase));
  for (const n of names) {
    if ((n.endsWith('.lexical') && n !== keep) || (n.endsWith(CHECKED_SUFFIX) && n !== keep + CHECKED_SUFFIX))
      rmSync(path.join(dir, n), { force: true });
    // A write a dead process left half done (another live process may be writing its own).
    else if (
      n.endsWith('.tmp') &&
      Date.now() - (statSync(path.join(dir, n), { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > STALE_WRITE_MS
    ) {
      rmSync(path.join(dir, n), { force: true });
    }
  }
}

const STALE_WRITE_MS = 60 * 60_000;

// Beside a snapshot, a small file saying at which records revision (records.ts) it was found
// equal to the records. A start that sees the records still at that revision needs not read and
// compare every record (a quarter of a restart at 100k chunks). Apart from the snapshot so that
// a check after a start records it without rewriting the snapshot. It names the snapshot's id and
// is sealed with the index's key: a note edited to name the current revision, or one put beside
// another (older, genuine) snapshot, is not believed.
const CHECKED_SUFFIX = '.checked';

interface Checked {
  snapshot: string;
  recordsRevision: string;
  tag: string;
}

/** Notes that the snapshot `info` describes equals the records at `revision` (none: forget it). */
export function noteRecordsChecked(file: string, info: Pick<SnapshotInfo, 'id'>, revision: string | undefined, key: Buffer): void {
  const side = file + CHECKED_SUFFIX;
  if (revision === undefined) {
    rmSync(side, { force: true });
    return;
  }
  const tmp = `${side}.${process.pid}.tmp`;
  writeFileSync(
    tmp,
    JSON.stringify({ snapshot: info.id, recordsRevision: revision, tag: noteTag(key, info.id, revision) } satisfies Checked),
  );
  renameSync(tmp, side);
}

/** The records revision the snapshot `info` describes was found equal to, if one was noted. */
export function recordsCheckedAt(file: string, info: Pick<SnapshotInfo, 'id'>, key: Buffer): string | undefined {
  try {
    const c = JSON.parse(readFileSync(file + CHECKED_SUFFIX, 'utf8')) as Partial<Checked>;
    if (c.snapshot !== info.id || typeof c.recordsRevision !== 'string' || typeof c.tag !== 'string') return undefined;
    return noteTagMatches(key, info.id, c.recordsRevision, c.tag) ? c.recordsRevision : undefined;
  } catch {
    return undefined;
  }
}

// Temporary files are unique per write, so two writes of one snapshot never share one.
let writes = 0;

/**
 * Writes the snapshot atomically: a reader sees the old file or the new one, never a torn one.
 * The writes and the fsync run on the thread pool, so the process goes on answering meanwhile
 * (they were about half of a save's blocking time at 100k chunks); `snap` is a copy already.
 * `key` seals it (snapshot-seal.ts): the index's key, or the checksum-only one without records.
 */
export async function writeSnapshot(
  file: string,
  stamp: SnapshotStamp,
  snap: CatalogSnapshot,
  key: Buffer,
  now = new Date(),
): Promise<SnapshotInfo> {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${++writes}.tmp`;
  const header: Header = {
    format: FORMAT,
    formatVersion: FORMAT_VERSION,
    v8: process.versions.v8,
    ...stamp,
    id: randomUUID(),
    createdAt: now.toISOString(),
    documents: snap.docs.length,
    chunks: snap.chunks.length,
    partitions: snap.partitions.map(([g]) => g),
  };
  const fh = await open(tmp, 'w');
  let bytes = 0;
  const writeAll = async (b: Uint8Array): Promise<void> => {
    for (let at = 0; at < b.length; ) at += (await fh.write(b, at, b.length - at)).bytesWritten;
  };
  let prev = FIRST_TAG;
  let index = 0;
  const raw = async (body: Buffer): Promise<void> => {
    const head = Buffer.alloc(4 + TAG_BYTES);
    head.writeUInt32LE(body.length);
    prev = await frameTag(key, index++, prev, body);
    prev.copy(head, 4);
    await writeAll(head);
    await writeAll(body);
    bytes += head.length + body.length;
  };
  const frame = (value: unknown) => raw(v8.serialize(value));
  try {
    await writeAll(MAGIC);
    bytes += MAGIC.length;
    await frame(header);
    for (let i = 0; i < snap.docs.length; i += DOCS_PER_FRAME) await frame(snap.docs.slice(i, i + DOCS_PER_FRAME));
    for (let i = 0; i < snap.chunks.length; i += CHUNKS_PER_FRAME) await frame(snap.chunks.slice(i, i + CHUNKS_PER_FRAME));
    await frame(snap.texts.ends);
    await raw(snap.texts.bytes);
    for (const [, p] of snap.partitions) {
      await frame({ k1: p.k1, b: p.b, ids: p.ids, terms: p.terms });
      for (const a of [p.docLen, p.postStart, p.postDocs, p.postTfs]) await frame(a);
    }
    await fh.sync();
  } catch (err) {
    await fh.close();
    rmSync(tmp, { force: true });
    throw err;
  }
  await fh.close();
  renameSync(tmp, file);
  return { id: header.id, createdAt: header.createdAt, documents: header.documents, chunks: header.chunks, bytes };
}

/** Reads `n` bytes at `at` into a buffer of their own (not Node's shared pool), on the thread pool. */
function readAt(fd: number, at: number, n: number): Promise<Buffer> {
  const body = Buffer.allocUnsafeSlow(n);
  return new Promise((resolve, reject) => {
    const step = (got: number) => {
      if (got === n) return resolve(body);
      read(fd, body, got, n - got, at + got, (err, r) => (err ? reject(err) : r === 0 ? reject(new Error('truncated')) : step(got + r)));
    };
    step(0);
  });
}

/** A frame whose tag does not verify: damaged, edited, or sealed with another key. */
class BadTag extends Error {}

/**
 * The frames of a snapshot file: the header read at once, then (once it is accepted) every
 * other frame's bytes requested together. libuv's thread pool copies the large frames (texts,
 * postings) into memory while this thread verifies and deserialises them in order: on a small
 * machine, filling ~100 MB of fresh memory is a large part of a restart. No frame's bytes are
 * deserialised or handed out before its tag is verified.
 */
function frameReader(fd: number, size: number, key: Buffer) {
  const headBuf = Buffer.alloc(4 + TAG_BYTES);
  let pos = MAGIC.length;
  const nextFrame = (): { at: number; n: number; tag: Buffer } => {
    if (pos + headBuf.length > size) throw new Error('truncated');
    readSync(fd, headBuf, 0, headBuf.length, pos);
    const n = headBuf.readUInt32LE(0);
    if (pos + headBuf.length + n > size) throw new Error('truncated');
    const frame = { at: pos + headBuf.length, n, tag: Buffer.from(headBuf.subarray(4)) };
    pos += headBuf.length + n;
    return frame;
  };
  let prev = FIRST_TAG;
  let index = 0;
  const verified = async (tag: Buffer, body: Buffer): Promise<Buffer> => {
    if (!sameTag(await frameTag(key, index, prev, body), tag))
      throw new BadTag(`frame ${index} fails its checksum (damaged, edited, or sealed with another index's key)`);
    prev = tag;
    index++;
    return body;
  };
  let pending: { tag: Buffer; body: Promise<Buffer> }[] = [];
  let taken = 0;
  return {
    async header(): Promise<unknown> {
      const { at, n, tag } = nextFrame();
      const body = Buffer.allocUnsafe(n);
      if (readSync(fd, body, 0, n, at) !== n) throw new Error('truncated');
      return v8.deserialize(await verified(tag, body));
    },
    /** Requests the `count` frames after the header; the file must end with the last of them. */
    requestRest(count: number): void {
      const frames = Array.from({ length: count }, nextFrame);
      if (pos !== size) throw new Error('longer than its header says');
      pending = frames.map((f) => {
        const body = readAt(fd, f.at, f.n);
        // A read that fails after an early return is never awaited: it must not crash the process.
        body.catch(() => undefined);
        return { tag: f.tag, body };
      });
    },
    async raw(): Promise<Buffer> {
      if (taken >= pending.length) throw new Error('truncated');
      const { tag, body } = pending[taken++];
      return verified(tag, await body);
    },
    async next(): Promise<unknown> {
      return v8.deserialize(await this.raw());
    },
    /** Waits for every read (the descriptor must not close under one). */
    settle: () => Promise.allSettled(pending.map((p) => p.body)),
  };
}

const isArrayOf = <T>(v: unknown, ctor: new (...a: never[]) => T): v is T => v instanceof ctor;

/**
 * Reads a snapshot made for `stamp` and sealed with `key`; anything else (missing, other index,
 * damaged, edited, another key) says why not.
 */
export async function readSnapshot(file: string, stamp: SnapshotStamp, key: Buffer): Promise<SnapshotRead> {
  let fd: number;
  let size: number;
  try {
    size = statSync(file).size;
    fd = openSync(file, 'r');
  } catch {
    return { ok: false, reason: 'no snapshot' };
  }
  const r = frameReader(fd, size, key);
  const corrupt = (why: string): SnapshotRead => ({ ok: false, reason: `corrupt: ${why}`, damaged: true });
  try {
    const magic = Buffer.alloc(MAGIC.length);
    if (readSync(fd, magic, 0, magic.length, 0) !== magic.length || !magic.equals(MAGIC))
      return { ok: false, reason: 'not a snapshot of this format' };
    const h = (await r.header()) as Partial<Header>;
    if (h?.format !== FORMAT || h.formatVersion !== FORMAT_VERSION || typeof h.id !== 'string')
      return { ok: false, reason: 'not a snapshot of this format' };
    if (h.v8 !== process.versions.v8) return { ok: false, reason: `written by another Node release (v8 ${h.v8})` };
    if (h.base !== stamp.base || h.indexVersion !== stamp.indexVersion || (h.identity ?? undefined) !== (stamp.identity ?? undefined)) {
      return { ok: false, reason: 'made for another index or other settings' };
    }
    const nDocs = h.documents ?? 0;
    const nChunks = h.chunks ?? 0;
    const groups = h.partitions ?? [];
    r.requestRest(Math.ceil(nDocs / DOCS_PER_FRAME) + Math.ceil(nChunks / CHUNKS_PER_FRAME) + 2 + groups.length * 5);
    const docs: DocRecord[] = [];
    while (docs.length < nDocs) docs.push(...((await r.next()) as DocRecord[]));
    const chunks: ChunkInfo[] = [];
    while (chunks.length < nChunks) chunks.push(...((await r.next()) as ChunkInfo[]));
    if (docs.length !== nDocs || chunks.length !== nChunks) return corrupt('counts do not match');
    const ends = await r.next();
    if (!isArrayOf(ends, Uint32Array) || ends.length !== chunks.length) return corrupt('texts do not match the chunks');
    const texts = { bytes: await r.raw(), ends };
    if (!isValidTable(texts)) return corrupt('texts do not match the chunks');
    const partitions: [string, LexicalSnapshot][] = [];
    for (const group of groups) {
      const head = (await r.next()) as Pick<LexicalSnapshot, 'k1' | 'b' | 'ids' | 'terms'>;
      const [docLen, postStart, postDocs, postTfs] = [await r.next(), await r.next(), await r.next(), await r.next()];
      if (
        !isArrayOf(docLen, Float32Array) ||
        !isArrayOf(postStart, Int32Array) ||
        !isArrayOf(postDocs, Int32Array) ||
        !isArrayOf(postTfs, Uint16Array)
      ) {
        return corrupt('unexpected arrays');
      }
      partitions.push([group, { ...head, docLen, postStart, postDocs, postTfs }]);
    }
    const info = { id: h.id, createdAt: String(h.createdAt), documents: docs.length, chunks: chunks.length, bytes: size };
    return { ok: true, snapshot: { docs, chunks, texts, partitions }, info };
  } catch (err) {
    return corrupt((err as Error).message);
  } finally {
    await r.settle();
    closeSync(fd);
  }
}

/** What a catalog lacks or holds beyond the records of what is indexed. */
export interface RecordDiff {
  /** Document ids in the records whose chunks the catalog does not hold exactly. */
  stale: string[];
  /** Document ids in the catalog that no record has. */
  extra: string[];
}

/**
 * Compares documents by id, access group, chunk ids and chunk hashes (pure: both sides are passed
 * in). The group matters as much as the text: the same text in another group is another answer
 * to another reader, and Chroma's per-group counts cannot tell two documents that swapped groups.
 */
export function diffAgainstRecords(
  catalogDocs: Iterable<Pick<DocRecord, 'id' | 'access' | 'chunkIds'>>,
  chunkHash: (chunkId: string) => string | undefined,
  records: Iterable<{ id: string; access: string; chunkIds: string[]; chunkHashes: string[] }>,
): RecordDiff {
  const held = new Map<string, Pick<DocRecord, 'access' | 'chunkIds'>>();
  for (const d of catalogDocs) held.set(d.id, d);
  const stale: string[] = [];
  const seen = new Set<string>();
  for (const rec of records) {
    seen.add(rec.id);
    const doc = held.get(rec.id);
    const ids = doc?.chunkIds;
    const same =
      ids !== undefined &&
      doc!.access === rec.access &&
      ids.length === rec.chunkIds.length &&
      ids.every((id, i) => id === rec.chunkIds[i] && chunkHash(id) === rec.chunkHashes[i]);
    if (!same) stale.push(rec.id);
  }
  const extra = [...held.keys()].filter((id) => !seen.has(id));
  return { stale, extra };
}
