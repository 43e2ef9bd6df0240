// Bringing Redis records back in line with what Chroma holds (the truth: the vectors are there).
// Called by physical-index.ts, under its lock, once the two stores are known to disagree.
import { chunkOrdinal, createCatalog, type Catalog } from '../search/catalog.ts';
import type { VectorStore } from '../store/chroma-store.ts';
import type { RecordStore } from '../store/records.ts';

export interface RepairReport {
  /** Records dropped because Chroma does not hold their document (it is indexed again next sync). */
  dropped: { source: string; path: string }[];
  /** Records written from Chroma's metadata (no re-embedding). */
  restored: number;
  /** Records rewritten because they disagreed with Chroma (hash, chunks, path or group). */
  rewritten: number;
  /** Documents Chroma held only in part: their chunks were deleted and their records dropped. */
  partial: string[];
}

const sameIds = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
const whole = (chunkIds: string[]) => chunkIds.map(chunkOrdinal).every((o, i) => o === i);

type RepairStore = Pick<VectorStore, 'delete' | 'documentChunks'>;

/**
 * What Chroma holds of one document now. `truth` was read before the repair started, and writers
 * (a queue worker, another bot's ingest) may have stored or replaced the document since: every
 * action is decided on a fresh read, so a repair never drops or rewinds a record a writer has
 * just made good.
 */
async function freshDoc(store: RepairStore, group: string, docId: string): Promise<Catalog | undefined> {
  const stored = await store.documentChunks(group, docId);
  if (!stored.length) return undefined;
  const c = createCatalog();
  c.load(stored, group);
  return c.doc(docId) ? c : undefined;
}

/**
 * `truth` is a catalog loaded from `store`; documents found there only in part are removed from
 * both. Records of documents Chroma lacks are dropped (and their git sources' last commit cleared,
 * so the next sync lists everything); records of documents it holds are written from it.
 */
export async function repairRecords(store: RepairStore, records: RecordStore, truth: Catalog): Promise<RepairReport> {
  const report: RepairReport = { dropped: [], restored: 0, rewritten: 0, partial: [] };
  // A document whose chunks are not 0..n-1 was written in part: it cannot be trusted.
  for (const d of [...truth.docs()]) {
    if (whole(d.chunkIds)) continue;
    // The same chunk in two groups is a document moving between groups right now: its writer
    // finishes the move; deleting here would race with it.
    if (new Set(d.chunkIds).size !== d.chunkIds.length) continue;
    const now = await freshDoc(store, d.access, d.id);
    truth.removeDocument(d.id);
    if (now && whole(now.doc(d.id)!.chunkIds)) {
      // Its writer finished meanwhile.
      truth.load(await store.documentChunks(d.access, d.id), d.access);
      continue;
    }
    if (now) await store.delete(d.access, now.doc(d.id)!.chunkIds);
    report.partial.push(d.id);
  }
  const recorded = new Set<string>();
  const touchedSources = new Set<string>();
  for (const rec of await records.all()) {
    recorded.add(rec.id);
    const d = truth.doc(rec.id);
    if (
      d &&
      d.contentHash === rec.contentHash &&
      d.source === rec.source &&
      d.path === rec.path &&
      d.access === rec.access &&
      sameIds(d.chunkIds, rec.chunkIds)
    )
      continue;
    const now =
      (await freshDoc(store, rec.access, rec.id)) ?? (d && d.access !== rec.access ? await freshDoc(store, d.access, rec.id) : undefined);
    if (!now) {
      await records.remove(rec);
      report.dropped.push({ source: rec.source, path: rec.path });
      touchedSources.add(rec.source);
      continue;
    }
    const n = now.doc(rec.id)!;
    if (!whole(n.chunkIds)) continue; // being written right now: its writer records it
    if (
      n.contentHash === rec.contentHash &&
      n.source === rec.source &&
      n.path === rec.path &&
      n.access === rec.access &&
      sameIds(n.chunkIds, rec.chunkIds)
    )
      continue;
    await putFrom(records, now, rec.id);
    report.rewritten += 1;
  }
  for (const d of [...truth.docs()]) {
    if (recorded.has(d.id) || (await records.byId(d.id))) continue;
    const now = await freshDoc(store, d.access, d.id);
    if (!now || !whole(now.doc(d.id)!.chunkIds)) continue;
    await putFrom(records, now, d.id);
    report.restored += 1;
  }
  for (const s of touchedSources) await records.setSourceState(s, { commit: '' });
  return report;
}

async function putFrom(records: RecordStore, source: Catalog, docId: string): Promise<void> {
  const d = source.doc(docId)!;
  const chunks = d.chunkIds.map((c) => source.chunk(c)!);
  const { chunkIds: _ids, ...doc } = d;
  await records.put(doc, chunks);
}
