// Flattening documents and chunks into Chroma's scalar metadata, and back.
import { KINDS, type Chunk, type ChunkMetadata, type Kind, type LabDocument } from './types.ts';

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
  if (doc.accessFrom) m.access_from = doc.accessFrom;
  if (doc.metaFrom && Object.keys(doc.metaFrom).length) m.meta_from = JSON.stringify(doc.metaFrom);
  if (doc.fileDoi) m.file_doi = doc.fileDoi;
  if (doc.metaNotes?.length) m.meta_notes = JSON.stringify(doc.metaNotes);
  if (chunk.step !== undefined) m.step = chunk.step;
  if (chunk.slide !== undefined) m.slide = chunk.slide;
  if (chunk.page !== undefined) m.page = chunk.page;
  return m;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function metaFrom(v: unknown): Record<string, string> | undefined {
  if (typeof v !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(v);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
    const out: Record<string, string> = {};
    for (const [k, val] of Object.entries(parsed)) if (typeof val === 'string') out[k] = val;
    return out;
  } catch {
    return undefined;
  }
}

function metaNotes(v: unknown): string[] | undefined {
  if (typeof v !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(v);
    return Array.isArray(parsed) ? parsed.filter((n): n is string => typeof n === 'string') : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A stored chunk back as document and chunk. `group` is the collection it was read from. The
 * chunk's own access metadata decides when it has one (a chunk left in the wrong collection keeps
 * its group, and retrieval drops it from the other's vector hits); a chunk without one belongs to
 * its collection's group, never to public by default.
 */
export function fromChunkMetadata(id: string, text: string, m: ChunkMetadata, group: string): { doc: LabDocument; chunk: Chunk } {
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
    access: str(m.access) ?? group,
    contentHash: str(m.doc_hash) ?? '',
  };
  const accessFrom = str(m.access_from);
  if (accessFrom) doc.accessFrom = accessFrom;
  const from = metaFrom(m.meta_from);
  if (from) doc.metaFrom = from;
  const fileDoi = str(m.file_doi);
  if (fileDoi) doc.fileDoi = fileDoi;
  const notes = metaNotes(m.meta_notes);
  if (notes) doc.metaNotes = notes;
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
