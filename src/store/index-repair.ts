// Bringing Redis records back in line with what Chroma holds (the truth: the vectors are there).
// Called by physical-index.ts, under its lock, once the two stores are known to disagree.
import { chunkOrdinal, type Catalog } from '../search/catalog.ts';
import type { VectorStore } from './chroma-store.ts';
import type { RecordStore } from './records.ts';

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

/**
 * `truth` is a catalog loaded from `store`; documents found there only in part are removed from
 * both. Records of documents Chroma lacks are dropped (and their git sources' last commit cleared,
 * so the next sync lists everything); records of documents it holds are written from it.
 */
export async function repairRecords(store: Pick<VectorStore, 'delete'>, records: RecordStore, truth: Catalog): Promise<RepairReport> {
  const report: RepairReport = { dropped: [], restored: 0, rewritten: 0, partial: [] };
  // A document whose chunks are not 0..n-1 was written in part: it cannot be trusted.
  for (const d of [...truth.docs()]) {
    if (d.chunkIds.map(chunkOrdinal).every((o, i) => o === i)) continue;
    // The same chunk in two groups is a document moving between groups right now: its writer
    // finishes the move; deleting here would race with it.
    if (new Set(d.chunkIds).size !== d.chunkIds.length) continue;
    await store.delete(d.access, d.chunkIds);
    truth.removeDocument(d.id);
    report.partial.push(d.id);
  }
  const recorded = new Set<string>();
  const touchedSources = new Set<string>();
  for (const rec of await records.all()) {
    recorded.add(rec.id);
    const d = truth.doc(rec.id);
    if (!d) {
      await records.remove(rec);
      report.dropped.push({ source: rec.source, path: rec.path });
      touchedSources.add(rec.source);
      continue;
    }
    if (d.contentHash === rec.contentHash && d.source === rec.source && d.path === rec.path && d.access === rec.access && sameIds(d.chunkIds, rec.chunkIds)) continue;
    await putFromTruth(records, truth, d.id);
    report.rewritten += 1;
  }
  for (const d of truth.docs()) {
    if (recorded.has(d.id)) continue;
    await putFromTruth(records, truth, d.id);
    report.restored += 1;
  }
  for (const s of touchedSources) await records.setSourceState(s, { commit: '' });
  return report;
}

async function putFromTruth(records: RecordStore, truth: Catalog, docId: string): Promise<void> {
  const d = truth.doc(docId)!;
  const chunks = d.chunkIds.map((c) => truth.chunk(c)!);
  const { chunkIds: _ids, ...doc } = d;
  await records.put(doc, chunks);
}
