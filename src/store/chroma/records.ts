// Reading and writing chunk records in one group's collection.
import type { Collection, Metadata } from 'chromadb';
import type { ChunkMetadata, StoredRecord, VectorRecord } from '../../types.ts';
import type { Collections } from './collections.ts';

export type { StoredRecord, VectorRecord };

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

/** Records from a `get` result; the text is our metadata field, or the document in older collections. */
function storedRecords(res: { ids: string[]; metadatas: (Metadata | null)[]; documents: (string | null)[] }): StoredRecord[] {
  return res.ids.map((id, i) => {
    const metadata = (res.metadatas[i] ?? {}) as ChunkMetadata;
    const text = metadata[TEXT_KEY];
    return { id, text: typeof text === 'string' ? text : (res.documents[i] ?? ''), metadata };
  });
}

export async function upsertRecords(cols: Collections, group: string, records: VectorRecord[]): Promise<void> {
  if (records.length === 0) return;
  const col = (await cols.get(group, true))!;
  for (let i = 0; i < records.length; i += MAX_UPSERT) {
    const batch = records.slice(i, i + MAX_UPSERT);
    await col.upsert({
      ids: batch.map((r) => r.id),
      embeddings: batch.map((r) => r.embedding),
      metadatas: batch.map((r) => ({ ...r.metadata, [TEXT_KEY]: r.text }) as Metadata),
    });
  }
}

export async function deleteRecords(cols: Collections, group: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const col = await cols.get(group, false, false);
  if (!col) return;
  for (let i = 0; i < ids.length; i += MAX_UPSERT) await col.delete({ ids: ids.slice(i, i + MAX_UPSERT) });
}

export async function queryNearest(
  cols: Collections,
  group: string,
  vector: number[],
  n: number,
): Promise<{ id: string; score: number }[]> {
  const col = await cols.get(group, false, 'query');
  if (!col) return [];
  const res = await col.query({ queryEmbeddings: [vector], nResults: n, include: ['distances'] });
  const ids = res.ids[0] ?? [];
  const dists = res.distances[0] ?? [];
  // Cosine distance -> similarity, so higher is better like every other score here.
  return ids.map((id, i) => ({ id, score: 1 - (dists[i] ?? 1) }));
}

export async function embeddingsOf(cols: Collections, group: string, ids: string[]): Promise<Map<string, number[]>> {
  const out = new Map<string, number[]>();
  const col = await cols.get(group, false);
  if (!col || ids.length === 0) return out;
  for (let i = 0; i < ids.length; i += MAX_UPSERT) {
    const res = await col.get({ ids: ids.slice(i, i + MAX_UPSERT), include: ['embeddings'] });
    res.ids.forEach((id, j) => {
      const e = res.embeddings[j];
      if (e) out.set(id, Array.from(e));
    });
  }
  return out;
}

async function scanCollection(col: Collection, onBatch: (records: StoredRecord[]) => void, batchSize: number): Promise<void> {
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
}

export async function scanRecords(
  cols: Collections,
  group: string,
  onBatch: (records: StoredRecord[]) => void,
  batchSize = 2000,
): Promise<void> {
  const col = await cols.get(group, false, false);
  if (col) await scanCollection(col, onBatch, batchSize);
}

export async function documentChunks(cols: Collections, group: string, docId: string): Promise<StoredRecord[]> {
  const col = await cols.get(group, false, false);
  if (!col) return [];
  const out: StoredRecord[] = [];
  for (let offset = 0; ; offset += MAX_UPSERT) {
    const res = await col
      .get({ where: { doc_id: docId }, limit: MAX_UPSERT, offset, include: ['documents', 'metadatas'] })
      .catch((err: Error) => {
        // The collection was dropped since it was cached (an emptied Chroma): it holds nothing.
        if (err.name !== 'ChromaNotFoundError') throw err;
        cols.forget(group);
        return undefined;
      });
    if (!res) return out;
    out.push(...storedRecords(res));
    if (res.ids.length < MAX_UPSERT) return out;
  }
}
