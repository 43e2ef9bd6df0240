// A library file: one bibliography describing many documents (a Zotero or Better BibTeX `.bib`
// export, a CSL-JSON array, a RIS file). Parsed once per content (a lab's 5,000-entry library is
// read by every document job of a sync; parsing it each time would dominate them) and indexed by
// the keys documents are matched by.
import { createHash } from 'node:crypto';
import { readBibLibrary } from './bibtex.ts';
import { readCslLibrary } from './csl.ts';
import { normKey, titleKey } from './file-name.ts';
import type { BrokenPart, LibraryEntry } from './library-entry.ts';
import { readRisLibrary } from './ris.ts';

export type LibraryFormat = 'bibtex' | 'csl-json' | 'ris';

export const LIBRARY_EXT = ['.bib', '.bibtex', '.json', '.ris'];

/**
 * The format of a file that may be a library, from its name and (for .json) its text: a .json is
 * a library only when it holds an array (CSL-JSON); an object is some other program's file.
 */
export function libraryFormat(fileName: string, text?: string): LibraryFormat | undefined {
  const ext = /\.[^./\\]+$/.exec(fileName)?.[0]?.toLowerCase();
  if (ext === '.bib' || ext === '.bibtex') return 'bibtex';
  if (ext === '.ris') return 'ris';
  if (ext === '.json') return text === undefined || /^\uFEFF?\s*\[/.test(text) ? 'csl-json' : undefined;
  return undefined;
}

export interface ParsedLibrary {
  format: LibraryFormat;
  entries: LibraryEntry[];
  /** Parts that could not be read; their documents get no entry (and a note). */
  broken: BrokenPart[];
  /** Why the file as a whole cannot be read in its format. */
  unreadable?: string;
  /** The unreadable text could hold an access field: documents in scope must stay out. */
  mayCarryAccess: boolean;
  byFile: Map<string, number[]>;
  byDoi: Map<string, number[]>;
  byKey: Map<string, number[]>;
  /** Title keys (see titleKey), whole. */
  byTitle: Map<string, number[]>;
  /** The first TITLE_PREFIX characters of each title key, for file names that cut titles short. */
  byTitlePrefix: Map<string, number[]>;
}

export const TITLE_PREFIX = 24;

// An access field written in the unreadable part: a BibTeX field or Extra line (`access = `,
// `access: `), a JSON key or Extra line inside a string (`"access":`, `"access: x"`, `\naccess:`),
// a RIS Extra line. Key-shaped only: "open access" in a title or keyword is not a field.
const ACCESS_SHAPES: Record<LibraryFormat, RegExp> = {
  bibtex: /(?:^|[\s,{"])(?:tex\.)?access(?:[_-]?group)?\s*[=:]/im,
  'csl-json': /(?:["\s{,]|\\n)(?:tex\.)?access(?:[_-]?group)?"?\s*:/i,
  ris: /(?:^|[\s-])(?:tex\.)?access(?:[_-]?group)?\s*:/im,
};

/** Whether a text that could not be read could have said who may read a document. */
export function mayCarryAccess(format: LibraryFormat, text: string): boolean {
  return ACCESS_SHAPES[format].test(text);
}

function index(entries: LibraryEntry[]): Pick<ParsedLibrary, 'byFile' | 'byDoi' | 'byKey' | 'byTitle' | 'byTitlePrefix'> {
  const maps = {
    byFile: new Map<string, number[]>(),
    byDoi: new Map<string, number[]>(),
    byKey: new Map<string, number[]>(),
    byTitle: new Map<string, number[]>(),
    byTitlePrefix: new Map<string, number[]>(),
  };
  const add = (m: Map<string, number[]>, k: string | undefined, i: number) => {
    if (!k) return;
    const list = m.get(k);
    if (list) {
      if (list[list.length - 1] !== i) list.push(i);
    } else m.set(k, [i]);
  };
  entries.forEach((e, i) => {
    for (const f of e.files) add(maps.byFile, f, i);
    add(maps.byDoi, e.meta.doi?.toLowerCase(), i);
    if (e.key) add(maps.byKey, normKey(e.key), i);
    if (e.meta.title) {
      const t = titleKey(e.meta.title);
      if (t.length >= 8) {
        add(maps.byTitle, t, i);
        if (t.length >= TITLE_PREFIX) add(maps.byTitlePrefix, t.slice(0, TITLE_PREFIX), i);
      }
    }
  });
  return maps;
}

function parse(format: LibraryFormat, text: string): ParsedLibrary {
  const body = text.replace(/^\uFEFF/, '');
  const read = format === 'bibtex' ? readBibLibrary(body) : format === 'ris' ? readRisLibrary(body) : readCslLibrary(body);
  const unreadableText = read.unreadable ? body : read.broken.map((b) => b.text).join('\n');
  return {
    format,
    entries: read.entries,
    broken: read.broken,
    unreadable: read.unreadable,
    mayCarryAccess: (read.unreadable !== undefined || read.broken.length > 0) && mayCarryAccess(format, unreadableText),
    ...index(read.entries),
  };
}

// Parsed libraries by content. Bounded by total text size: a few big libraries stay parsed.
const MAX_CACHED_CHARS = 64 * 1024 * 1024;
const cache = new Map<string, { lib: ParsedLibrary; chars: number }>();
let cachedChars = 0;
let parses = 0;

/** How many times a library text was parsed (not served from the cache): for tests and benchmarks. */
export const libraryParseCount = (): number => parses;

/** A library file's text, parsed (from the cache when the same text was parsed before). */
export function parseLibrary(format: LibraryFormat, text: string): ParsedLibrary {
  const id = `${format}:${createHash('sha256').update(text).digest('hex')}`;
  const hit = cache.get(id);
  if (hit) {
    // Most recently used last.
    cache.delete(id);
    cache.set(id, hit);
    return hit.lib;
  }
  parses += 1;
  const lib = parse(format, text);
  cache.set(id, { lib, chars: text.length });
  cachedChars += text.length;
  for (const [k, v] of cache) {
    if (cachedChars <= MAX_CACHED_CHARS || cache.size === 1) break;
    cache.delete(k);
    cachedChars -= v.chars;
  }
  return lib;
}
