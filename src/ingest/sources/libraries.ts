// Reading the library files in a document's scope from a source folder: through the same
// confinement as every other read (no links), each file once per run, parsed once per content.
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { libraryFormat, parseLibrary } from '../metadata/library.ts';
import { matchLibraries, type LibraryMatch, type ScopedLibrary } from '../metadata/library-match.ts';
import { SYMLINK_REASON, readInside, type SourceFile } from './folder.ts';

export type LibraryLoader = (abs: string) => Promise<ScopedLibrary | undefined>;

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));
const isMissing = (err: unknown) => ['ENOENT', 'ENOTDIR'].includes((err as NodeJS.ErrnoException).code ?? '');

/**
 * A loader for one run (an ingest, a sync): each library file is read once however many documents
 * it describes. Undefined for a file that is gone or is not a library (a JSON object); a file
 * that cannot be read comes back with `error` (its documents then fail closed).
 */
export function libraryLoader(root: string, maxBytes: number): LibraryLoader {
  const memo = new Map<string, Promise<ScopedLibrary | undefined>>();
  const load = async (abs: string): Promise<ScopedLibrary | undefined> => {
    const origin = path.relative(root, abs).split(path.sep).join('/');
    try {
      const st = await lstat(abs);
      if (st.isSymbolicLink()) return { origin, error: SYMLINK_REASON };
      if (st.size > maxBytes) return { origin, error: `${(st.size / 1024 / 1024).toFixed(1)} MB, over the size limit (ingest.maxFileMb)` };
      const text = (await readInside(root, abs)).toString('utf8');
      const format = libraryFormat(abs, text);
      if (!format) return undefined;
      return { origin, library: parseLibrary(format, text) };
    } catch (err) {
      if (isMissing(err)) return undefined;
      return { origin, error: messageOf(err) };
    }
  };
  return (abs) => {
    let p = memo.get(abs);
    if (!p) {
      p = load(abs);
      memo.set(abs, p);
    }
    return p;
  };
}

/** The libraries in scope of a listed file, read (nearest first). */
export async function scopedLibraries(paths: string[], load: LibraryLoader): Promise<ScopedLibrary[]> {
  const out: ScopedLibrary[] = [];
  for (const p of paths) {
    const l = await load(p);
    if (l) out.push(l);
  }
  return out;
}

/** The library layers of a listed file: its libraries read and matched against it. */
export async function matchInScope(
  file: Pick<SourceFile, 'rel' | 'libraries'>,
  fileDoi: string | undefined,
  load: LibraryLoader,
): Promise<LibraryMatch> {
  if (file.libraries.length === 0) return { layers: [], notes: [], signature: '' };
  return matchLibraries({ rel: file.rel, fileDoi }, await scopedLibraries(file.libraries, load));
}
