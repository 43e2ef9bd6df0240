// The lexical catalog (documents, chunk texts, BM25 postings) saved to disk, so a restarted bot
// answers at once instead of re-reading every chunk from Chroma and re-analysing it (about 20 s
// at 120k chunks). A snapshot is only a cache: it is stamped with the physical index and the
// index version it mirrors, checked against the records before use, and any doubt means the
// catalog is rebuilt from Chroma as before.
//
// Why hand-written framing over one v8.serialize call: one buffer for the whole catalog (~150 MB
// at 120k chunks) on top of the live catalog would raise peak memory; frames keep each buffer
// small. v8's serializer itself is used for the values (typed arrays and strings at native speed).
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import type { LexicalSnapshot } from '../search/bm25.ts';
import type { CatalogSnapshot, DocRecord } from '../search/catalog.ts';
import type { Chunk } from '../types.ts';

const FORMAT = 'labbot-lexical-snapshot';
const FORMAT_VERSION = 1;
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
  createdAt: string;
  documents: number;
  chunks: number;
  partitions: string[];
}

export interface SnapshotInfo {
  createdAt: string;
  documents: number;
  chunks: number;
  bytes: number;
}

export type SnapshotRead = { ok: true; snapshot: CatalogSnapshot; info: SnapshotInfo } | { ok: false; reason: string };

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
  for (const n of names) if (n.endsWith('.lexical') && n !== keep) rmSync(path.join(dir, n), { force: true });
}

function writeFrame(fd: number, value: unknown): number {
  const body = v8.serialize(value);
  const len = Buffer.alloc(4);
  len.writeUInt32LE(body.length);
  writeSync(fd, len);
  writeSync(fd, body);
  return 4 + body.length;
}

/** Writes the snapshot atomically: a reader sees the old file or the new one, never a torn one. */
export function writeSnapshot(file: string, stamp: SnapshotStamp, snap: CatalogSnapshot, now = new Date()): SnapshotInfo {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  const header: Header = {
    format: FORMAT,
    formatVersion: FORMAT_VERSION,
    v8: process.versions.v8,
    ...stamp,
    createdAt: now.toISOString(),
    documents: snap.docs.length,
    chunks: snap.chunks.length,
    partitions: snap.partitions.map(([g]) => g),
  };
  const fd = openSync(tmp, 'w');
  let bytes = 0;
  try {
    bytes += writeFrame(fd, header);
    for (let i = 0; i < snap.docs.length; i += DOCS_PER_FRAME) bytes += writeFrame(fd, snap.docs.slice(i, i + DOCS_PER_FRAME));
    for (let i = 0; i < snap.chunks.length; i += CHUNKS_PER_FRAME) bytes += writeFrame(fd, snap.chunks.slice(i, i + CHUNKS_PER_FRAME));
    for (const [, p] of snap.partitions) {
      bytes += writeFrame(fd, { k1: p.k1, b: p.b, ids: p.ids, terms: p.terms });
      for (const a of [p.docLen, p.postStart, p.postDocs, p.postTfs]) bytes += writeFrame(fd, a);
    }
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeSync(fd);
  renameSync(tmp, file);
  return { createdAt: header.createdAt, documents: header.documents, chunks: header.chunks, bytes };
}

function frameReader(fd: number, size: number) {
  let pos = 0;
  const lenBuf = Buffer.alloc(4);
  return {
    next(): unknown {
      if (pos + 4 > size) throw new Error('truncated');
      readSync(fd, lenBuf, 0, 4, pos);
      const n = lenBuf.readUInt32LE(0);
      if (pos + 4 + n > size) throw new Error('truncated');
      const body = Buffer.allocUnsafe(n);
      let got = 0;
      while (got < n) got += readSync(fd, body, got, n - got, pos + 4 + got);
      pos += 4 + n;
      return v8.deserialize(body);
    },
    get done() {
      return pos === size;
    },
  };
}

const isArrayOf = <T>(v: unknown, ctor: new (...a: never[]) => T): v is T => v instanceof ctor;

/** Reads a snapshot made for `stamp`; anything else (missing, other index, corrupt) says why not. */
export function readSnapshot(file: string, stamp: SnapshotStamp): SnapshotRead {
  let fd: number;
  let size: number;
  try {
    size = statSync(file).size;
    fd = openSync(file, 'r');
  } catch {
    return { ok: false, reason: 'no snapshot' };
  }
  try {
    const r = frameReader(fd, size);
    const h = r.next() as Partial<Header>;
    if (h?.format !== FORMAT || h.formatVersion !== FORMAT_VERSION) return { ok: false, reason: 'not a snapshot of this format' };
    if (h.v8 !== process.versions.v8) return { ok: false, reason: `written by another Node release (v8 ${h.v8})` };
    if (h.base !== stamp.base || h.indexVersion !== stamp.indexVersion || (h.identity ?? undefined) !== (stamp.identity ?? undefined)) {
      return { ok: false, reason: 'made for another index or other settings' };
    }
    const docs: DocRecord[] = [];
    while (docs.length < h.documents!) docs.push(...(r.next() as DocRecord[]));
    const chunks: Chunk[] = [];
    while (chunks.length < h.chunks!) chunks.push(...(r.next() as Chunk[]));
    const partitions: [string, LexicalSnapshot][] = [];
    for (const group of h.partitions ?? []) {
      const head = r.next() as Pick<LexicalSnapshot, 'k1' | 'b' | 'ids' | 'terms'>;
      const [docLen, postStart, postDocs, postTfs] = [r.next(), r.next(), r.next(), r.next()];
      if (!isArrayOf(docLen, Float32Array) || !isArrayOf(postStart, Int32Array) || !isArrayOf(postDocs, Int32Array) || !isArrayOf(postTfs, Uint16Array)) {
        return { ok: false, reason: 'corrupt: unexpected arrays' };
      }
      partitions.push([group, { ...head, docLen, postStart, postDocs, postTfs }]);
    }
    if (docs.length !== h.documents || chunks.length !== h.chunks || !r.done) return { ok: false, reason: 'corrupt: counts do not match' };
    return { ok: true, snapshot: { docs, chunks, partitions }, info: { createdAt: h.createdAt!, documents: docs.length, chunks: chunks.length, bytes: size } };
  } catch (err) {
    return { ok: false, reason: `corrupt: ${(err as Error).message}` };
  } finally {
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

/** Compares documents by id, chunk ids and chunk hashes (pure: both sides are passed in). */
export function diffAgainstRecords(
  catalogDocs: Iterable<Pick<DocRecord, 'id' | 'chunkIds'>>,
  chunkHash: (chunkId: string) => string | undefined,
  records: Iterable<{ id: string; chunkIds: string[]; chunkHashes: string[] }>,
): RecordDiff {
  const held = new Map<string, string[]>();
  for (const d of catalogDocs) held.set(d.id, d.chunkIds);
  const stale: string[] = [];
  const seen = new Set<string>();
  for (const rec of records) {
    seen.add(rec.id);
    const ids = held.get(rec.id);
    const same =
      ids !== undefined &&
      ids.length === rec.chunkIds.length &&
      ids.every((id, i) => id === rec.chunkIds[i] && chunkHash(id) === rec.chunkHashes[i]);
    if (!same) stale.push(rec.id);
  }
  const extra = [...held.keys()].filter((id) => !seen.has(id));
  return { stale, extra };
}
