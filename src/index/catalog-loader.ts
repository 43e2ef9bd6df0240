// Fills a physical index's in-memory catalog: from its snapshot on disk when its seal verifies
// and it still agrees with the records (every document's chunks, their hashes and its access
// group) and with Chroma (patched when only a few documents changed while this process was
// down), else by scanning every chunk from Chroma. Saves a fresh snapshot after a scan or a
// patch, and keeps it fresh while the catalog changes.
import type { Logger } from 'pino';
import { createCatalog, type Catalog } from '../search/catalog.ts';
import type { VectorStore } from '../store/chroma-store.ts';
import {
  diffAgainstRecords,
  noteRecordsChecked,
  readSnapshot,
  recordsCheckedAt,
  writeSnapshot,
  type SnapshotInfo,
  type SnapshotStamp,
} from './lexical-snapshot.ts';
import type { DocRecord, RecordStore } from '../store/records.ts';
import { CHECKSUM_ONLY_KEY } from './snapshot-seal.ts';

/** Past this many (or this share of) documents out of date, a full scan is cheaper than patching. */
const PATCH_MAX_DOCS = 100;
const PATCH_MAX_FRACTION = 0.2;

export interface CatalogLoadDeps {
  store: Pick<VectorStore, 'groups' | 'scan' | 'count' | 'documentChunks'>;
  /** The index's records (Redis); without records only chunk counts are compared. */
  records?: Pick<RecordStore, 'revision' | 'allAtRevision' | 'snapshotKey'>;
  /** Where the snapshot lives; none: always scan, never save. */
  file?: string;
  stamp: SnapshotStamp;
  log: Logger;
}

export type CatalogSource = 'snapshot' | 'snapshot+patch' | 'chroma';

export interface LoadedCatalog {
  catalog: Catalog;
  from: CatalogSource;
  ms: number;
  /**
   * How a snapshot was checked against the records: their revision had not moved since it was
   * found equal to them (groups included; the note saying so is sealed and names this very
   * file, whose every frame verified), or every record was compared.
   */
  recordsCheck?: 'revision' | 'full';
  /** Chunks per group in the records, when this load found the catalog equal to them. */
  recordChunks?: Map<string, number>;
}

/** Chunks per group of records, or of a catalog's documents. */
function chunksByGroup(docs: Iterable<{ access: string; chunkIds: string[] }>): Map<string, number> {
  const out = new Map<string, number>();
  for (const d of docs) out.set(d.access, (out.get(d.access) ?? 0) + d.chunkIds.length);
  return out;
}

const diffWith = (catalog: Catalog, records: DocRecord[]) =>
  diffAgainstRecords(catalog.docs(), (id) => catalog.chunkInfo(id)?.hash, records);
const equalToRecords = (catalog: Catalog, records: DocRecord[]): boolean => {
  const diff = diffWith(catalog, records);
  return diff.stale.length + diff.extra.length === 0;
};

async function scanAll(store: CatalogLoadDeps['store']): Promise<Catalog> {
  const catalog = createCatalog();
  for (const group of await store.groups()) await store.scan(group, (records) => catalog.load(records, group));
  return catalog;
}

/** Chunk counts per group, Chroma against the catalog: a cheap check that they mirror each other. */
async function countsAgree(store: CatalogLoadDeps['store'], catalog: Catalog): Promise<boolean> {
  const byGroup = catalog.stats().byGroup;
  const groups = new Set([...(await store.groups()), ...Object.keys(byGroup)]);
  for (const g of groups) if ((await store.count(g)) !== (byGroup[g]?.chunks ?? 0)) return false;
  return true;
}

interface FromSnapshot {
  catalog: Catalog;
  patched: number;
  recordsCheck?: 'revision' | 'full';
  recordChunks?: Map<string, number>;
}

/** The key sealing this index's snapshots: the records' secret, or checksums only without records. */
const sealKey = (deps: Pick<CatalogLoadDeps, 'records'>): Promise<Buffer> =>
  deps.records?.snapshotKey() ?? Promise.resolve(CHECKSUM_ONLY_KEY);

async function fromSnapshot(deps: CatalogLoadDeps): Promise<FromSnapshot | undefined> {
  if (!deps.file) return undefined;
  let key: Buffer;
  try {
    key = await sealKey(deps);
  } catch (err) {
    deps.log.warn({ err: (err as Error).message }, 'records unreadable; lexical snapshot not used');
    return undefined;
  }
  const read = await readSnapshot(deps.file, deps.stamp, key);
  if (!read.ok) {
    // A snapshot that is there but fails its checks is worth an admin's attention: damage, or
    // someone editing the data dir.
    if (read.damaged)
      deps.log.warn({ file: deps.file, reason: read.reason }, 'lexical snapshot failed its checks and is not used; loading from Chroma');
    else deps.log.info({ file: deps.file, reason: read.reason }, 'lexical snapshot not used; loading from Chroma');
    return undefined;
  }
  let catalog: Catalog;
  try {
    catalog = createCatalog(read.snapshot);
  } catch (err) {
    deps.log.warn({ file: deps.file, err: (err as Error).message }, 'lexical snapshot is inconsistent; loading from Chroma');
    return undefined;
  }
  const out: FromSnapshot = { catalog, patched: 0 };
  if (deps.records) {
    try {
      const checkedAt = recordsCheckedAt(deps.file, read.info, key);
      if (checkedAt !== undefined && checkedAt === (await deps.records.revision())) {
        // No record was written or removed since this snapshot was found equal to the records.
        return (await countsAgree(deps.store, catalog))
          ? { ...out, recordsCheck: 'revision', recordChunks: chunksByGroup(catalog.docs()) }
          : chromaDisagrees(deps);
      }
      const { records, revision } = await deps.records.allAtRevision();
      const diff = diffWith(catalog, records);
      const changed = diff.stale.length + diff.extra.length;
      if (changed > Math.max(PATCH_MAX_DOCS, records.length * PATCH_MAX_FRACTION)) {
        deps.log.info(
          { stale: diff.stale.length, extra: diff.extra.length },
          'lexical snapshot is far behind the records; loading from Chroma',
        );
        return undefined;
      }
      for (const id of diff.extra) catalog.removeDocument(id);
      const byId = new Map(records.map((r) => [r.id, r]));
      for (const id of diff.stale) {
        const rec = byId.get(id)!;
        catalog.removeDocument(id);
        const stored = await deps.store.documentChunks(rec.access, rec.id);
        if (stored.length) catalog.load(stored, rec.access);
      }
      out.patched = changed;
      out.recordsCheck = 'full';
      // A patch reads Chroma, which may hold other chunks than the records say (a crash mid-write).
      if (!changed || equalToRecords(catalog, records)) out.recordChunks = chunksByGroup(records);
      // Found equal without a patch: noted, so the next start needs not compare every record.
      if (!changed && revision !== undefined) noteChecked(deps, read.info, revision, key);
    } catch (err) {
      deps.log.warn({ err: (err as Error).message }, 'records unreadable; lexical snapshot not used');
      return undefined;
    }
  }
  return (await countsAgree(deps.store, catalog)) ? out : chromaDisagrees(deps);
}

/** Only an optimisation: a note that cannot be written costs the next start a full check. */
function noteChecked(deps: Pick<CatalogLoadDeps, 'file' | 'log'>, info: SnapshotInfo, revision: string | undefined, key: Buffer): void {
  try {
    noteRecordsChecked(deps.file!, info, revision, key);
  } catch (err) {
    deps.log.warn({ file: deps.file, err: (err as Error).message }, 'could not note the records check of the lexical snapshot');
  }
}

function chromaDisagrees(deps: CatalogLoadDeps): undefined {
  deps.log.warn({ file: deps.file }, 'lexical snapshot does not match the chunks in Chroma; loading from Chroma');
  return undefined;
}

/**
 * Writes the catalog's snapshot. With records, notes beside it the records revision it equals,
 * when it does: the records are read first, then compared and copied out with no await between,
 * so the catalog compared is the catalog written. Returns the records' chunks per group when
 * they equal the catalog (what the deep check at opening would read them again for).
 */
export async function saveCatalogSnapshot(
  catalog: Catalog,
  deps: Pick<CatalogLoadDeps, 'file' | 'stamp' | 'log' | 'records'>,
): Promise<Map<string, number> | undefined> {
  if (!deps.file) return undefined;
  let key: Buffer;
  try {
    key = await sealKey(deps);
  } catch (err) {
    // Unsealed, no load would accept it.
    deps.log.warn({ file: deps.file, err: (err as Error).message }, 'records unreadable; the lexical snapshot is not saved');
    return undefined;
  }
  let read: { records: DocRecord[]; revision: string | undefined } | undefined;
  try {
    read = await deps.records?.allAtRevision();
  } catch (err) {
    deps.log.warn({ err: (err as Error).message }, 'records unreadable; the lexical snapshot is saved without a records check');
  }
  const t0 = performance.now();
  try {
    const revision = read?.revision !== undefined && equalToRecords(catalog, read.records) ? read.revision : undefined;
    const info = await writeSnapshot(deps.file, deps.stamp, catalog.snapshot(), key);
    noteChecked(deps, info, revision, key);
    deps.log.debug(
      {
        file: deps.file,
        chunks: info.chunks,
        bytes: info.bytes,
        recordsChecked: revision !== undefined,
        ms: Math.round(performance.now() - t0),
      },
      'lexical snapshot saved',
    );
    return revision !== undefined && read ? chunksByGroup(read.records) : undefined;
  } catch (err) {
    // A cache that cannot be written costs the next start-up time, nothing else.
    deps.log.warn({ file: deps.file, err: (err as Error).message }, 'could not save the lexical snapshot');
    return undefined;
  }
}

export async function loadCatalog(deps: CatalogLoadDeps): Promise<LoadedCatalog> {
  const t0 = performance.now();
  const snap = await fromSnapshot(deps);
  if (snap) {
    const from: CatalogSource = snap.patched ? 'snapshot+patch' : 'snapshot';
    if (snap.patched) {
      deps.log.info({ documents: snap.patched }, 'lexical snapshot patched with documents changed since it was saved');
      await saveCatalogSnapshot(snap.catalog, deps);
    }
    return { catalog: snap.catalog, from, ms: performance.now() - t0, recordsCheck: snap.recordsCheck, recordChunks: snap.recordChunks };
  }
  const catalog = await scanAll(deps.store);
  const recordChunks = await saveCatalogSnapshot(catalog, deps);
  return { catalog, from: 'chroma', ms: performance.now() - t0, recordChunks };
}

/**
 * Saves the snapshot some time after the catalog last changed (not on every change: a save
 * serialises the whole catalog), and on demand at shutdown.
 */
export function createSnapshotKeeper(save: () => Promise<void>, delayMs: number) {
  let timer: NodeJS.Timeout | undefined;
  let dirty = false;
  // One save at a time; a flush waits for one under way (it reads the records before writing).
  let saving: Promise<void> = Promise.resolve();
  const run = (): Promise<void> => {
    dirty = false;
    saving = saving.then(save, save);
    return saving;
  };
  return {
    changed(): void {
      dirty = true;
      if (timer) return;
      timer = setTimeout(() => {
        timer = undefined;
        if (dirty) void run();
      }, delayMs);
      timer.unref();
    },
    async flush(): Promise<void> {
      if (timer) clearTimeout(timer);
      timer = undefined;
      if (dirty) await run();
      else await saving;
    },
  };
}
