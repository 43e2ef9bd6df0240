// Flattening documents and chunks into Chroma's scalar metadata, and back.
import { KINDS, type Chunk, type ChunkMetadata, type Kind, type LabDocument } from '../types.ts';

const AUTHOR_SEP = '; ';

export function toChunkMetadata(doc: LabDocument, chunk: Chunk, n: number): ChunkMetadata {
  const m: ChunkMetadata = {
    doc_id: doc.id,
    source: doc.source,
    path: doc.path,
    kind: doc.kind,
    title: doc.title,
    authors: doc.authors.join(AUTHOR_SEP),
    access: doc.access,
    doc_hash: doc.contentHash,
    chunk_hash: chunk.hash,
    chunk_index: n,
    section: chunk.section,
  };
  // Chroma metadata cannot hold null: absent values are simply left out.
  if (doc.year !== undefined) m.year = doc.year;
  if (doc.journal) m.journal = doc.journal;
  if (doc.doi) m.doi = doc.doi;
  if (doc.url) m.url = doc.url;
  if (doc.keywords?.length) m.keywords = doc.keywords.join(AUTHOR_SEP);
  if (chunk.step !== undefined) m.step = chunk.step;
  if (chunk.slide !== undefined) m.slide = chunk.slide;
  if (chunk.page !== undefined) m.page = chunk.page;
  return m;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

export function fromChunkMetadata(id: string, text: string, m: ChunkMetadata): { doc: LabDocument; chunk: Chunk } {
  const kind = (KINDS as readonly string[]).includes(String(m.kind)) ? (m.kind as Kind) : 'note';
  const docId = str(m.doc_id) ?? id.replace(/#\d+$/, '');
  const doc: LabDocument = {
    id: docId,
    source: str(m.source) ?? 'unknown',
    path: str(m.path) ?? '',
    kind,
    title: str(m.title) ?? docId,
    authors: (str(m.authors) ?? '').split(AUTHOR_SEP).filter(Boolean),
    year: num(m.year),
    journal: str(m.journal),
    doi: str(m.doi),
    url: str(m.url),
    keywords: str(m.keywords)?.split(AUTHOR_SEP).filter(Boolean),
    access: str(m.access) ?? 'public',
    contentHash: str(m.doc_hash) ?? '',
  };
  const chunk: Chunk = {
    id,
    docId,
    text,
    hash: str(m.chunk_hash) ?? '',
    section: str(m.section) ?? '',
    step: num(m.step),
    slide: num(m.slide),
    page: num(m.page),
  };
  return { doc, chunk };
}
