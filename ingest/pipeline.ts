// Ingest flow: list -> skip unchanged (content hash) -> parse -> chunk -> embed only new chunk
// texts -> upsert -> delete stale chunk ids -> update the in-memory catalog.
// New chunks are always written before stale ones are deleted, so a document is never half gone.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Embeddings } from '@langchain/core/embeddings';
import type { Logger } from 'pino';
import type { Catalog } from '../src/search/catalog.ts';
import type { VectorRecord, VectorStore } from '../src/store/chroma-store.ts';
import { toChunkMetadata } from '../src/store/chunk-metadata.ts';
import type { Chunk, ChunkOptions, Kind, LabDocument } from '../src/types.ts';
import { chunkDocument } from './chunk/index.ts';
import { detectKind } from './chunk/detect-kind.ts';
import { mergeMeta, parseSidecar } from './metadata.ts';
import { ParseError, UnsupportedFormatError, isSupported, parseFile } from './parse/index.ts';
import { listFolder, type SourceFile } from './sources/folder.ts';

export interface IngestTarget {
  sourceId: string;
  /** Folder that document paths (and default ids) are relative to. */
  root: string;
  /** Files or folders inside root; defaults to the whole root. */
  paths?: string[];
  kind?: Kind;
  access?: string;
}

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
  catalog: Catalog;
  embeddings: Embeddings;
  log?: Logger;
  onProgress?: (e: ProgressEvent) => void;
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
  previous?: { id: string; access: string; chunkIds: string[]; hashes: Map<string, string> };
}

const sha256 = (parts: (string | Uint8Array)[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest('hex');
};

/** Files flushed per write: big enough to amortise Chroma round trips, small enough to bound memory. */
const FLUSH_CHUNKS = 2000;

export async function ingest(target: IngestTarget, settings: IngestSettings, deps: IngestDeps): Promise<IngestSummary> {
  const { catalog, store, log } = deps;
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
        record({ path: p.file.path, status: 'indexed', docId: p.doc.id, kind: p.doc.kind, chunks: p.chunks.length, warnings: p.warnings.length ? p.warnings : undefined });
      }
    });
    // Handled here so a failure is not an unhandled rejection while the next batch is prepared;
    // the same promise is awaited (and throws) at the next flush or at the end.
    storing.catch(() => undefined);
  };

  let done = 0;
  for (const file of files) {
    deps.onProgress?.({ phase: 'file', done, total: files.length, file: file.rel });
    done += 1;
    seen.add(file.rel);
    try {
      const outcome = await prepare(file, target, settings, catalog);
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
      log?.warn({ file: file.path, reason: (err as Error).message }, `ingest ${status}`);
      record({ path: file.path, status, reason: (err as Error).message });
    }
  }
  await flush();
  await storing;
  deps.onProgress?.({ phase: 'file', done, total: files.length, file: '' });

  // A document whose file is gone from a folder we scanned in full is removed from the index.
  for (const dir of scannedDirs) {
    const relDir = path.relative(target.root, dir).split(path.sep).join('/');
    for (const d of [...catalog.docs()]) {
      if (d.source !== target.sourceId || seen.has(d.path)) continue;
      if (relDir !== '' && !d.path.startsWith(`${relDir}/`)) continue;
      await store.delete(d.access, d.chunkIds);
      catalog.removeDocument(d.id);
      summary.documents.removed += 1;
      summary.chunks.deleted += d.chunkIds.length;
      record({ path: path.join(target.root, d.path), status: 'removed', docId: d.id });
    }
  }
  return summary;
}

class FileError extends Error {}

async function prepare(
  file: SourceFile,
  target: IngestTarget,
  settings: IngestSettings,
  catalog: Catalog,
): Promise<Prepared | FileOutcome> {
  if (!isSupported(file.path)) throw new UnsupportedFormatError(`unsupported format "${path.extname(file.path) || '(no extension)'}"`);
  if (file.size > settings.maxFileBytes) {
    const mb = (n: number) => (n / 1024 / 1024).toFixed(1);
    throw new FileError(`file is ${mb(file.size)} MB, over the limit of ${mb(settings.maxFileBytes)} MB (ingest.maxFileMb)`);
  }
  let bytes: Uint8Array;
  const sidecars: { name: string; text: string }[] = [];
  try {
    bytes = await readFile(file.path);
    for (const s of file.sidecars) sidecars.push({ name: path.basename(s), text: await readFile(s, 'utf8') });
  } catch (err) {
    throw new FileError(`cannot read: ${(err as Error).message}`);
  }
  if (bytes.length > settings.maxFileBytes) throw new FileError(`file grew over the size limit while being read`);

  const contentHash = sha256([
    bytes,
    ...sidecars.flatMap((s) => [s.name, s.text]),
    JSON.stringify([target.kind ?? null, target.access ?? null, settings.defaultAccess]),
  ]);
  const existing = catalog.docAtPath(target.sourceId, file.rel);
  if (existing && existing.contentHash === contentHash) {
    return { path: file.path, status: 'unchanged', docId: existing.id, kind: existing.kind, chunks: existing.chunkIds.length };
  }

  const parsed = await parseFile({ name: path.basename(file.path), bytes }, { maxBytes: settings.maxFileBytes });
  const warnings = [...parsed.warnings];
  const sidecarMeta = sidecars.map((s) => {
    const r = parseSidecar(s.name, s.text);
    warnings.push(...r.warnings.map((w) => `${s.name}: ${w}`));
    return r.meta;
  });
  // Front matter (inside parsed.meta for Markdown) beats sidecars; sidecars beat PDF info dictionaries.
  const meta = parsed.format === 'markdown' ? mergeMeta(parsed.meta, ...sidecarMeta) : mergeMeta(...sidecarMeta, parsed.meta);

  const invalidAccess = parsed.meta.invalidAccess ?? sidecarMeta.find((m) => m.invalidAccess)?.invalidAccess;
  if (invalidAccess) {
    throw new FileError(`access ${invalidAccess} is not a valid group name; not indexed, so it cannot leak into the wrong channel`);
  }
  const docId = meta.id ?? `${target.sourceId}:${file.rel}`;
  const kind = detectKind({ fileName: file.path, format: parsed.format, blocks: parsed.blocks, declared: meta.kind ?? target.kind });
  const firstHeading = parsed.blocks.find((b) => b.type === 'heading');
  const title = meta.title ?? (firstHeading?.type === 'heading' ? firstHeading.text : undefined) ?? path.basename(file.path, path.extname(file.path));
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
    access: meta.access ?? target.access ?? settings.defaultAccess,
    contentHash,
  };
  const conflict = catalog.doc(docId);
  if (conflict && (conflict.source !== doc.source || conflict.path !== doc.path)) {
    throw new FileError(`document id "${docId}" is already used by ${conflict.source}:${conflict.path}`);
  }

  const drafts = chunkDocument({ title, kind, blocks: parsed.blocks }, settings.chunking);
  if (drafts.length === 0) throw new FileError('no text to index');
  const chunks: Chunk[] = drafts.map((d, n) => ({ ...d, id: `${docId}#${n}`, docId, hash: sha256([d.text]) }));

  // The previous version may have had another id (front matter id changed) or another group.
  const prev = existing ?? conflict;
  const previous = prev
    ? {
        id: prev.id,
        access: prev.access,
        chunkIds: prev.chunkIds,
        hashes: new Map(prev.chunkIds.map((id) => [catalog.chunk(id)?.hash ?? '', id])),
      }
    : undefined;
  return { file, doc, chunks, warnings, previous };
}

/** Vectors for a batch: reused from the store for unchanged chunk texts, embedded otherwise. */
async function embedBatch(batch: Prepared[], settings: IngestSettings, deps: IngestDeps, summary: IngestSummary): Promise<Map<string, number[]>> {
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
    const got = await store.embeddingsOf(group, list.map((l) => l.from));
    for (const l of list) {
      const v = got.get(l.from);
      if (v) {
        vectors.set(l.chunk.id, v);
        summary.chunks.reused += 1;
      } else toEmbed.push(l.chunk);
    }
  }
  const total = toEmbed.length;
  for (let i = 0; i < toEmbed.length; i += settings.embedBatch) {
    const slice = toEmbed.slice(i, i + settings.embedBatch);
    const out = await embeddings.embedDocuments(slice.map((c) => c.text));
    slice.forEach((c, j) => vectors.set(c.id, out[j]));
    summary.chunks.embedded += slice.length;
    deps.onProgress?.({ phase: 'embed', done: Math.min(i + slice.length, total), total });
  }
  return vectors;
}

/** Upserts a batch, then deletes the chunks its documents no longer have, then updates the catalog. */
async function storeBatch(batch: Prepared[], vectors: Map<string, number[]>, deps: IngestDeps, summary: IngestSummary): Promise<void> {
  const { store, catalog } = deps;
  const byGroup = new Map<string, VectorRecord[]>();
  for (const p of batch) {
    const list = byGroup.get(p.doc.access) ?? [];
    p.chunks.forEach((c, n) => list.push({ id: c.id, text: c.text, embedding: vectors.get(c.id)!, metadata: toChunkMetadata(p.doc, c, n) }));
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
      if (p.previous.id !== p.doc.id) catalog.removeDocument(p.previous.id);
    }
    catalog.putDocument(p.doc, p.chunks);
  }
}
