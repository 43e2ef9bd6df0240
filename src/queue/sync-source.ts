// sync-source: find what changed in a source since it was last indexed and enqueue one job per
// changed, new or removed document. Git sources diff the last synced commit against the new
// head; folders (and git sources without a usable last commit) compare content hashes.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Queue } from 'bullmq';
import { fileContentHash, type IndexedDoc } from '../../ingest/pipeline.ts';
import { isSupported } from '../../ingest/parse/index.ts';
import { SIDECAR_EXT, listFolder, type SourceFile } from '../../ingest/sources/folder.ts';
import { changedFiles, updateClone } from '../../ingest/sources/git.ts';
import type { App } from '../app.ts';
import type { SourceConfig } from '../config.ts';
import { enqueueDoc, type SyncSourceData } from './jobs.ts';

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

async function hashOf(source: SourceConfig, file: SourceFile, defaultAccess: string): Promise<string> {
  const bytes = await readFile(file.path);
  const sidecars = await Promise.all(file.sidecars.map(async (s) => ({ name: path.basename(s), text: await readFile(s, 'utf8') })));
  return fileContentHash(bytes, sidecars, source, defaultAccess);
}

/** Paths that name documents: a changed sidecar (`paper.bib`) stands for its document. */
async function documentsFor(root: string, rels: string[]): Promise<string[]> {
  const out = new Set<string>();
  for (const rel of rels) {
    const ext = path.extname(rel).toLowerCase();
    if (!SIDECAR_EXT.includes(ext)) {
      if (isSupported(rel) && !rel.split('/').some((s) => s.startsWith('.'))) out.add(rel);
      continue;
    }
    const abs = path.join(root, rel);
    const dir = path.dirname(abs);
    if (!existsSync(dir)) continue;
    const listing = await listFolder(root, dir).catch(() => undefined);
    const stem = rel.slice(0, rel.length - ext.length);
    for (const f of listing?.files ?? []) if (f.rel.slice(0, f.rel.length - path.extname(f.rel).length) === stem) out.add(f.rel);
  }
  return [...out];
}

export async function syncSource(app: App, queue: Queue, data: SyncSourceData): Promise<SyncResult> {
  const source = app.config.sources.find((s) => s.id === data.source);
  if (!source) throw new Error(`no source "${data.source}" in the config`);
  const records = app.records;
  if (!records) throw new Error('the queue worker needs Redis for its index records');
  const result: SyncResult = { source: source.id, mode: 'listing', index: 0, remove: 0, unchanged: 0, jobIds: [] };
  const defaultAccess = app.config.access.default;
  const known = new Map<string, IndexedDoc>((await records.bySource(source.id)).map((d) => [d.path, d]));
  // A file that failed with this very content fails again: wait for it to change (or --full).
  const failedAs = new Map((await records.problems(source.id)).filter((p) => p.hash).map((p) => [p.path, p.hash]));
  const isCurrent = (rel: string, hash: string) => known.get(rel)?.contentHash === hash || (!data.full && failedAs.get(rel) === hash);

  let commit: string | undefined;
  let candidates: string[] | undefined;
  if (source.type === 'git') {
    commit = await updateClone(source);
    result.commit = commit;
    const last = (await records.sourceState(source.id)).commit;
    const changes = !data.full && last && last !== commit ? await changedFiles(source.path, last, commit) : undefined;
    if (changes) {
      candidates = await documentsFor(source.path, changes.flatMap((c) => (c.from ? [c.from, c.path] : [c.path])));
      // A renamed sidecar or document also leaves its old path behind.
      for (const c of changes) if (c.from && known.has(c.from)) candidates.push(c.from);
      result.mode = 'diff';
    } else if (!data.full && last === commit) {
      candidates = [];
      result.mode = 'diff';
    }
  } else if (data.changed || data.deleted) {
    candidates = await documentsFor(source.path, [...(data.changed ?? []), ...(data.deleted ?? [])]);
    result.mode = 'paths';
  }

  const enqueue = async (name: 'index-doc' | 'delete-doc', rel: string, hash: string | undefined) => {
    result.jobIds.push(await enqueueDoc(queue, name, { source: source.id, path: rel, hash, commit }));
    if (name === 'index-doc') result.index += 1;
    else result.remove += 1;
  };

  if (candidates) {
    for (const rel of new Set(candidates)) {
      const abs = path.join(source.path, rel);
      if (!existsSync(abs)) {
        if (known.has(rel)) await enqueue('delete-doc', rel, known.get(rel)?.contentHash);
        continue;
      }
      const file = (await listFolder(source.path, abs)).files[0];
      if (!file) continue;
      const hash = await hashOf(source, file, defaultAccess);
      if (isCurrent(rel, hash)) result.unchanged += 1;
      else await enqueue('index-doc', rel, hash);
    }
  } else {
    const listing = await listFolder(source.path);
    const present = new Set<string>();
    for (const file of listing.files) {
      present.add(file.rel);
      if (!isSupported(file.rel)) {
        await records.setProblem(source.id, file.rel, { status: 'skipped', reason: `unsupported format "${path.extname(file.rel) || '(no extension)'}"` });
        continue;
      }
      const hash = await hashOf(source, file, defaultAccess);
      if (isCurrent(file.rel, hash)) result.unchanged += 1;
      else await enqueue('index-doc', file.rel, hash);
    }
    for (const [rel, doc] of known) if (!present.has(rel)) await enqueue('delete-doc', rel, doc.contentHash);
  }
  await records.setSourceState(source.id, { lastSyncAt: new Date().toISOString(), commit, lastError: '' });
  return result;
}
