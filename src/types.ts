// Domain types shared by ingest, store, search and answer. Values only: no I/O here.

export const KINDS = ['paper', 'protocol', 'slides', 'wiki', 'note'] as const;
export type Kind = (typeof KINDS)[number];

/** An access group name: lower-case letters, digits, "_" and "-", starting with a letter or digit. */
export const ACCESS_GROUP = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** Bibliographic and access metadata of a document, as far as it is known. */
export interface DocMeta {
  id?: string;
  title?: string;
  authors?: string[];
  year?: number;
  journal?: string;
  doi?: string;
  url?: string;
  kind?: Kind;
  access?: string;
  updated?: string;
  language?: string;
  /** Subject terms: keywords, tags, MeSH headings. Searched, not shown. */
  keywords?: string[];
  /** An `access:` value that is not a valid group name: the document must not be indexed at all. */
  invalidAccess?: string;
  /** Front matter that could not be read: its access group is unknown, so it must not be indexed. */
  unreadableFrontMatter?: string;
}

/** A structural unit of a parsed file. Parsers emit these; chunkers consume them. */
export type Block =
  | { type: 'heading'; level: number; text: string }
  | { type: 'paragraph'; text: string }
  | { type: 'list'; ordered: boolean; start?: number; items: string[] }
  | { type: 'table'; header: string[]; rows: string[][]; caption?: string }
  | { type: 'code'; text: string }
  | { type: 'slide'; number: number; title: string; body: string; notes: string }
  /** A page boundary in a paginated format (PDF): the blocks that follow are on this page. */
  | { type: 'page'; number: number };

export type FileFormat = 'markdown' | 'text' | 'pdf' | 'pptx' | 'docx' | 'html';

export interface ParsedFile {
  format: FileFormat;
  blocks: Block[];
  /** Metadata found inside the file: front matter, PDF info dictionary, HTML meta. */
  meta: DocMeta;
  /**
   * Metadata read from the text itself (a PDF's first page): a DOI printed there, and what the
   * layout suggests (title from the largest lines, authors under it, a year). `inferred` marks
   * guesses, which a library's complete record overrides even where it is silent.
   */
  textLayers?: { origin: string; meta: DocMeta; inferred?: boolean }[];
  /** Non-fatal oddities worth logging (e.g. "page 3 has no text"). */
  warnings: string[];
}

/** A chunk as a chunker produces it: text already prefixed with its header. */
export interface ChunkDraft {
  text: string;
  /** Section name, "Step 3", "Slide 4", "Materials", heading path... used in citations. */
  section: string;
  step?: number;
  slide?: number;
  page?: number;
}

export interface ChunkOptions {
  /** Target chunk size in characters. */
  size: number;
  /** Overlap in characters when a long section is split. */
  overlap: number;
}

export const DEFAULT_CHUNK_OPTIONS: ChunkOptions = { size: 500, overlap: 80 };

/** A document ready to be chunked and indexed. */
export interface LabDocument {
  id: string;
  source: string;
  path: string;
  kind: Kind;
  title: string;
  authors: string[];
  year?: number;
  journal?: string;
  doi?: string;
  url?: string;
  /** Subject terms from the metadata (keywords, tags, MeSH): indexed for search with every chunk. */
  keywords?: string[];
  access: string;
  /** What decided the group: a metadata layer's name, "source config" or "default". */
  accessFrom?: string;
  contentHash: string;
  /** Where each bibliographic field came from ("front matter", "library.bib", "PDF info", "text", "file name"). */
  metaFrom?: Partial<Record<string, string>>;
  /** The DOI the file itself carries (its text or embedded metadata): how library entries find it by DOI. */
  fileDoi?: string;
  /** What an admin should know about the metadata: matched by two library entries, entries unreadable. */
  metaNotes?: string[];
}

/** A chunk as stored: the unit of retrieval. */
export interface Chunk extends ChunkDraft {
  id: string;
  docId: string;
  hash: string;
}

/** A chunk's metadata without its text. */
export type ChunkInfo = Omit<Chunk, 'text'>;

/** Scalar metadata as stored in Chroma next to each chunk (Chroma accepts scalars only). */
export type ChunkMetadata = Record<string, string | number | boolean>;

/** A retrieved passage with what is needed to cite it. */
export interface Passage {
  chunkId: string;
  docId: string;
  text: string;
  section: string;
  score: number;
  meta: PassageMeta;
  /**
   * A best hit handed over with its neighbouring chunks: each chunk's own piece of `text` (its
   * header line, then its body as it appears in `text`) and place, in document order, the hit
   * among them. Each is labelled and cited on its own (src/answer/citable.ts).
   */
  parts?: PassagePart[];
  /** Set on a neighbour cited on its own: the chunk id of the best hit it was handed over with. */
  joins?: string;
}

/** One chunk's piece of a passage that spans neighbouring chunks. */
export interface PassagePart extends Pick<ChunkDraft, 'step' | 'slide' | 'page'> {
  chunkId: string;
  section: string;
  /** The chunk's own header line ("<title> — <section>"). */
  header: string;
  /** Its body as it appears in the passage (the overlap with the chunk before it removed). */
  body: string;
  /** What joins it to the part before it in the passage's text: nothing (overlap removed) or a line break. */
  sep: '' | '\n';
}

/** What a passage needs for its citation: the document's metadata and the chunk's location. */
export interface PassageMeta
  extends Pick<LabDocument, 'source' | 'kind' | 'title' | 'authors' | 'year' | 'journal' | 'doi' | 'url' | 'access'>,
    Pick<ChunkDraft, 'step' | 'slide' | 'page'> {
  /** A retraction or expression of concern registered for the document's DOI, as known when asked. */
  notice?: EditorialNotice;
}

/**
 * An editorial notice about a published work (Crossref `updated-by`, from the publisher or
 * Retraction Watch). Only the kinds that change whether its findings can be relied on.
 */
export interface EditorialNotice {
  kind: 'retraction' | 'partial-retraction' | 'withdrawal' | 'removal' | 'expression-of-concern';
  /** The notice's own DOI (it resolves to the retraction notice), when it has one. */
  doi?: string;
  /** "2024-03-01", or as much of it as is known ("2024"). */
  date?: string;
  /** Who registered it: "publisher", "retraction-watch". */
  source?: string;
}

// ---------------------------------------------------------------------------------------------
// What is indexed, as the pipeline, the records and the queue share it.

/** What is indexed for a document: enough to skip it, diff its chunks and delete it. */
export interface IndexedDoc {
  id: string;
  source: string;
  path: string;
  access: string;
  /** What decided the group: a metadata layer's name, "source config" or "default". */
  accessFrom?: string;
  kind: Kind;
  contentHash: string;
  chunkIds: string[];
  /** Text hash of each chunk, in chunkIds order. */
  chunkHashes: string[];
  /** The DOI the file itself carries: library entries matched by DOI count in the content hash. */
  fileDoi?: string;
}

/**
 * Where the pipeline learns what is already indexed. In one process the in-memory catalog is the
 * truth; with several workers the shared Redis record is, so this is a parameter.
 */
export interface IndexLookup {
  atPath(source: string, path: string): Promise<IndexedDoc | undefined>;
  byId(id: string): Promise<IndexedDoc | undefined>;
  bySource(source: string): Promise<IndexedDoc[]>;
}

/** Vectors already computed for a chunk text with the current embedding model. */
export interface EmbeddingCache {
  get(hashes: string[]): Promise<Map<string, number[]>>;
  set(entries: { hash: string; vector: number[] }[]): Promise<void>;
}

/** A chunk as the vector store holds it (text and metadata, no vector). */
export interface StoredRecord {
  id: string;
  text: string;
  /** As stored: may also hold the adapter's own text field, which readers ignore. */
  metadata: ChunkMetadata;
}

export interface VectorRecord extends StoredRecord {
  embedding: number[];
}

/** How a private remote is reached. Neither form ever appears in a URL, an argument or .git/config. */
export interface GitAuth {
  /** HTTP Basic credentials (a token as the password), sent as an Authorization header. */
  basic?: { user: string; password: string };
  /** A private (deploy) key for an ssh remote. */
  sshKeyPath?: string;
}

export interface IngestTarget {
  sourceId: string;
  /** Folder that document paths (and default ids) are relative to. */
  root: string;
  /** Files or folders inside root; defaults to the whole root. */
  paths?: string[];
  kind?: Kind;
  access?: string;
  /**
   * The source mirrors a reference library (Zotero): each sidecar is that library's record of its
   * document, named for the library, and complete (nothing inferred fills its gaps) when it says so.
   */
  library?: string;
}
