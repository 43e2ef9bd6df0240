// Which library entries describe a document. A library file describes the documents in its folder
// and below; the libraries in scope are searched nearest folder first. An entry matches a document
// by, strongest first:
//   1. an attached file of the same name (Zotero/Better BibTeX `file`, RIS `L1`): the paths are
//      from the machine that exported them, so only the name is compared;
//   2. the DOI the document itself prints (page 1, PDF info) equal to the entry's DOI;
//   3. the citation key equal to the file name ("sharma2022.pdf"), or starting it
//      ("sharma2022-kcnk5b.pdf");
//   4. the title equal to the file name, or to the title part of a Zotero-style name
//      ("Sharma et al. - 2022 - Loss of kcnk5b…", cut at 100 characters: a prefix is enough, if
//      the name's year and first author agree with the entry).
// The strongest match gives the document its metadata. Every other matching entry still hands
// its access claim to the one access rule (ingest/access.ts), and the document notes that it was
// matched more than once. A library that cannot be read, where what could not be read may carry
// an access field, keeps every document in its scope out of the index.
import type { DocMeta } from '../../types.ts';
import type { MetaLayer } from './layers.ts';
import { familyName } from './coerce.ts';
import { metaFromFileName, normKey, titleKey } from './file-name.ts';
import { fileKey, type LibraryEntry } from './library-entry.ts';
import { TITLE_PREFIX, type ParsedLibrary } from './library.ts';

/** A library file in a document's scope, as read from the source. */
export interface ScopedLibrary {
  /** Its path relative to the source root ("papers/library.bib"). */
  origin: string;
  library?: ParsedLibrary;
  /** Why the file could not be read at all (a link, too big, unreadable): nothing of it is known. */
  error?: string;
}

export interface MatchTarget {
  /** The document's path relative to the source root. */
  rel: string;
  /** The DOI the file itself carries (its text or embedded metadata), when known. */
  fileDoi?: string;
}

export interface LibraryMatch {
  /** The best entry (complete: a library's own record), other matches' access claims, unreadable libraries. */
  layers: MetaLayer[];
  /** For the dashboard: a document matched twice, entries that could not be read. */
  notes: string[];
  /** What the document's content hash includes: '' when no library says anything about it. */
  signature: string;
}

type How = 'file name' | 'DOI' | 'citation key' | 'title';
const STRENGTH: Record<How, number> = { 'file name': 4, DOI: 3, 'citation key': 2, title: 1 };

interface Found {
  lib: number;
  entry: number;
  how: How;
  strength: number;
}

const ACCESS_ONLY = (m: DocMeta): DocMeta => ({
  ...(m.access !== undefined ? { access: m.access } : {}),
  ...(m.invalidAccess !== undefined ? { invalidAccess: m.invalidAccess } : {}),
});

function familyAgrees(entry: LibraryEntry, family: string | undefined): boolean {
  if (!family || !entry.meta.authors?.length) return true;
  const want = normKey(family);
  return entry.meta.authors.some((a) => normKey(familyName(a)) === want || normKey(a).endsWith(want));
}

/** Entries of one library that match the document, each with how. */
function matchOne(lib: ParsedLibrary, target: MatchTarget): { entry: number; how: How; bonus: number }[] {
  const out: { entry: number; how: How; bonus: number }[] = [];
  const name = target.rel.split('/').pop() ?? target.rel;
  const stem = name.replace(/\.[^.]+$/, '');
  for (const i of lib.byFile.get(fileKey(name)) ?? []) out.push({ entry: i, how: 'file name', bonus: 0 });
  if (target.fileDoi) for (const i of lib.byDoi.get(target.fileDoi.toLowerCase()) ?? []) out.push({ entry: i, how: 'DOI', bonus: 0 });
  for (const i of lib.byKey.get(normKey(stem)) ?? []) out.push({ entry: i, how: 'citation key', bonus: 0.5 });
  // "weber2020-hypoxia-p53": the key, then a separator, then anything.
  for (const m of stem.matchAll(/[-_ .]/g)) {
    const head = normKey(stem.slice(0, m.index));
    if (head.length >= 4) for (const i of lib.byKey.get(head) ?? []) out.push({ entry: i, how: 'citation key', bonus: 0 });
  }
  const fromName = metaFromFileName(name);
  const t = titleKey(fromName?.title ?? stem);
  const agrees = (i: number) => {
    const e = lib.entries[i];
    return (fromName === undefined || e.meta.year === undefined || e.meta.year === fromName.year) && familyAgrees(e, fromName?.authors[0]);
  };
  for (const i of lib.byTitle.get(t) ?? []) if (agrees(i)) out.push({ entry: i, how: 'title', bonus: 0.5 });
  if (t.length >= TITLE_PREFIX) {
    for (const i of lib.byTitlePrefix.get(t.slice(0, TITLE_PREFIX)) ?? []) {
      const full = titleKey(lib.entries[i].meta.title ?? '');
      if (full !== t && full.startsWith(t) && agrees(i)) out.push({ entry: i, how: 'title', bonus: 0 });
    }
  }
  return out;
}

const describeFound = (libs: ScopedLibrary[], f: Found) =>
  `${libs[f.lib].origin} (${libs[f.lib].library!.entries[f.entry].label}, by ${f.how})`;

/** The library layers of one document, from the libraries in its scope (nearest first). */
export function matchLibraries(target: MatchTarget, libs: ScopedLibrary[]): LibraryMatch {
  const layers: MetaLayer[] = [];
  const notes: string[] = [];
  const sig: string[] = [];
  const found = new Map<string, Found>();
  libs.forEach((l, li) => {
    if (!l.library) return;
    for (const m of matchOne(l.library, target)) {
      const id = `${li}:${m.entry}`;
      const strength = STRENGTH[m.how] + m.bonus;
      const prev = found.get(id);
      if (!prev || prev.strength < strength) found.set(id, { lib: li, entry: m.entry, how: m.how, strength });
    }
  });
  // Strongest first; nearer libraries, then earlier entries, break ties.
  const ranked = [...found.values()].sort((a, b) => b.strength - a.strength || a.lib - b.lib || a.entry - b.entry);
  ranked.forEach((f, i) => {
    const l = libs[f.lib];
    const e = l.library!.entries[f.entry];
    const origin = `${l.origin} (${e.label})`;
    sig.push(`m:${l.origin}#${e.digest}`);
    if (i === 0) layers.push({ origin, meta: e.meta, complete: true, warnings: e.warnings.map((w) => `${origin}: ${w}`) });
    else layers.push({ origin, meta: ACCESS_ONLY(e.meta) });
  });
  if (ranked.length > 1) {
    notes.push(
      `matched by ${ranked.length} library entries: ${ranked.map((f) => describeFound(libs, f)).join('; ')}; metadata from the first`,
    );
  }
  for (const l of libs) {
    const lib = l.library;
    const reason = l.error ?? (lib?.mayCarryAccess ? (lib.unreadable ?? lib.broken[0]?.reason) : undefined);
    if (reason) {
      // What could not be read may be the entry that restricts this document.
      layers.push({ origin: l.origin, meta: {}, unreadable: reason });
      sig.push(`u:${l.origin}:${reason}`);
      continue;
    }
    if (!lib || ranked.length > 0) continue;
    const lost =
      lib.unreadable ?? (lib.broken.length ? `${lib.broken.length} part(s) could not be read (${lib.broken[0].reason})` : undefined);
    if (lost) {
      const note = `${l.origin}: ${lost}; if it describes this document, its metadata is missing`;
      notes.push(note);
      sig.push(`n:${note}`);
    }
  }
  return { layers, notes, signature: sig.join('\n') };
}
