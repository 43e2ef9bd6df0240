// Ingest flow: list -> skip unchanged (content hash) -> parse -> chunk -> embed only new chunk
// texts -> upsert -> delete stale chunk ids -> the hooks (records, index events, the lexical
// catalog of a process that answers: src/indexer.ts). The pipeline itself never touches the catalog.
// New chunks are always written before stale ones are deleted, so a document is never half gone.
import { createHash } from 'node:crypto';
import { fileHashes, isIndexedAsIs } from './file-hash.ts';
import path from 'node:path';
import type { Embeddings } from '@langchain/core/embeddings';
import type { Logger } from 'pino';
import type { Catalog } from '../search/catalog.ts';
import type { VectorRecord, VectorStore } from '../store/chroma-store.ts';
import { toChunkMetadata } from '../chunk-metadata.ts';
import type { Chunk, ChunkOptions, EmbeddingCache, IndexedDoc, IndexLookup, Kind, IngestTarget, LabDocument } from '../types.ts';
import { chunkDocument } from './chunk/index.ts';
import { detectKind } from './chunk/detect-kind.ts';
import { decideAccess } from './access.ts';
import { enrichFromDoi, type DoiEnricher } from './metadata/enrich.ts';
import { documentLayers, EMBEDDED_ORIGIN, fileDoiOf } from './metadata/document-layers.ts';
import { accessClaims, resolveMeta, type MetaLayer } from './metadata/layers.ts';
import { parseSidecar } from './metadata/sidecar.ts';
import { ParseError, UnsupportedFormatError, isSupported, parseFile } from './parse/index.ts';
import { checkPath, listFolder, readInside, type SourceFile } from './sources/folder.ts';
import { libraryLoader, matchInScope, type LibraryLoader } from './sources/libraries.ts';
import { titleFromBlocks } from './title.ts';

export interface IngestSettings {
  chunking: ChunkOptions;
  maxFileBytes: number;
  embedBatch: number;
  defaultAccess: string;
}

export type ProgressEvent =
  | { phase: 'scan'; files: number }
  | { phase: 'file'; done: number; total: number; file: string }
  | { phase: 'embed'; done: number; total: number };

export interface IngestDeps {
  store: VectorStore;
  embeddings: Embeddings;
  /** What the index holds (its records, or its catalog without Redis). */
  lookup: IndexLookup;
  cache?: EmbeddingCache;
  /** Called once a document's new chunks are stored and its stale ones deleted. */
  onPut?: (doc: LabDocument, chunks: Chunk[]) => Promise<void>;
  /** Called once a document's chunks are deleted from the store. */
  onRemove?: (doc: IndexedDoc) => Promise<void>;
  log?: Logger;
  onProgress?: (e: ProgressEvent) => void;
  /** DOI enrichment (Crossref); absent when it is off. */
  enrich?: DoiEnricher;
}

export function catalogLookup(catalog: Catalog): IndexLookup {
  const view = (d: ReturnType<Catalog['doc']>): IndexedDoc | undefined =>
    d && { ...d, chunkHashes: d.chunkIds.map((id) => catalog.chunkInfo(id)?.hash ?? '') };
  return {
    atPath: async (source, p) => view(catalog.docAtPath(source, p)),
    byId: async (id) => view(catalog.doc(id)),
    bySource: async (source) => [...catalog.docs()].filter((d) => d.source === source).map((d) => view(d)!),
  };
}

export type OutcomeStatus = 'indexed' | 'unchanged' | 'removed' | 'skipped' | 'failed';

export interface FileOutcome {
  path: string;
  status: OutcomeStatus;
  docId?: string;
  kind?: Kind;
  chunks?: number;
  reason?: string;
  warnings?: string[];
}

export interface IngestSummary {
  source: string;
  documents: { indexed: number; unchanged: number; removed: number };
  chunks: { written: number; embedded: number; reused: number; deleted: number };
  skipped: FileOutcome[];
  failed: FileOutcome[];
  outcomes: FileOutcome[];
}

interface Prepared {
  file: SourceFile;
  doc: LabDocument;
  chunks: Chunk[];
  warnings: string[];
  previous?: { id: string; access: string; chunkIds: string[]; hashes: Map<string, string>; doc: IndexedDoc };
  /** Another document that was at this path under a different id: removed once this one is stored. */
  displaced?: IndexedDoc;
}

const sha256 = (parts: (string | Uint8Array)[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest('hex');
};

/** Files flushed per write: big enough to amortise Chroma round trips, small enough to bound memory. */
const FLUSH_CHUNKS = 2000;

/** Removes an indexed document: chunks from the store, then the catalog entry, then hooks. */
export async function removeIndexed(doc: IndexedDoc, deps: Pick<IngestDeps, 'store' | 'onRemove'>): Promise<void> {
  await deps.store.delete(doc.access, doc.chunkIds);
  await deps.onRemove?.(doc);
}

export async function ingest(target: IngestTarget, settings: IngestSettings, deps: IngestDeps): Promise<IngestSummary> {
  const { store, log } = deps;
  const { lookup } = deps;
  const summary: IngestSummary = {
    source: target.sourceId,
    documents: { indexed: 0, unchanged: 0, removed: 0 },
    chunks: { written: 0, embedded: 0, reused: 0, deleted: 0 },
    skipped: [],
    failed: [],
    outcomes: [],
  };
  const record = (o: FileOutcome) => {
    summary.outcomes.push(o);
    if (o.status === 'skipped') summary.skipped.push(o);
    if (o.status === 'failed') summary.failed.push(o);
  };

  await store.assertVersion();

  const targets = target.paths?.length ? target.paths : [target.root];
  const files: SourceFile[] = [];
  const scannedDirs: string[] = [];
  for (const t of targets) {
    const abs = path.resolve(t);
    try {
      const listing = await listFolder(target.root, abs);
      files.push(...listing.files);
      for (const i of listing.ignored) record({ path: i.path, status: 'skipped', reason: i.reason });
      if (!listing.files.some((f) => f.path === abs)) scannedDirs.push(abs);
    } catch (err) {
      record({ path: abs, status: 'failed', reason: `cannot read: ${(err as Error).message}` });
    }
  }
  deps.onProgress?.({ phase: 'scan', files: files.length });

  const seen = new Set<string>();
  const idsThisRun = new Set<string>();
  let pending: Prepared[] = [];
  let pendingChunks = 0;
  // One batch is stored by Chroma (another process) while the next is parsed and embedded here.
  let storing: Promise<void> = Promise.resolve();

  const flush = async () => {
    if (pending.length === 0) return;
    const batch = pending;
    pending = [];
    pendingChunks = 0;
    const vectors = await embedBatch(batch, settings, deps, summary);
    await storing;
    storing = storeBatch(batch, vectors, deps, summary).then(() => {
      for (const p of batch) {
        summary.documents.indexed += 1;
        record({
          path: p.file.path,
          status: 'indexed',
          docId: p.doc.id,
          kind: p.doc.kind,
          chunks: p.chunks.length,
          warnings: p.warnings.length ? p.warnings : undefined,
        });
      }
    });
    // Handled here so a failure is not an unhandled rejection while the next batch is prepared;
    // the same promise is awaited (and throws) at the next flush or at the end.
    storing.catch(() => undefined);
  };

  let done = 0;
  const libraries = libraryLoader(target.root, settings.maxFileBytes);
  for (const file of files) {
    deps.onProgress?.({ phase: 'file', done, total: files.length, file: file.rel });
    done += 1;
    seen.add(file.rel);
    try {
      const outcome = await prepare(file, target, settings, lookup, { enrich: deps.enrich, log: deps.log, libraries });
      if ('status' in outcome) {
        if (outcome.status === 'unchanged') summary.documents.unchanged += 1;
        record(outcome);
        continue;
      }
      if (idsThisRun.has(outcome.doc.id)) {
        record({ path: file.path, status: 'failed', reason: `document id "${outcome.doc.id}" is used by another file in this run` });
        continue;
      }
      idsThisRun.add(outcome.doc.id);
      pending.push(outcome);
      pendingChunks += outcome.chunks.length;
      if (pendingChunks >= FLUSH_CHUNKS) await flush();
    } catch (err) {
      // Store errors (Chroma down, version mismatch) abort the run: nothing more can be written.
      if (!(err instanceof ParseError) && !(err instanceof UnsupportedFormatError) && !(err instanceof FileError)) {
        await flush().catch(() => undefined);
        await storing.catch(() => undefined);
        throw err;
      }
      const status = err instanceof UnsupportedFormatError ? 'skipped' : 'failed';
      let reason = (err as Error).message;
      const stale = err instanceof AccessRefused ? await lookup.atPath(target.sourceId, file.rel) : undefined;
      if (stale) {
        await removeIndexed(stale, deps);
        summary.documents.removed += 1;
        summary.chunks.deleted += stale.chunkIds.length;
        reason += '; the version indexed before was removed';
      }
      log?.warn({ file: file.path, reason }, `ingest ${status}`);
      record({ path: file.path, status, reason, ...(stale ? { docId: stale.id } : {}) });
    }
  }
  await flush();
  await storing;
  deps.onProgress?.({ phase: 'file', done, total: files.length, file: '' });

  // A document whose file is gone from a folder we scanned in full is removed from the index.
  for (const dir of scannedDirs) {
    const relDir = path.relative(target.root, dir).split(path.sep).join('/');
    for (const d of await lookup.bySource(target.sourceId)) {
      if (seen.has(d.path)) continue;
      if (relDir !== '' && !d.path.startsWith(`${relDir}/`)) continue;
      await removeIndexed(d, deps);
      summary.documents.removed += 1;
      summary.chunks.deleted += d.chunkIds.length;
      record({ path: path.join(target.root, d.path), status: 'removed', docId: d.id });
    }
  }
  return summary;
}

class FileError extends Error {}
/**
 * The document's access group cannot be known (an unreadable sidecar or library, an invalid or
 * disagreeing `access`). Its earlier indexed version is removed too: the edit that broke the
 * metadata may be the one that restricted it, and serving the old version would leak it.
 */
class AccessRefused extends FileError {}

/** A library record that says it is the whole record of its document (`"complete": true`). */
function declaresComplete(text: string): boolean {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && (v as { complete?: unknown }).complete === true;
  } catch {
    return false;
  }
}

async function prepare(
  file: SourceFile,
  target: IngestTarget,
  settings: IngestSettings,
  lookup: IndexLookup,
  deps: Pick<IngestDeps, 'enrich' | 'log'> & { libraries: LibraryLoader },
): Promise<Prepared | FileOutcome> {
  if (!isSupported(file.path)) throw new UnsupportedFormatError(`unsupported format "${path.extname(file.path) || '(no extension)'}"`);
  if (file.size > settings.maxFileBytes) {
    const mb = (n: number) => (n / 1024 / 1024).toFixed(1);
    throw new FileError(`file is ${mb(file.size)} MB, over the limit of ${mb(settings.maxFileBytes)} MB (ingest.maxFileMb)`);
  }
  let bytes: Uint8Array;
  const sidecars: { name: string; text: string }[] = [];
  try {
    bytes = await readInside(target.root, file.path);
  } catch (err) {
    throw new FileError(`cannot read: ${(err as Error).message}`);
  }
  for (const s of file.sidecars) {
    try {
      sidecars.push({ name: path.basename(s), text: (await readInside(target.root, s)).toString('utf8') });
    } catch (err) {
      // Fail closed: the sidecar may be what restricts the document.
      throw new AccessRefused(
        `metadata file ${path.basename(s)} cannot be read (${(err as Error).message}); not indexed, since its access group cannot be known`,
      );
    }
  }
  if (bytes.length > settings.maxFileBytes) throw new FileError(`file grew over the size limit while being read`);

  const existing = await lookup.atPath(target.sourceId, file.rel);
  const unchanged = existing && {
    path: file.path,
    status: 'unchanged' as const,
    docId: existing.id,
    kind: existing.kind,
    chunks: existing.chunkIds.length,
  };
  // The DOI the file carried when it was indexed stands for the file's DOI while its bytes (part
  // of the hash) are the same; when they are not, the document is parsed and matched again below.
  let library = await matchInScope(file, existing?.fileDoi, deps.libraries);
  const hashes = (signature: string | undefined) =>
    fileHashes(
      { bytes, sidecars, target, defaultAccess: settings.defaultAccess, libraries: signature, fileName: file.path },
      deps.enrich?.tag,
    );
  let { contentHash, pendingHash } = hashes(library.signature);
  if (unchanged && (await isIndexedAsIs(existing.contentHash, { contentHash, pendingHash }, () => deps.enrich?.available() ?? false)))
    return unchanged;

  // A sidecar that cannot be read may be the one saying who may read the document: the access
  // rule refuses before anything is parsed or stored.
  const sidecarLayers: MetaLayer[] = sidecars.map((s) => {
    const r = parseSidecar(s.name, s.text, path.basename(file.path));
    const layer: MetaLayer = { origin: s.name, meta: r.meta, unreadable: r.unreadable, warnings: r.warnings.map((w) => `${s.name}: ${w}`) };
    return target.library ? { ...layer, origin: target.library, complete: declaresComplete(s.text) } : layer;
  });
  const early = decideAccess(accessClaims([...sidecarLayers, ...library.layers]), target.access, settings.defaultAccess);
  if (!early.ok) throw new AccessRefused(early.reason);
  const parsed = await parseFile({ name: path.basename(file.path), bytes }, { maxBytes: settings.maxFileBytes });
  const fileDoi = fileDoiOf(parsed);
  if (fileDoi !== existing?.fileDoi) {
    library = await matchInScope(file, fileDoi, deps.libraries);
    ({ contentHash, pendingHash } = hashes(library.signature));
  }
  const warnings = [
    ...parsed.warnings,
    ...sidecarLayers.flatMap((l) => l.warnings ?? []),
    ...library.layers.flatMap((l) => l.warnings ?? []),
  ];
  const ownLayers = documentLayers(parsed, sidecarLayers, library.layers, path.basename(file.path));
  const lab = decideAccess(accessClaims(ownLayers), target.access, settings.defaultAccess);
  if (!lab.ok) throw new AccessRefused(lab.reason);
  // A DOI the file carries (its info dictionary, its first page) is checked against Crossref's title.
  const filesOwn = (l: MetaLayer) =>
    (parsed.format !== 'markdown' && parsed.format !== 'text' && l.origin === EMBEDDED_ORIGIN[parsed.format]) ||
    (parsed.textLayers ?? []).some((t) => t.origin === l.origin);
  const enriched = deps.enrich ? await enrichFromDoi(ownLayers, parsed.blocks, deps.enrich, filesOwn) : undefined;
  for (const w of enriched?.warnings ?? []) deps.log?.warn({ file: file.path, reason: w }, 'enrichment skipped');
  warnings.push(...(enriched?.warnings ?? []));
  const layers = enriched?.layers ?? ownLayers;
  // Every layer, Crossref's too, goes to the one access rule (Crossref's claims nothing).
  const access = decideAccess(accessClaims(layers), target.access, settings.defaultAccess);
  if (!access.ok) throw new AccessRefused(access.reason);
  const { meta, from } = resolveMeta(layers);
  if (enriched?.foreignDoi) {
    delete meta.doi;
    delete from.doi;
  }
  const docId = meta.id ?? `${target.sourceId}:${file.rel}`;
  const kind = detectKind({ fileName: file.path, format: parsed.format, blocks: parsed.blocks, declared: meta.kind ?? target.kind });
  const textTitle = meta.title ? undefined : titleFromBlocks(parsed.blocks, parsed.format);
  const title = meta.title ?? textTitle ?? path.basename(file.path, path.extname(file.path));
  if (!meta.title) from.title = textTitle ? 'text' : 'file name';
  if (!meta.url && meta.doi && from.doi) from.url = from.doi;
  const doc: LabDocument = {
    id: docId,
    source: target.sourceId,
    path: file.rel,
    kind,
    title,
    authors: meta.authors ?? [],
    year: meta.year,
    journal: meta.journal,
    doi: meta.doi,
    url: meta.url ?? (meta.doi ? `https://doi.org/${meta.doi}` : undefined),
    keywords: meta.keywords,
    access: access.group,
    accessFrom: access.origin,
    metaFrom: from,
    contentHash: enriched?.pending && pendingHash ? pendingHash() : contentHash,
    ...(fileDoi ? { fileDoi } : {}),
    ...(library.notes.length ? { metaNotes: library.notes } : {}),
  };
  const conflict = await lookup.byId(docId);
  if (conflict && (conflict.source !== doc.source || conflict.path !== doc.path)) {
    // A page renamed with a stable front-matter id: its old file is gone, so this is a move.
    const moved = conflict.source === doc.source && !(await checkPath(target.root, path.join(target.root, conflict.path))).ok;
    if (!moved) throw new FileError(`document id "${docId}" is already used by ${conflict.source}:${conflict.path}`);
  }

  const drafts = chunkDocument({ title, kind, blocks: parsed.blocks }, settings.chunking);
  if (drafts.length === 0) throw new FileError('no text to index');
  const chunks: Chunk[] = drafts.map((d, n) => ({ ...d, id: `${docId}#${n}`, docId, hash: sha256([d.text]) }));

  // The previous version may have had another id (front matter id changed), another path (a
  // rename keeping its front-matter id) or another group. Same id first: its chunk ids overlap.
  const prev = conflict ?? existing;
  const displaced = existing && conflict && existing.id !== conflict.id ? existing : undefined;
  const previous = prev
    ? {
        id: prev.id,
        access: prev.access,
        chunkIds: prev.chunkIds,
        hashes: new Map(prev.chunkIds.map((id, i) => [prev.chunkHashes[i] ?? '', id])),
        doc: prev,
      }
    : undefined;
  return { file, doc, chunks, warnings, previous, displaced };
}

/** Vectors for a batch: reused from the store for unchanged chunk texts, embedded otherwise. */
async function embedBatch(
  batch: Prepared[],
  settings: IngestSettings,
  deps: IngestDeps,
  summary: IngestSummary,
): Promise<Map<string, number[]>> {
  const { store, embeddings } = deps;
  const vectors = new Map<string, number[]>();
  const reuseByGroup = new Map<string, { chunk: Chunk; from: string }[]>();
  const toEmbed: Chunk[] = [];
  for (const p of batch) {
    for (const c of p.chunks) {
      const from = p.previous && p.previous.access === p.doc.access ? p.previous.hashes.get(c.hash) : undefined;
      if (from) {
        const list = reuseByGroup.get(p.doc.access) ?? [];
        list.push({ chunk: c, from });
        reuseByGroup.set(p.doc.access, list);
      } else toEmbed.push(c);
    }
  }
  for (const [group, list] of reuseByGroup) {
    const got = await store.embeddingsOf(
      group,
      list.map((l) => l.from),
    );
    for (const l of list) {
      const v = got.get(l.from);
      if (v) {
        vectors.set(l.chunk.id, v);
        summary.chunks.reused += 1;
      } else toEmbed.push(l.chunk);
    }
  }
  let missing = toEmbed;
  if (deps.cache && toEmbed.length) {
    const cached = await deps.cache.get([...new Set(toEmbed.map((c) => c.hash))]);
    missing = [];
    for (const c of toEmbed) {
      const v = cached.get(c.hash);
      if (v) {
        vectors.set(c.id, v);
        summary.chunks.reused += 1;
      } else missing.push(c);
    }
  }
  const total = missing.length;
  for (let i = 0; i < missing.length; i += settings.embedBatch) {
    const slice = missing.slice(i, i + settings.embedBatch);
    const out = await embeddings.embedDocuments(slice.map((c) => c.text));
    slice.forEach((c, j) => vectors.set(c.id, out[j]));
    await deps.cache?.set(slice.map((c, j) => ({ hash: c.hash, vector: out[j] })));
    summary.chunks.embedded += slice.length;
    deps.onProgress?.({ phase: 'embed', done: Math.min(i + slice.length, total), total });
  }
  return vectors;
}

/** Upserts a batch, then deletes the chunks its documents no longer have, then tells the hooks. */
async function storeBatch(batch: Prepared[], vectors: Map<string, number[]>, deps: IngestDeps, summary: IngestSummary): Promise<void> {
  const { store } = deps;
  const byGroup = new Map<string, VectorRecord[]>();
  for (const p of batch) {
    const list = byGroup.get(p.doc.access) ?? [];
    p.chunks.forEach((c, n) =>
      list.push({ id: c.id, text: c.text, embedding: vectors.get(c.id)!, metadata: toChunkMetadata(p.doc, c, n) }),
    );
    byGroup.set(p.doc.access, list);
  }
  for (const [group, records] of byGroup) {
    await store.upsert(group, records);
    summary.chunks.written += records.length;
  }
  // Only now that the new chunks are stored, remove the ones the new version no longer has.
  for (const p of batch) {
    if (p.previous) {
      const keep = p.previous.access === p.doc.access ? new Set(p.chunks.map((c) => c.id)) : new Set<string>();
      const stale = p.previous.chunkIds.filter((id) => !keep.has(id));
      await store.delete(p.previous.access, stale);
      summary.chunks.deleted += stale.length;
      if (p.previous.id !== p.doc.id) await deps.onRemove?.(p.previous.doc);
    }
    if (p.displaced) {
      await removeIndexed(p.displaced, deps);
      summary.chunks.deleted += p.displaced.chunkIds.length;
    }
    await deps.onPut?.(p.doc, p.chunks);
  }
}
