// A folder source: every file below a root, with sidecar metadata files paired to their document
// and the library bibliographies (.bib, CSL-JSON, RIS with no document of their name) in scope.
// Symbolic links are never followed, wherever they sit on a path: a wiki commit or a webhook can
// name a link to anywhere on the machine, and what is outside a source's root must never be read.
import { constants } from 'node:fs';
import { lstat, open, readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { LIBRARY_EXT } from '../metadata/library.ts';

export interface SourceFile {
  /** Absolute path. */
  path: string;
  /** Path relative to the source root, with forward slashes (part of the document id). */
  rel: string;
  size: number;
  /** Sidecar metadata files (`<name>.bib`, `<name>.yaml`, `<name>.yml`, `<name>.json`, `<name>.ris`) next to this file. */
  sidecars: string[];
  /**
   * Library files whose scope holds this file: .bib, .json and .ris files with no document of
   * their name, in its folder and the folders above it up to the root, nearest first.
   */
  libraries: string[];
}

export interface Listing {
  files: SourceFile[];
  /** Files that are not documents themselves (or may not be read), with the reason. */
  ignored: { path: string; reason: string }[];
}

export const SIDECAR_EXT = ['.bib', '.yaml', '.yml', '.toml', '.json', '.ris'];
const isLibraryName = (name: string) => LIBRARY_EXT.includes(path.extname(name).toLowerCase()) && !name.startsWith('.');
const SKIP_DIRS = new Set(['node_modules', '.git', '.svn', '__pycache__']);
export const SYMLINK_REASON = 'symbolic link; not followed';

/** What is at a path inside a source, checked component by component without following links. */
export type PathCheck =
  | { ok: true; type: 'file' | 'directory'; size: number }
  | { ok: false; absent: true }
  | { ok: false; absent: false; reason: string };

const isMissing = (err: unknown) => ['ENOENT', 'ENOTDIR'].includes((err as NodeJS.ErrnoException).code ?? '');

const inside = (realRoot: string, real: string) =>
  real === realRoot || real.startsWith(realRoot.endsWith(path.sep) ? realRoot : realRoot + path.sep);

/**
 * Checks `abs` (a path inside `root`) without following any link below the root: every
 * component is lstat'ed, then the real path must still lie under the root's real path. The root
 * itself may be a link (an admin's choice in the config). Throws when the root is unreadable.
 */
export async function checkPath(root: string, abs: string): Promise<PathCheck> {
  const rel = path.relative(root, abs);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return { ok: false, absent: false, reason: 'outside the source root' };
  const realRoot = await realpath(root);
  const parts = rel === '' ? [] : rel.split(path.sep);
  let cur = root;
  let st = await stat(root);
  for (let i = 0; i < parts.length; i++) {
    cur = path.join(cur, parts[i]);
    try {
      st = await lstat(cur);
    } catch (err) {
      if (isMissing(err)) return { ok: false, absent: true };
      throw err;
    }
    if (st.isSymbolicLink()) {
      const at = parts.slice(0, i + 1).join('/');
      return { ok: false, absent: false, reason: i === parts.length - 1 ? SYMLINK_REASON : `"${at}" is a symbolic link; not followed` };
    }
    if (i < parts.length - 1 && !st.isDirectory()) return { ok: false, absent: true };
  }
  if (!st.isFile() && !st.isDirectory()) return { ok: false, absent: false, reason: 'not a regular file' };
  let real: string;
  try {
    real = await realpath(abs);
  } catch (err) {
    if (isMissing(err)) return { ok: false, absent: true };
    throw err;
  }
  if (!inside(realRoot, real)) return { ok: false, absent: false, reason: 'resolves outside the source root' };
  return { ok: true, type: st.isFile() ? 'file' : 'directory', size: st.size };
}

export class ConfinementError extends Error {}

/**
 * Reads a file that must lie inside `root`, checked when it is read, not only when it was listed.
 * The file is opened without following a final link; then its real path must be exactly the path
 * below the root's real path (so no component is a link) and hold the very file that was opened
 * (so no component was swapped for a link and back in between). Cheaper than `checkPath` and
 * just as strict: ingest reads every file through here.
 */
export async function readInside(root: string, abs: string): Promise<Buffer> {
  const rel = path.relative(root, abs);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) throw new ConfinementError('outside the source root');
  // O_NONBLOCK: a FIFO swapped in must not hang the reader.
  const fh = await open(abs, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch((err: NodeJS.ErrnoException) => {
    throw err.code === 'ELOOP' ? new ConfinementError(SYMLINK_REASON) : err;
  });
  try {
    const opened = await fh.stat();
    if (!opened.isFile()) throw new ConfinementError('not a regular file');
    const [realRoot, real] = await Promise.all([realpath(root), realpath(abs)]);
    if (real !== path.join(realRoot, rel)) throw new ConfinementError('a folder on its path is a symbolic link; not followed');
    const there = await stat(real);
    if (there.ino !== opened.ino || there.dev !== opened.dev) throw new ConfinementError('changed while being read');
    return await fh.readFile();
  } finally {
    await fh.close();
  }
}

/**
 * Lists documents under `target` (a file or a folder inside `root`). Links are never followed:
 * a link, or a target reached through one, is reported in `ignored` with the reason.
 */
export async function listFolder(root: string, target: string = root): Promise<Listing> {
  // `link`: a sidecar that is a link. It is still paired with its document, so that reading it
  // fails and the document fails closed instead of being indexed without its access group.
  const all: { path: string; size: number; link?: boolean }[] = [];
  const isSidecar = (name: string) => SIDECAR_EXT.includes(path.extname(name).toLowerCase());
  const ignored: Listing['ignored'] = [];
  const check = await checkPath(root, target);
  if (!check.ok) {
    if (check.absent) throw Object.assign(new Error(`ENOENT: no such file or directory, '${target}'`), { code: 'ENOENT' });
    return { files: [], ignored: [{ path: target, reason: check.reason }] };
  }
  const single = check.type === 'file';
  if (single) {
    all.push({ path: target, size: check.size });
    // A single file still gets its sidecars, and the libraries beside it (files of a sidecar's
    // type that are no other document's sidecar).
    const dir = path.dirname(target);
    const entries = await readdir(dir, { withFileTypes: true });
    const otherStems = new Set(entries.filter((e) => !isSidecar(e.name) && path.join(dir, e.name) !== target).map((e) => stem(e.name)));
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (p !== target && isSidecar(e.name) && (stem(p) === stem(target) || !otherStems.has(stem(e.name)))) {
        if (e.isFile()) all.push({ path: p, size: (await lstat(p)).size });
        else if (e.isSymbolicLink()) all.push({ path: p, size: 0, link: true });
      }
    }
  } else {
    const stack = [target];
    while (stack.length) {
      const dir = stack.pop()!;
      for (const e of await readdir(dir, { withFileTypes: true })) {
        if (e.name.startsWith('.')) continue;
        const p = path.join(dir, e.name);
        if (e.isDirectory()) {
          if (!SKIP_DIRS.has(e.name)) stack.push(p);
        } else if (e.isFile()) {
          all.push({ path: p, size: (await lstat(p)).size });
        } else if (e.isSymbolicLink()) {
          if (isSidecar(e.name)) all.push({ path: p, size: 0, link: true });
          else ignored.push({ path: p, reason: SYMLINK_REASON });
        }
      }
    }
  }
  all.sort((a, b) => (a.path < b.path ? -1 : 1));

  const docs = all.filter((f) => !isSidecar(f.path));
  // A sidecar belongs to every document of its name (paper.pdf and paper.docx beside paper.yaml):
  // one it skipped would be indexed without the access group it gives.
  const docStems = new Map<string, SourceFile[]>();
  const files: SourceFile[] = docs.map((f) => {
    const sf: SourceFile = {
      path: f.path,
      rel: path.relative(root, f.path).split(path.sep).join('/'),
      size: f.size,
      sidecars: [],
      libraries: [],
    };
    docStems.set(stem(f.path), [...(docStems.get(stem(f.path)) ?? []), sf]);
    return sf;
  });
  // Libraries of the folders listed, by folder; the folders above the target are read on their own.
  const librariesByDir = new Map<string, string[]>();
  for (const f of all) {
    if (!isSidecar(f.path)) continue;
    const owners = docStems.get(stem(f.path));
    if (owners) for (const owner of owners) owner.sidecars.push(f.path);
    else if (isLibraryName(path.basename(f.path))) {
      const dir = path.dirname(f.path);
      librariesByDir.set(dir, [...(librariesByDir.get(dir) ?? []), f.path]);
    } else if (!single) ignored.push({ path: f.path, reason: f.link ? SYMLINK_REASON : 'metadata file with no document of the same name' });
  }
  const above = await librariesAbove(root, single ? path.dirname(target) : target);
  for (const f of files) {
    for (let dir = path.dirname(f.path); ; dir = path.dirname(dir)) {
      f.libraries.push(...(librariesByDir.get(dir) ?? []));
      if (dir === root || dir === target || !dir.startsWith(root) || dir === path.dirname(dir)) break;
    }
    f.libraries.push(...above);
  }
  return { files: single ? files.filter((f) => f.path === target) : files, ignored };
}

const stem = (p: string) => p.slice(0, p.length - path.extname(p).length);

/**
 * Library files in the folders above `dir` up to the root, nearest first (those of `dir` itself
 * come from the listing). A folder that is a link, or gone, ends the walk: nothing above a link
 * is reached through it.
 */
async function librariesAbove(root: string, dir: string): Promise<string[]> {
  const out: string[] = [];
  const rel = path.relative(root, dir);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return out;
  for (let d = path.dirname(dir); ; d = path.dirname(d)) {
    const entries = await readdir(d, { withFileTypes: true }).catch(() => undefined);
    if (!entries) break;
    const stems = new Set(entries.filter((e) => !SIDECAR_EXT.includes(path.extname(e.name).toLowerCase())).map((e) => stem(e.name)));
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if ((e.isFile() || e.isSymbolicLink()) && isLibraryName(e.name) && !stems.has(stem(e.name))) out.push(path.join(d, e.name));
    }
    if (d === root || path.relative(root, d) === '' || d === path.dirname(d)) break;
  }
  return out;
}
