// A Zotero source: its library (Web API or local zotero.sqlite) mirrored into a folder under the
// data dir, which the rest of labbot indexes like any folder. One sync of a mirror at a time, in
// this process and across processes sharing the data dir.
import path from 'node:path';
import type { ZoteroAccess } from '../../../config.ts';
import type { ZoteroLibrary } from './library.ts';
import { openLocalLibrary } from './local.ts';
import { loadManifest, withMirrorLock } from './mirror.ts';
import { syncMirror, type MirrorProgress, type MirrorSyncResult } from './sync.ts';
import { openWebLibrary } from './web.ts';

export type { MirrorSyncResult, MirrorProgress } from './sync.ts';

export interface ZoteroSource {
  id: string;
  /** The mirror folder. */
  path: string;
  zotero?: ZoteroAccess;
}

export interface ZoteroSyncOptions {
  maxFileBytes: number;
  full?: boolean;
  onProgress?: (p: MirrorProgress) => void;
  onWait?: (ms: number, why: string) => void;
}

export function openLibrary(source: ZoteroSource, onWait?: ZoteroSyncOptions['onWait']): ZoteroLibrary {
  const z = source.zotero;
  if (!z) throw new Error(`source "${source.id}" is not a Zotero source`);
  if (z.via === 'web') return openWebLibrary({ apiUrl: z.apiUrl, library: z.library, apiKey: z.apiKey, onWait });
  return openLocalLibrary({ dataDir: z.dataDir, library: z.library, workDir: path.dirname(source.path) });
}

const locks = new Map<string, Promise<unknown>>();

/** Runs `fn` after any mirror sync of this source already running in this process. */
function serialised<T>(id: string, fn: () => Promise<T>): Promise<T> {
  const prev = locks.get(id) ?? Promise.resolve();
  const next = prev.catch(() => undefined).then(fn);
  locks.set(id, next);
  return next;
}

/** Brings the source's mirror up to date; says which documents changed or went away. */
export function syncZoteroSource(source: ZoteroSource, opts: ZoteroSyncOptions): Promise<MirrorSyncResult> {
  return serialised(source.id, () =>
    withMirrorLock(source.path, async () => {
      const lib = openLibrary(source, opts.onWait);
      try {
        return await syncMirror(source.path, lib, {
          maxFileBytes: opts.maxFileBytes,
          full: opts.full,
          collection: source.zotero?.collection,
          onProgress: opts.onProgress,
        });
      } finally {
        await lib.close?.();
      }
    }),
  );
}

const ensured = new Map<string, Set<string>>();

/**
 * A document job names the library version its sync saw. A worker whose own mirror (on another
 * machine, or wiped) is behind it syncs first, so it never takes a missing file for a deleted one.
 */
export async function ensureZoteroMirror(source: ZoteroSource, version: string | undefined, opts: ZoteroSyncOptions): Promise<void> {
  if (!version || !source.zotero) return;
  const done = ensured.get(source.id) ?? new Set<string>();
  if (done.has(version)) return;
  const { manifest } = await loadManifest(source.path, openLibrary(source).identity);
  const have = manifest?.version;
  const behind = !have || (source.zotero.via === 'web' ? Number(have) < Number(version) : have !== version);
  if (behind) await syncZoteroSource(source, opts);
  done.add(version);
  ensured.set(source.id, done);
}
