// In-memory view of what is indexed: document records (with content hashes), chunk texts, and a
// BM25 index per access group, mirroring the Chroma collections. Rebuilt from Chroma at start-up
// and kept current by the ingest pipeline, so lexical search and passage lookup need no I/O.
import { fromChunkMetadata } from '../chunk-metadata.ts';
import type { Chunk, ChunkInfo, Kind, LabDocument, Passage, StoredRecord } from '../types.ts';
import { createLexicalIndex, type LexicalSnapshot } from './bm25.ts';
import { createSourceIndex, type SourceIndex } from './source-index.ts';
import type { SourceNames } from './source-query.ts';
import { packTexts, tableSize, textAt, type TextRef, type TextTable } from './text-table.ts';

type LexicalIndex = ReturnType<typeof createLexicalIndex>;

/** A catalog's whole content as plain values (documents, chunks, BM25 partitions) for a snapshot. */
export interface CatalogSnapshot {
  docs: DocRecord[];
  /** Chunks without their texts, which are `texts` in the same order. */
  chunks: ChunkInfo[];
  texts: TextTable;
  partitions: [group: string, index: LexicalSnapshot][];
}

export interface DocRecord extends LabDocument {
  /** Chunk ids in document order. */
  chunkIds: string[];
}

export interface Hit {
  id: string;
  score: number;
}

export interface CatalogStats {
  documents: number;
  chunks: number;
  bySource: Record<string, { documents: number; chunks: number; byKind: Partial<Record<Kind, { documents: number; chunks: number }>> }>;
  byGroup: Record<string, { documents: number; chunks: number }>;
}

export interface Catalog {
  putDocument(doc: LabDocument, chunks: Chunk[]): void;
  removeDocument(docId: string): DocRecord | undefined;
  doc(docId: string): DocRecord | undefined;
  docs(): IterableIterator<DocRecord>;
  /** The document indexed from this source path, if any (ids may come from front matter). */
  docAtPath(source: string, path: string): DocRecord | undefined;
  /** A chunk with its text (decoded on each call: use chunkInfo when the text is not needed). */
  chunk(chunkId: string): Chunk | undefined;
  /** A chunk's metadata (document, hash, place), without decoding its text. */
  chunkInfo(chunkId: string): ChunkInfo | undefined;
  /** What search matches for a chunk: its text plus its document's subject keywords. */
  searchText(chunkId: string): string | undefined;
  passage(chunkId: string, score: number): Passage | undefined;
  lexicalSearch(groups: string[], query: string, n: number): Hit[];
  idsWithTerm(groups: string[], term: string, limit: number): string[];
  /** `idsWithTerm(groups, term, limit).length`, without listing them. */
  countWithTerm(groups: string[], term: string, limit: number): number;
  /**
   * BM25 idf of an analysed term: the highest over the given groups' partitions (rare anywhere
   * searched is informative), or over all partitions without groups. Statistics of groups the
   * caller may not read must never shape its scores.
   */
  idf(term: string, groups?: string[]): number;
  /** Chunks indexed, over all partitions. */
  readonly chunkCount: number;
  /** Chunks indexed in the given groups' partitions. */
  chunkCountIn(groups: string[]): number;
  /** The access group of a chunk's document, if the chunk is indexed. */
  groupOf(chunkId: string): string | undefined;
  /** The documents' author, journal and year names by group, for questions that name their source. */
  readonly sources: SourceNames;
  /** Loads records scanned from Chroma (chunks of one document may arrive in several batches). */
  /** Adds records read from one group's collection (their group when their metadata names none). */
  load(records: StoredRecord[], group: string): void;
  stats(): CatalogStats;
  /** Copies the content out; `createCatalog(snapshot)` gives a catalog that answers the same. */
  snapshot(): CatalogSnapshot;
}

/** Subject terms are searched with every chunk of their document: a short extra line, never shown. */
const withKeywords = (text: string, doc: Pick<LabDocument, 'keywords'> | undefined): string =>
  doc?.keywords?.length ? `${text}\n${doc.keywords.join('; ')}` : text;

/** A chunk as held: texts loaded from a snapshot stay bytes in its table until asked for. */
interface Held {
  info: ChunkInfo;
  text: string | TextRef;
}

/** The maps a catalog is made of; every helper below reads or fills these. */
interface CatalogState {
  partitions: Map<string, LexicalIndex>;
  docs: Map<string, DocRecord>;
  /** Document id by `pathKey(source, path)`. */
  byPath: Map<string, string>;
  chunks: Map<string, Held>;
  /** The documents' source names, added and removed with them (in the order of `docs`). */
  sources: SourceIndex;
}

const pathKey = (source: string, path: string) => `${source}\u0000${path}`;
const textOf = (h: Held): string => (typeof h.text === 'string' ? h.text : textAt(h.text.table, h.text.index));
const chunkOf = (h: Held): Chunk => ({ ...h.info, text: textOf(h) });

export function createCatalog(from?: CatalogSnapshot): Catalog {
  const state: CatalogState = {
    partitions: new Map(),
    docs: new Map(),
    byPath: new Map(),
    chunks: new Map(),
    sources: createSourceIndex(),
  };
  const { partitions, docs, byPath, chunks, sources } = state;
  if (from) restoreSnapshot(state, from);
  const partition = (group: string): LexicalIndex => {
    let p = partitions.get(group);
    if (!p) {
      p = createLexicalIndex();
      partitions.set(group, p);
    }
    return p;
  };

  function removeDocument(docId: string): DocRecord | undefined {
    const doc = docs.get(docId);
    if (!doc) return undefined;
    const index = partitions.get(doc.access);
    for (const id of doc.chunkIds) {
      chunks.delete(id);
      index?.remove(id);
    }
    docs.delete(docId);
    sources.remove(docId);
    if (byPath.get(pathKey(doc.source, doc.path)) === docId) byPath.delete(pathKey(doc.source, doc.path));
    return doc;
  }

  function putDocument(doc: LabDocument, docChunks: Chunk[]): void {
    removeDocument(doc.id);
    const index = partition(doc.access);
    for (const { text, ...info } of docChunks) {
      chunks.set(info.id, { info, text });
      index.add(info.id, withKeywords(text, doc));
    }
    const record = { ...doc, chunkIds: docChunks.map((c) => c.id) };
    docs.set(doc.id, record);
    sources.add(record);
    byPath.set(pathKey(doc.source, doc.path), doc.id);
  }

  return {
    putDocument,
    removeDocument,
    doc: (id) => docs.get(id),
    docs: () => docs.values(),
    docAtPath: (source, path) => {
      const id = byPath.get(pathKey(source, path));
      return id ? docs.get(id) : undefined;
    },
    chunk(id) {
      const h = chunks.get(id);
      return h && chunkOf(h);
    },
    chunkInfo: (id) => chunks.get(id)?.info,
    searchText(id) {
      const h = chunks.get(id);
      return h && withKeywords(textOf(h), docs.get(h.info.docId));
    },
    passage(chunkId, score) {
      const h = chunks.get(chunkId);
      const d = h && docs.get(h.info.docId);
      return h && d ? passageOf(chunkId, score, h, d) : undefined;
    },
    ...partitionSearch(partitions),
    get chunkCount() {
      return chunks.size;
    },
    groupOf(chunkId) {
      const h = chunks.get(chunkId);
      return h && docs.get(h.info.docId)?.access;
    },
    sources,
    load(records, group) {
      for (const [docId, g] of byDocument(records, group)) {
        // Merge with chunks already loaded from earlier batches.
        const earlier = (docs.get(docId)?.chunkIds ?? []).flatMap((id) => {
          const h = chunks.get(id);
          return h ? [chunkOf(h)] : [];
        });
        const all = [...earlier, ...g.chunks].sort((a, b) => chunkOrdinal(a.id) - chunkOrdinal(b.id));
        putDocument(g.doc, all);
      }
    },
    snapshot: () => ({
      docs: [...docs.values()],
      chunks: [...chunks.values()].map((h) => h.info),
      // Texts from a snapshot are copied as bytes, never decoded and encoded again.
      texts: packTexts([...chunks.values()].map((h) => h.text)),
      partitions: [...partitions].map(([g, p]): [string, LexicalSnapshot] => [g, p.snapshot()]),
    }),
    stats: () => statsOf(docs.values()),
  };
}

/** Searches and term statistics over the BM25 partitions of the groups asked for. */
function partitionSearch(
  partitions: Map<string, LexicalIndex>,
): Pick<Catalog, 'lexicalSearch' | 'idsWithTerm' | 'countWithTerm' | 'idf' | 'chunkCountIn'> {
  return {
    lexicalSearch(groups, query, n) {
      const hits: Hit[] = [];
      for (const g of groups) {
        const p = partitions.get(g);
        if (p) hits.push(...p.search(query, n));
      }
      // Partitions score on their own statistics; merging by score is close enough because
      // fusion normalises per list and the exact-match boost works on text, not scores.
      return hits.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1)).slice(0, n);
    },
    idsWithTerm(groups, term, limit) {
      const out: string[] = [];
      for (const g of groups) {
        const p = partitions.get(g);
        if (p) out.push(...p.idsWithTerm(term, limit));
      }
      return out.slice(0, limit);
    },
    countWithTerm(groups, term, limit) {
      let n = 0;
      for (const g of groups) n += partitions.get(g)?.countWithTerm(term, limit) ?? 0;
      return Math.min(n, limit);
    },
    idf(term, groups) {
      let best = 0;
      const searched = groups ? groups.map((g) => partitions.get(g)) : [...partitions.values()];
      for (const p of searched) if (p) best = Math.max(best, p.idf(term));
      return best;
    },
    chunkCountIn(groups) {
      let n = 0;
      for (const g of new Set(groups)) n += partitions.get(g)?.size ?? 0;
      return n;
    },
  };
}

/** Fills an empty catalog's maps from a snapshot, refusing one whose parts disagree. */
function restoreSnapshot({ partitions, docs, byPath, chunks, sources }: CatalogState, from: CatalogSnapshot): void {
  if (tableSize(from.texts) !== from.chunks.length) throw new RangeError('catalog snapshot: chunks and texts disagree');
  for (const [group, index] of from.partitions) partitions.set(group, createLexicalIndex({}, index));
  from.chunks.forEach((info, index) => chunks.set(info.id, { info, text: { table: from.texts, index } }));
  // A chunk's group is its document's (groupOf): each chunk must belong to exactly the document
  // that names it and sit in that document's partition, and no partition may hold more.
  let owned = 0;
  for (const d of from.docs) {
    docs.set(d.id, d);
    sources.add(d);
    byPath.set(pathKey(d.source, d.path), d.id);
    if (!d.chunkIds.every((id) => chunks.get(id)?.info.docId === d.id && partitions.get(d.access)?.has(id))) {
      throw new RangeError(`catalog snapshot: chunks of ${d.id} are missing or another document's`);
    }
    owned += d.chunkIds.length;
  }
  let indexed = 0;
  for (const p of partitions.values()) indexed += p.size;
  if (indexed !== chunks.size || owned !== chunks.size)
    throw new RangeError('catalog snapshot: the lexical index, the documents and the chunks disagree');
}

/** Records scanned from Chroma, grouped by document (a batch may hold several documents' chunks). */
function byDocument(records: StoredRecord[], group: string): Map<string, { doc: LabDocument; chunks: Chunk[] }> {
  const grouped = new Map<string, { doc: LabDocument; chunks: Chunk[] }>();
  for (const r of records) {
    const { doc, chunk } = fromChunkMetadata(r.id, r.text, r.metadata, group);
    const g = grouped.get(doc.id) ?? { doc, chunks: [] };
    g.chunks.push(chunk);
    grouped.set(doc.id, g);
  }
  return grouped;
}

function passageOf(chunkId: string, score: number, h: Held, d: DocRecord): Passage {
  const c = h.info;
  return {
    chunkId,
    docId: d.id,
    text: textOf(h),
    section: c.section,
    score,
    meta: {
      source: d.source,
      kind: d.kind,
      title: d.title,
      authors: d.authors,
      year: d.year,
      journal: d.journal,
      doi: d.doi,
      url: d.url,
      access: d.access,
      step: c.step,
      slide: c.slide,
      page: c.page,
    },
  };
}

function statsOf(docs: Iterable<DocRecord>): CatalogStats {
  // Null-prototype: a source or group may be called "constructor".
  const s: CatalogStats = { documents: 0, chunks: 0, bySource: Object.create(null), byGroup: Object.create(null) };
  for (const d of docs) {
    const n = d.chunkIds.length;
    s.documents += 1;
    s.chunks += n;
    const src = (s.bySource[d.source] ??= { documents: 0, chunks: 0, byKind: {} });
    src.documents += 1;
    src.chunks += n;
    const k = (src.byKind[d.kind] ??= { documents: 0, chunks: 0 });
    k.documents += 1;
    k.chunks += n;
    const g = (s.byGroup[d.access] ??= { documents: 0, chunks: 0 });
    g.documents += 1;
    g.chunks += n;
  }
  return s;
}

export function chunkOrdinal(chunkId: string): number {
  const m = /#(\d+)$/.exec(chunkId);
  return m ? Number(m[1]) : 0;
}
