// A physical index's Chroma collections copied out and back through Chroma's HTTP API: each
// collection's metadata (labbot's index id, version and embedding settings), its HNSW settings,
// and every record with its vector, metadata and document. Chosen over copying Chroma's files:
// under compose they are in another container; the server keeps part of its HNSW index in memory
// and writes it out on its own schedule, so files copied under a running server need not agree
// with its SQLite log; and the API's records load into any server of this API version. The
// backup reads while indexing is paused (quiesce.ts), so pages taken by offset do not shift.
import type { ChromaClient, Collection, Metadata } from 'chromadb';
import { GROUP_SEP } from '../store/chroma-store.ts';
import { collectionHeader, decodeVectors, encodeVectors, recordBatch, type CollectionHeader, type RecordBatch } from './backup-format.ts';

const PAGE = 1000;
const HNSW_KEYS = ['space', 'ef_construction', 'ef_search', 'max_neighbors', 'resize_factor', 'sync_threshold'] as const;

/** The collections of physical index `base` (one per access group), by name. */
export async function collectionsOf(client: ChromaClient, base: string): Promise<Collection[]> {
  const out: Collection[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await client.listCollections({ limit: 100, offset });
    out.push(...page.filter((c) => c.name.startsWith(`${base}${GROUP_SEP}`)));
    if (page.length < 100) return out.sort((a, b) => a.name.localeCompare(b.name));
  }
}

export const groupOf = (base: string, name: string) => name.slice(base.length + GROUP_SEP.length);

function hnswOf(col: Collection): Record<string, string | number> | undefined {
  const hnsw = (col.configuration as { hnsw?: Record<string, unknown> | null } | undefined)?.hnsw;
  if (!hnsw) return undefined;
  const out: Record<string, string | number> = {};
  for (const k of HNSW_KEYS) if (typeof hnsw[k] === 'string' || typeof hnsw[k] === 'number') out[k] = hnsw[k] as string | number;
  return out;
}

/** The header line, then every record in pages. */
export async function* exportCollection(
  col: Collection,
  onRecords?: (n: number) => void,
  aborted?: () => void,
): AsyncIterable<CollectionHeader | RecordBatch> {
  const records = await col.count();
  yield { name: col.name, metadata: (col.metadata ?? null) as CollectionHeader['metadata'], hnsw: hnswOf(col), records };
  for (let offset = 0; ; offset += PAGE) {
    aborted?.();
    const res = await col.get({ limit: PAGE, offset, include: ['embeddings', 'metadatas', 'documents'] });
    if (res.ids.length === 0) return;
    const vectors = res.embeddings.map((e, i) => {
      if (!e) throw new Error(`Chroma returned record ${res.ids[i]} of ${col.name} without its vector`);
      return e;
    });
    yield {
      ids: res.ids,
      ...encodeVectors(vectors),
      metadatas: res.metadatas.map((m) => (m ?? null) as RecordBatch['metadatas'][number]),
      documents: res.documents.map((d) => d ?? null),
    };
    onRecords?.(res.ids.length);
    if (res.ids.length < PAGE) return;
  }
}

/** Creates the collection of a backup file (it must not exist) and adds its records; returns how many. */
export async function importCollection(
  client: ChromaClient,
  lines: AsyncIterable<unknown>,
  onRecords?: (n: number) => void,
): Promise<{ name: string; records: number }> {
  let header: CollectionHeader | undefined;
  let col: Collection | undefined;
  let added = 0;
  for await (const raw of lines) {
    if (!header) {
      const h = collectionHeader.safeParse(raw);
      if (!h.success) throw new Error(`a collection file does not start with its header: ${h.error.issues[0]?.message}`);
      header = h.data;
      col = await client.createCollection({
        name: header.name,
        embeddingFunction: null,
        metadata: header.metadata ?? undefined,
        configuration: header.hnsw ? { hnsw: header.hnsw } : undefined,
      });
      continue;
    }
    const b = recordBatch.safeParse(raw);
    if (!b.success) throw new Error(`${header.name}: a line that is not a record batch: ${b.error.issues[0]?.message}`);
    const { ids, dim, vectors, metadatas, documents } = b.data;
    if (metadatas.length !== ids.length || documents.length !== ids.length)
      throw new Error(`${header.name}: a record batch whose fields differ in length`);
    const embeddings = decodeVectors(dim, vectors, ids.length);
    // Chroma takes documents for all records of a call or for none: older collections held the
    // text as documents, newer ones in metadata.
    for (const withDoc of [true, false]) {
      const at = ids.map((_, i) => i).filter((i) => (documents[i] !== null) === withDoc);
      if (!at.length) continue;
      await col!.add({
        ids: at.map((i) => ids[i]),
        embeddings: at.map((i) => embeddings[i]),
        metadatas: at.map((i) => (metadatas[i] ?? {}) as Metadata),
        ...(withDoc ? { documents: at.map((i) => documents[i]!) } : {}),
      });
    }
    added += ids.length;
    onRecords?.(ids.length);
  }
  if (!header || !col) throw new Error('an empty collection file');
  const count = await col.count();
  if (count !== header.records || added !== header.records)
    throw new Error(`${header.name}: the backup lists ${header.records} records, ${added} were read and Chroma holds ${count}`);
  return { name: header.name, records: count };
}
