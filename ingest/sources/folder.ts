// A folder source: every file below a root, with sidecar metadata files paired to their document.
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';

export interface SourceFile {
  /** Absolute path. */
  path: string;
  /** Path relative to the source root, with forward slashes (part of the document id). */
  rel: string;
  size: number;
  /** Sidecar metadata files (`<name>.bib`, `<name>.yaml`, `<name>.yml`, `<name>.json`) next to this file. */
  sidecars: string[];
}

export interface Listing {
  files: SourceFile[];
  /** Files that are not documents themselves, with the reason. */
  ignored: { path: string; reason: string }[];
}

export const SIDECAR_EXT = ['.bib', '.yaml', '.yml', '.json'];
const SKIP_DIRS = new Set(['node_modules', '.git', '.svn', '__pycache__']);

/** Lists documents under `target` (a file or a folder inside `root`). Symlinks are not followed. */
export async function listFolder(root: string, target: string = root): Promise<Listing> {
  const all: { path: string; size: number }[] = [];
  const st = await lstat(target);
  if (st.isFile()) {
    all.push({ path: target, size: st.size });
    // A single file still gets its sidecars.
    const dir = path.dirname(target);
    for (const e of await readdir(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isFile() && p !== target && SIDECAR_EXT.includes(path.extname(e.name).toLowerCase())) {
        all.push({ path: p, size: (await lstat(p)).size });
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
        }
      }
    }
  }
  all.sort((a, b) => (a.path < b.path ? -1 : 1));

  const stem = (p: string) => p.slice(0, p.length - path.extname(p).length);
  const docs = all.filter((f) => !SIDECAR_EXT.includes(path.extname(f.path).toLowerCase()));
  const docStems = new Map<string, SourceFile>();
  const files: SourceFile[] = docs.map((f) => {
    const sf: SourceFile = { path: f.path, rel: path.relative(root, f.path).split(path.sep).join('/'), size: f.size, sidecars: [] };
    docStems.set(stem(f.path), sf);
    return sf;
  });
  const ignored: Listing['ignored'] = [];
  for (const f of all) {
    if (!SIDECAR_EXT.includes(path.extname(f.path).toLowerCase())) continue;
    const owner = docStems.get(stem(f.path));
    if (owner) owner.sidecars.push(f.path);
    else if (st.isDirectory()) ignored.push({ path: f.path, reason: 'metadata file with no document of the same name' });
  }
  return { files: st.isFile() ? files.filter((f) => f.path === target) : files, ignored };
}
