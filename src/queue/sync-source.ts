// sync-source: find what changed in a source since it was last indexed and enqueue one job per
// changed, new or removed document. Git sources diff the last synced commit against the new
// head; folders (and git sources without a usable last commit) compare content hashes.
import path from 'node:path';
import { UnrecoverableError, type Job, type Queue } from 'bullmq';
import { type FileHashes, fileHashes, isIndexedAsIs } from '../ingest/file-hash.ts';
import type { IndexedDoc } from '../types.ts';
import { LIBRARY_EXT } from '../ingest/metadata/library.ts';
import { isSupported } from '../ingest/parse/index.ts';
import { SIDECAR_EXT, checkPath, listFolder, readInside, type SourceFile } from '../ingest/sources/folder.ts';
import { libraryLoader, matchInScope, type LibraryLoader } from '../ingest/sources/libraries.ts';
import { changedFiles, updateClone } from '../ingest/sources/git.ts';
import { syncZoteroSource } from '../ingest/sources/zotero/index.ts';
import type { Indexing, Installation } from '../ports.ts';
import type { SourceConfig } from '../config.ts';
import type { RecordStore } from '../store/records.ts';
import { clearPendingSync, enqueueDoc, readPendingSync, type SyncSourceData } from './jobs.ts';
import { reconcileWithConfig } from './reconcile-config.ts';

export interface SyncResult {
  source: string;
  commit?: string;
  mode: 'diff' | 'listing' | 'paths';
  index: number;
  remove: number;
  unchanged: number;
  jobIds: string[];
}

/** A path named by a webhook or a diff must stay inside the source. */
export function safeRelativePath(p: string): string | undefined {
  if (typeof p !== 'string' || p === '' || p.length > 1024 || p.includes('\0') || p.includes('\\')) return undefined;
  if (p.startsWith('/') || /^[A-Za-z]:/.test(p)) return undefined;
  const parts = p.split('/');
  if (parts.some((s) => s === '..' || s === '.' || s === '')) return undefined;
  return parts.join('/');
}

/**
 * The pipeline's content hash of a file (ingest/pipeline.ts): bytes, sidecars, matched library
 * entries; with enrichment on, also the hash it was indexed under if it is pending (worked out only
 * if asked).
 */
async function hashOf(
  source: SourceConfig,
  file: SourceFile,
  defaultAccess: string,
  fileDoi: string | undefined,
  libraries: LibraryLoader,
  enrichTag: string | undefined,
): Promise<FileHashes> {
  const bytes = await readInside(source.path, file.path);
  const sidecars: { name: string; text: string }[] = [];
  for (const s of file.sidecars) {
    const text = await readInside(source.path, s).catch((err: Error) => {
      throw new Error(`metadata file ${path.basename(s)}: ${err.message}`);
    });
    sidecars.push({ name: path.basename(s), text: text.toString('utf8') });
  }
  const library = await matchInScope(file, fileDoi, libraries);
  return fileHashes({ bytes, sidecars, target: source, defaultAccess, libraries: library.signature, fileName: file.path }, enrichTag);
}

/**
 * Paths that name documents: a changed sidecar (`paper.bib`) stands for its document, a changed
 * library (a `.bib`, `.json` or `.ris` no document is named after) for every document in its
 * folder and below; the hashes then tell which of those its change touched.
 */
async function documentsFor(root: string, rels: string[]): Promise<string[]> {
  const out = new Set<string>();
  for (const rel of rels) {
    const ext = path.extname(rel).toLowerCase();
    if (!SIDECAR_EXT.includes(ext)) {
      if (isSupported(rel) && !rel.split('/').some((s) => s.startsWith('.'))) out.add(rel);
      continue;
    }
    const dir = path.dirname(path.join(root, rel));
    // listFolder refuses a folder reached through a link; a folder that is gone names nothing.
    const listing = await listFolder(root, dir).catch(() => undefined);
    const stem = rel.slice(0, rel.length - ext.length);
    const owners = (listing?.files ?? []).filter((f) => f.rel.slice(0, f.rel.length - path.extname(f.rel).length) === stem);
    for (const f of owners) out.add(f.rel);
    if (owners.length === 0 && LIBRARY_EXT.includes(ext)) for (const f of listing?.files ?? []) if (isSupported(f.rel)) out.add(f.rel);
  }
  return [...out];
}

const relOf = (root: string, abs: string) => path.relative(root, abs).split(path.sep).join('/');
const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** What one candidate document is now: a file to hash, gone, or refused (a link) with the reason. */
type Inspected =
  | ({ state: 'file' } & FileHashes)
  | { state: 'gone' }
  | { state: 'refused'; reason: string }
  | { state: 'error'; reason: string };

/** Which documents a sync looks at: named ones (a diff, a webhook) or, undefined, the whole listing. */
interface Candidates {
  commit?: string;
  candidates?: string[];
  mode?: SyncResult['mode'];
}

/** A Zotero source: the mirror is synced first, and the index follows what the mirror changed. */
async function zoteroCandidates(
  app: Installation & Indexing,
  source: SourceConfig,
  records: RecordStore,
  o: { full: boolean; fresh: Set<string>; job?: Job },
): Promise<Candidates> {
  const z = await syncZoteroSource(source, {
    maxFileBytes: app.indexer.settings.maxFileBytes,
    full: o.full,
    onProgress: (p) =>
      void o.job?.updateProgress({ source: source.id, zotero: p.phase, done: p.done, total: p.total }).catch(() => undefined),
    onWait: (ms, why) => app.log.info({ source: source.id, seconds: Math.round(ms / 1000), why }, 'Zotero asked to wait'),
  });
  for (const p of z.resolved) await app.indexer.setProblem(source.id, p, undefined);
  for (const p of z.problems) {
    o.fresh.add(p.path);
    await app.indexer.setProblem(source.id, p.path, { status: 'failed', reason: p.reason });
  }
  app.log.info(
    {
      source: source.id,
      from: z.from,
      version: z.version,
      changed: z.changed.length,
      removed: z.removed.length,
      requests: z.requests,
      repaired: z.repairReason,
    },
    'Zotero mirror synced',
  );
  // Only the documents the mirror changed, when the records were made from the very version the
  // mirror started at; anything else compares every document.
  const last = (await records.sourceState(source.id)).commit;
  if (!o.full && !z.repaired && z.from !== undefined && last === z.from)
    return { commit: z.version, candidates: [...z.changed, ...z.removed], mode: 'diff' };
  return { commit: z.version };
}

/** A git source: the clone is moved to the branch head, and the diff since the last sync names the documents. */
async function gitCandidates(
  source: SourceConfig,
  records: RecordStore,
  known: Map<string, IndexedDoc>,
  full: boolean,
): Promise<Candidates> {
  const commit = await updateClone(source);
  const last = (await records.sourceState(source.id)).commit;
  const changes = !full && last && last !== commit ? await changedFiles(source.path, last, commit) : undefined;
  if (changes) {
    const candidates = await documentsFor(
      source.path,
      changes.flatMap((c) => (c.from ? [c.from, c.path] : [c.path])),
    );
    // A renamed sidecar or document also leaves its old path behind.
    for (const c of changes) if (c.from && known.has(c.from)) candidates.push(c.from);
    return { commit, candidates, mode: 'diff' };
  }
  if (!full && last === commit) return { commit, candidates: [], mode: 'diff' };
  return { commit };
}

export async function syncSource(app: Installation & Indexing, queue: Queue, data: SyncSourceData, job?: Job): Promise<SyncResult> {
  const source = app.config.sources.find((s) => s.id === data.source);
  if (!source) throw new Error(`no source "${data.source}" in the config`);
  const records = app.records;
  if (!records) throw new Error('the queue worker needs Redis for its index records');
  try {
    return await syncOnce(app, queue, source, records, data, job);
  } catch (err) {
    // Shown on the dashboard until a sync of this source succeeds.
    await app.indexer
      .setSourceState(source.id, { lastError: `${new Date().toISOString()}: ${messageOf(err).slice(0, 500)}` })
      .catch(() => undefined);
    // A library that cannot be read until someone acts (an unsupported Zotero database) is not retried.
    if ((err as { permanent?: unknown }).permanent === true) throw new UnrecoverableError(messageOf(err));
    throw err;
  }
}

async function syncOnce(
  app: Installation & Indexing,
  queue: Queue,
  source: SourceConfig,
  records: RecordStore,
  data: SyncSourceData,
  job?: Job,
): Promise<SyncResult> {
  const result: SyncResult = { source: source.id, mode: 'listing', index: 0, remove: 0, unchanged: 0, jobIds: [] };
  const defaultAccess = app.config.access.default;
  // Requests of triggers collapsed into this job (webhooks while it waited or retried), merged.
  const pending = await readPendingSync(queue, source.id);
  const requests = [data, ...pending.requests];
  const full = requests.some((r) => r.full);
  const named = requests.some((r) => !r.changed?.length && !r.deleted?.length)
    ? undefined
    : [...new Set(requests.flatMap((r) => [...(r.changed ?? []), ...(r.deleted ?? [])]))].filter((p) => safeRelativePath(p) !== undefined);

  await reconcileWithConfig(app, source.id);
  const known = new Map<string, IndexedDoc>((await records.bySource(source.id)).map((d) => [d.path, d]));
  const problems = await records.problems(source.id);
  // A file that failed with this very content fails again: wait for it to change (or --full).
  const problemPaths = new Set(problems.map((p) => p.path));
  const failedAs = new Map(problems.filter((p) => p.hash).map((p) => [p.path, p.hash]));
  // A document indexed while Crossref could not be asked is current until Crossref may answer.
  const enrichTag = app.enricher?.tag;
  const enrichAvailable = app.enricher ? await app.enricher.available() : false;
  // The pipeline's rule (ingest/file-hash.ts), and a file that failed as it is now waits for a change.
  const isCurrent = async (rel: string, now: FileHashes) =>
    (!full && failedAs.get(rel) === now.contentHash) || (await isIndexedAsIs(known.get(rel)?.contentHash, now, () => enrichAvailable));

  // Problems this sync found before the listing, which must not be cleared as "no longer there".
  const fresh = new Set<string>();
  const found =
    source.type === 'zotero'
      ? await zoteroCandidates(app, source, records, { full, fresh, job })
      : source.type === 'git'
        ? await gitCandidates(source, records, known, full)
        : named
          ? { candidates: await documentsFor(source.path, named), mode: 'paths' as const }
          : {};
  const { commit, candidates } = found;
  result.commit = commit;
  if (found.mode) result.mode = found.mode;

  const enqueue = async (name: 'index-doc' | 'delete-doc', rel: string, hash: string | undefined) => {
    result.jobIds.push(await enqueueDoc(queue, name, { source: source.id, path: rel, hash, commit }));
    if (name === 'index-doc') result.index += 1;
    else result.remove += 1;
  };
  // One bad entry (a link, a file that vanished or cannot be read) becomes a problem row; the
  // sync goes on. Store and queue errors are not caught: they fail the sync, which is retried.
  const libraries = libraryLoader(source.path, app.indexer.settings.maxFileBytes);
  const hash = (file: SourceFile) => hashOf(source, file, defaultAccess, known.get(file.rel)?.fileDoi, libraries, enrichTag);
  const inspect = async (abs: string, listed?: SourceFile): Promise<Inspected> => {
    try {
      // A file from a full listing was reached without links; reading re-checks its real path.
      if (listed) return { state: 'file', ...(await hash(listed)) };
      const check = await checkPath(source.path, abs);
      if (!check.ok) return check.absent ? { state: 'gone' } : { state: 'refused', reason: check.reason };
      if (check.type !== 'file') return { state: 'gone' };
      const file = (await listFolder(source.path, abs)).files[0];
      if (!file) return { state: 'gone' };
      return { state: 'file', ...(await hash(file)) };
    } catch (err) {
      return { state: 'error', reason: `cannot read: ${messageOf(err)}` };
    }
  };
  const handle = async (rel: string, what: Inspected) => {
    if (what.state === 'file') {
      if (await isCurrent(rel, what)) {
        result.unchanged += 1;
        // Back to exactly what is indexed (a broken library or sidecar mended): its failure is over.
        if (known.get(rel)?.contentHash === what.contentHash && problemPaths.has(rel))
          await app.indexer.setProblem(source.id, rel, undefined);
      } else await enqueue('index-doc', rel, what.contentHash);
      return;
    }
    if (what.state === 'refused' || what.state === 'error') {
      await app.indexer.setProblem(source.id, rel, { status: what.state === 'refused' ? 'skipped' : 'failed', reason: what.reason });
    }
    if (what.state === 'gone' && problemPaths.has(rel)) await app.indexer.setProblem(source.id, rel, undefined);
    // Whatever was indexed at a path that is now gone or a link leaves the index.
    if (what.state !== 'error' && known.has(rel)) await enqueue('delete-doc', rel, known.get(rel)?.contentHash);
  };

  if (candidates) {
    // The root must be there: a missing (unmounted) root fails the sync instead of deleting pages.
    await checkPath(source.path, source.path);
    for (const rel of new Set(candidates)) await handle(rel, await inspect(path.join(source.path, rel)));
  } else {
    const listing = await listFolder(source.path);
    const present = new Set<string>();
    for (const i of listing.ignored) {
      const rel = relOf(source.path, i.path);
      present.add(rel);
      await app.indexer.setProblem(source.id, rel, { status: 'skipped', reason: i.reason });
    }
    for (const file of listing.files) {
      present.add(file.rel);
      if (!isSupported(file.rel)) {
        await app.indexer.setProblem(source.id, file.rel, {
          status: 'skipped',
          reason: `unsupported format "${path.extname(file.rel) || '(no extension)'}"`,
        });
        continue;
      }
      await handle(file.rel, await inspect(file.path, file));
    }
    for (const [rel, doc] of known) if (!present.has(rel)) await enqueue('delete-doc', rel, doc.contentHash);
    // Problems of files that are no longer there are over.
    for (const p of problems)
      if (!present.has(p.path) && !known.has(p.path) && !fresh.has(p.path)) await app.indexer.setProblem(source.id, p.path, undefined);
  }
  await app.indexer.setSourceState(source.id, { lastSyncAt: new Date().toISOString(), commit, lastError: '' });
  await clearPendingSync(queue, source.id, pending.entries, job?.id);
  return result;
}
