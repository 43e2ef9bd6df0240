// BibTeX: a file of entries (one paper's sidecar or a whole Zotero / Better BibTeX library) ->
// entries with plain-text fields -> DocMeta. A broken entry costs only itself: the others are
// still read, and the caller decides whether the file as a whole may be trusted.
import bibtex, { type BibValue } from 'bibtex-parse';
import type { DocMeta } from '../../types.ts';
import { ACCESS_KEYS, readAccessFields } from '../access.ts';
import { describeValue } from '../describe-value.ts';
import { coerceKeywords, coerceYear, firstLine, normalizeAuthorName, normalizeDoi, type MetaResult } from './coerce.ts';
import { extraFieldRecords } from './extra-field.ts';
import { bibFileNames, entryDigest, entryLabel, type LibraryRead } from './library-entry.ts';

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

const ACCENTS: Record<string, string> = {
  '`': '\u0300',
  "'": '\u0301',
  '^': '\u0302',
  '~': '\u0303',
  '=': '\u0304',
  u: '\u0306',
  '.': '\u0307',
  '"': '\u0308',
  r: '\u030A',
  H: '\u030B',
  v: '\u030C',
  c: '\u0327',
  k: '\u0328',
  d: '\u0323',
  b: '\u0331',
};
const SYMBOLS: Record<string, string> = {
  ss: 'ß',
  o: 'ø',
  O: 'Ø',
  ae: 'æ',
  AE: 'Æ',
  oe: 'œ',
  OE: 'Œ',
  aa: 'å',
  AA: 'Å',
  l: 'ł',
  L: 'Ł',
  i: 'ı',
  j: 'ȷ',
};

/** LaTeX as found in .bib files -> plain Unicode text. */
export function delatex(s: string): string {
  let t = s.replace(/\\([`'^~=".]|[uvHckrdb](?=[\s{]))\s*\{?\s*(\\[ij]|[A-Za-z])\s*\}?/g, (_m, acc: string, letter: string) => {
    const base = letter === '\\i' ? 'i' : letter === '\\j' ? 'j' : letter;
    return ACCENTS[acc] ? `${base}${ACCENTS[acc]}` : letter;
  });
  t = t.replace(/\\(ss|ae|AE|oe|OE|aa|AA|o|O|l|L|i|j)(?![A-Za-z])\s*/g, (_m, sym: string) => SYMBOLS[sym] ?? sym);
  t = t.replace(/\\([&%$#_{}])/g, '$1');
  t = t.replace(/\\[a-zA-Z]+\*?\s*/g, '');
  t = t.replace(/[{}$]/g, '').replace(/---/g, '\u2014').replace(/--/g, '\u2013').replace(/~/g, ' ');
  return squash(t.normalize('NFC'));
}

const MONTHS: Record<string, string> = {
  jan: 'January',
  feb: 'February',
  mar: 'March',
  apr: 'April',
  may: 'May',
  jun: 'June',
  jul: 'July',
  aug: 'August',
  sep: 'September',
  oct: 'October',
  nov: 'November',
  dec: 'December',
};

function bibValue(v: BibValue, strings: Record<string, string>, depth = 0): string {
  if (depth > 32) return '';
  switch (v.datatype) {
    case 'number':
      return String(v.value);
    case 'identifier':
      return strings[String(v.value).toLowerCase()] ?? '';
    case 'concatinate':
      return Array.isArray(v.value) ? v.value.map((p) => bibValue(p, strings, depth + 1)).join('') : '';
    case 'null':
      return '';
    default:
      return typeof v.value === 'string' ? v.value : '';
  }
}

/** Split a BibTeX author field on "and" at brace depth 0 ("{Smith and Sons}" stays whole). */
function splitBibAuthors(field: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < field.length; i++) {
    const c = field[i];
    if (c === '{') depth++;
    else if (c === '}') depth = Math.max(0, depth - 1);
    else if (depth === 0 && /\s/.test(c)) {
      const m = /^\s+and\s+/i.exec(field.slice(i, i + 8));
      if (m) {
        out.push(field.slice(start, i));
        i += m[0].length - 1;
        start = i + 1;
      }
    }
  }
  out.push(field.slice(start));
  return out.map((a) => a.trim()).filter((a) => a && a.toLowerCase() !== 'others');
}

function bibAuthor(raw: string): string {
  const t = raw.trim();
  // A name wholly in braces is an organisation: keep it exactly as written.
  if (/^\{[^{}]*\}$/.test(t)) return delatex(t);
  return normalizeAuthorName(delatex(t));
}

const PAPER_TYPES = new Set([
  'article',
  'inproceedings',
  'conference',
  'incollection',
  'inbook',
  'book',
  'phdthesis',
  'mastersthesis',
  'thesis',
  'techreport',
  'report',
  'unpublished',
  'preprint',
]);

export interface BibEntry {
  /** The citation key ("sharma2022kcnk5b"). */
  key: string;
  /** The entry type, lower-case ("article"). */
  type: string;
  /** Field values with @string macros expanded, LaTeX still in them; names lower-case. */
  fields: Record<string, string>;
  /** The entry as written in the file. */
  raw: string;
}

export interface BibFile {
  entries: BibEntry[];
  /** Entries that could not be parsed, with the parser's reason. */
  broken: string[];
  /** The text of each broken entry, in `broken` order (or of the whole file when none could be cut out). */
  brokenText: string[];
}

/** Every @entry{...} (or @entry(...)) in a text, as its own source text, for parsing one by one. */
function entrySources(text: string): string[] {
  const out: string[] = [];
  const re = /@(\w+)\s*([{(])/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const close = m[2] === '{' ? '}' : ')';
    let depth = 0;
    let end = -1;
    for (let i = m.index + m[0].length - 1; i < text.length; i++) {
      if (text[i] === m[2] || (m[2] === '(' && text[i] === '{')) depth++;
      else if (text[i] === close || (m[2] === '(' && text[i] === '}')) depth--;
      if (depth === 0) {
        end = i + 1;
        break;
      }
    }
    if (end < 0) {
      out.push(text.slice(m.index));
      break;
    }
    out.push(text.slice(m.index, end));
    re.lastIndex = end;
  }
  return out;
}

type BibItem = ReturnType<typeof bibtex.parse>[number];

/** Parses a .bib text. Never throws: entries the parser refuses are listed in `broken`. */
export function parseBibtex(text: string): BibFile {
  let items: BibItem[] = [];
  const broken: string[] = [];
  const brokenText: string[] = [];
  try {
    items = bibtex.parse(text, { number: 'string' });
  } catch {
    // One bad entry makes the parser give up on the whole file: parse entry by entry instead.
    for (const src of entrySources(text)) {
      try {
        items.push(...bibtex.parse(src, { number: 'string' }));
      } catch (err) {
        const key = /^@\w+\s*[{(]\s*([^,\s]*)/.exec(src)?.[1];
        broken.push(`${key ? `entry "${key}"` : 'an entry'}: ${firstLine(err)}`);
        brokenText.push(src);
      }
    }
  }
  const strings: Record<string, string> = { ...MONTHS };
  const entries: BibEntry[] = [];
  for (const item of items) {
    if (item.itemtype === 'string') strings[item.name.toLowerCase()] = bibValue(item, strings);
    else if (item.itemtype === 'entry') {
      const fields: Record<string, string> = Object.create(null);
      for (const field of item.fields) fields[field.name.toLowerCase()] = bibValue(field, strings);
      entries.push({ key: item.key, type: item.type.toLowerCase(), fields, raw: item.raw });
    }
  }
  return { entries, broken, brokenText };
}

/** One entry's fields as DocMeta. Access is read by the one rule, like every other format's. */
export function bibEntryMeta(entry: BibEntry): MetaResult {
  const warnings: string[] = [];
  const f = entry.fields;
  const meta: DocMeta = {};
  if (f.title) meta.title = delatex(f.title);
  if (f.author) {
    const authors = splitBibAuthors(f.author).map(bibAuthor).filter(Boolean);
    if (authors.length) meta.authors = authors;
  }
  const year = coerceYear(f.year) ?? coerceYear(f.date);
  if (year !== undefined) meta.year = year;
  else if (f.year) warnings.push(`"year": expected a year, got ${describeValue(f.year)}`);
  const journal = f.journal || f.journaltitle || f.booktitle;
  if (journal) meta.journal = delatex(journal);
  if (f.doi) {
    const doi = normalizeDoi(f.doi);
    if (doi) meta.doi = doi;
    else warnings.push(`"doi": not a DOI: ${describeValue(f.doi)}`);
  }
  if (f.url && /^https?:\/\//i.test(f.url.trim())) meta.url = f.url.trim();
  const keywords = f.keywords ? coerceKeywords(delatex(f.keywords)) : undefined;
  if (keywords?.length) meta.keywords = keywords;
  if (PAPER_TYPES.has(entry.type)) meta.kind = 'paper';
  // Zotero's own BibTeX export keeps the Extra field as `note`: its "access: x" lines count too.
  const own = Object.fromEntries(
    Object.entries(f)
      .filter(([k]) => (ACCESS_KEYS as readonly string[]).includes(k))
      .map(([k, v]) => [k, delatex(v)]),
  );
  const access = readAccessFields([
    own,
    ...extraFieldRecords(f.note ? delatex(f.note) : undefined),
    ...extraFieldRecords(f.extra ? delatex(f.extra) : undefined),
  ]);
  if (access.access) meta.access = access.access;
  if (access.invalidAccess !== undefined) {
    meta.invalidAccess = access.invalidAccess;
    warnings.push(`"access": ${access.invalidAccess} is not a group name (letters, digits, "_" and "-" only)`);
  }
  return { meta, warnings };
}

/** A whole .bib library: every entry with the keys documents are matched by. */
export function readBibLibrary(text: string): LibraryRead {
  const file = parseBibtex(text);
  const entries = file.entries.map((e, n) => {
    const r = bibEntryMeta(e);
    return {
      label: entryLabel(e.key, r.meta, n),
      key: e.key || undefined,
      meta: r.meta,
      warnings: r.warnings,
      files: e.fields.file ? bibFileNames(e.fields.file) : [],
      digest: entryDigest(e.raw),
    };
  });
  const broken = file.broken.map((reason, i) => ({ reason, text: file.brokenText[i] ?? '' }));
  const prose = text.split('\n').some((l) => l.trim() !== '' && !l.trim().startsWith('%'));
  if (entries.length === 0 && broken.length === 0 && prose) {
    return { entries, broken, unreadable: 'BibTeX file has no entries' };
  }
  return { entries, broken };
}
