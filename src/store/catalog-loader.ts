// Fills a physical index's in-memory catalog: from its snapshot on disk when that still agrees
// with the records and with Chroma (patched when only a few documents changed while this
// process was down), else by scanning every chunk from Chroma. Saves a fresh snapshot after a
// scan or a patch, and keeps it fresh while the catalog changes.
import type { Logger } from 'pino';
import { createCatalog, type Catalog } from '../search/catalog.ts';
import type { VectorStore } from './chroma-store.ts';
import { diffAgainstRecords, readSnapshot, writeSnapshot, type SnapshotStamp } from './lexical-snapshot.ts';
import type { DocRecord } from './records.ts';

/** Past this many (or this share of) documents out of date, a full scan is cheaper than patching. */
const PATCH_MAX_DOCS = 100;
const PATCH_MAX_FRACTION = 0.2;

export interface CatalogLoadDeps {
  store: Pick<VectorStore, 'groups' | 'scan' | 'count' | 'documentChunks'>;
  /** Every record of the index (Redis); without records only chunk counts are compared. */
  records?: () => Promise<DocRecord[]>;
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
}

async function scanAll(store: CatalogLoadDeps['store']): Promise<Catalog> {
  const catalog = createCatalog();
  for (const group of await store.groups()) await store.scan(group, (records) => catalog.load(records));
  return catalog;
}

/** Chunk counts per group, Chroma against the catalog: a cheap check that they mirror each other. */
async function countsAgree(store: CatalogLoadDeps['store'], catalog: Catalog): Promise<boolean> {
  const byGroup = catalog.stats().byGroup;
  const groups = new Set([...(await store.groups()), ...Object.keys(byGroup)]);
  for (const g of groups) if ((await store.count(g)) !== (byGroup[g]?.chunks ?? 0)) return false;
  return true;
}

async function fromSnapshot(deps: CatalogLoadDeps): Promise<{ catalog: Catalog; patched: number } | undefined> {
  if (!deps.file) return undefined;
  const read = await readSnapshot(deps.file, deps.stamp);
  if (!read.ok) {
    deps.log.info({ file: deps.file, reason: read.reason }, 'lexical snapshot not used; loading from Chroma');
    return undefined;
  }
  let catalog: Catalog;
  try {
    catalog = createCatalog(read.snapshot);
  } catch (err) {
    deps.log.warn({ file: deps.file, err: (err as Error).message }, 'lexical snapshot is inconsistent; loading from Chroma');
    return undefined;
  }
  let patched = 0;
  if (deps.records) {
    let records: DocRecord[];
    try {
      records = await deps.records();
    } catch (err) {
      deps.log.warn({ err: (err as Error).message }, 'records unreadable; lexical snapshot not used');
      return undefined;
    }
    const diff = diffAgainstRecords(catalog.docs(), (id) => catalog.chunkInfo(id)?.hash, records);
    const changed = diff.stale.length + diff.extra.length;
    if (changed > Math.max(PATCH_MAX_DOCS, records.length * PATCH_MAX_FRACTION)) {
      deps.log.info({ stale: diff.stale.length, extra: diff.extra.length }, 'lexical snapshot is far behind the records; loading from Chroma');
      return undefined;
    }
    for (const id of diff.extra) catalog.removeDocument(id);
    const byId = new Map(records.map((r) => [r.id, r]));
    for (const id of diff.stale) {
      const rec = byId.get(id)!;
      catalog.removeDocument(id);
      const stored = await deps.store.documentChunks(rec.access, rec.id);
      if (stored.length) catalog.load(stored);
    }
    patched = changed;
  }
  if (!(await countsAgree(deps.store, catalog))) {
    deps.log.warn({ file: deps.file }, 'lexical snapshot does not match the chunks in Chroma; loading from Chroma');
    return undefined;
  }
  return { catalog, patched };
}

export function saveCatalogSnapshot(catalog: Catalog, deps: Pick<CatalogLoadDeps, 'file' | 'stamp' | 'log'>): void {
  if (!deps.file) return;
  const t0 = performance.now();
  try {
    const info = writeSnapshot(deps.file, deps.stamp, catalog.snapshot());
    deps.log.debug({ file: deps.file, chunks: info.chunks, bytes: info.bytes, ms: Math.round(performance.now() - t0) }, 'lexical snapshot saved');
  } catch (err) {
    // A cache that cannot be written costs the next start-up time, nothing else.
    deps.log.warn({ file: deps.file, err: (err as Error).message }, 'could not save the lexical snapshot');
  }
}

export async function loadCatalog(deps: CatalogLoadDeps): Promise<LoadedCatalog> {
  const t0 = performance.now();
  const snap = await fromSnapshot(deps);
  if (snap) {
    const from: CatalogSource = snap.patched ? 'snapshot+patch' : 'snapshot';
    if (snap.patched) {
      deps.log.info({ documents: snap.patched }, 'lexical snapshot patched with documents changed since it was saved');
      saveCatalogSnapshot(snap.catalog, deps);
    }
    return { catalog: snap.catalog, from, ms: performance.now() - t0 };
  }
  const catalog = await scanAll(deps.store);
  saveCatalogSnapshot(catalog, deps);
  return { catalog, from: 'chroma', ms: performance.now() - t0 };
}

/**
 * Saves the snapshot some time after the catalog last changed (not on every change: a save
 * serialises the whole catalog), and on demand at shutdown.
 */
export function createSnapshotKeeper(save: () => void, delayMs: number) {
  let timer: NodeJS.Timeout | undefined;
  let dirty = false;
  return {
    changed(): void {
      dirty = true;
      if (timer) return;
      timer = setTimeout(() => {
        timer = undefined;
        if (dirty) {
          dirty = false;
          save();
        }
      }, delayMs);
      timer.unref();
    },
    flush(): void {
      if (timer) clearTimeout(timer);
      timer = undefined;
      if (dirty) {
        dirty = false;
        save();
      }
    },
  };
}
