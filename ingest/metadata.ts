// Bibliographic metadata: tolerant coercion of hand-written values (front matter, YAML/BibTeX
// sidecars), merging of the layers, DOIs, and the short author form used in citations.
// Lab members write metadata by hand, so wrong types are repaired where the intent is clear and
// reported (not thrown) where it is not.
import matter from 'gray-matter';
import bibtex, { type BibValue } from 'bibtex-parse';
import { KINDS, type DocMeta, type Kind } from '../src/types.ts';

export interface MetaResult {
  meta: DocMeta;
  warnings: string[];
}

// ---------------------------------------------------------------------------------------------
// YAML without code execution

const refuse = (language: string) => () => {
  throw new Error(`${language} front matter is not allowed (only YAML or JSON)`);
};

/**
 * gray-matter options used everywhere: its "javascript" engine runs eval() on the front matter,
 * which would let any Markdown file in a wiki execute code in the indexer. Passing an options
 * object also bypasses gray-matter's unbounded per-content cache.
 */
export const SAFE_MATTER_OPTIONS = {
  language: 'yaml',
  engines: { javascript: refuse('JavaScript'), js: refuse('JavaScript'), coffee: refuse('CoffeeScript') },
};

/** Parse a YAML document into a plain object (or a warning). */
export function parseYamlObject(text: string): { data?: Record<string, unknown>; warning?: string } {
  if (text.trim() === '') return { data: {} };
  try {
    const parsed: unknown = matter(`---\n${text}\n---\n`, SAFE_MATTER_OPTIONS).data;
    if (!isPlainObject(parsed)) return { warning: 'YAML is not a mapping of fields to values' };
    return { data: parsed };
  } catch (err) {
    return { warning: `invalid YAML: ${firstLine(err)}` };
  }
}

export const firstLine = (err: unknown): string =>
  (err instanceof Error ? err.message : String(err)).split('\n')[0].slice(0, 200);

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

// ---------------------------------------------------------------------------------------------
// Small coercions

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

const MIN_YEAR = 1400;
const MAX_YEAR = 2200;

/** A publication year from a number, "2021", "2021-03-04", "March 2021" or a Date. */
export function coerceYear(v: unknown): number | undefined {
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? undefined : v.getUTCFullYear();
  if (typeof v === 'number') return Number.isInteger(v) && v >= MIN_YEAR && v <= MAX_YEAR ? v : undefined;
  if (typeof v === 'string') {
    const m = /(?:^|[^\d])(\d{4})(?![\d])/.exec(v.trim());
    if (!m) return undefined;
    const y = Number(m[1]);
    return y >= MIN_YEAR && y <= MAX_YEAR ? y : undefined;
  }
  return undefined;
}

/** ISO form of a date-ish value: "2024-01-05" for midnight dates, the full timestamp otherwise. */
function coerceDateString(v: unknown): string | undefined {
  if (v instanceof Date) {
    if (Number.isNaN(v.getTime())) return undefined;
    const iso = v.toISOString();
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
  }
  if (typeof v === 'string' && v.trim()) return v.trim();
  return undefined;
}

const KIND_ALIASES: Record<string, Kind> = {
  article: 'paper',
  publication: 'paper',
  preprint: 'paper',
  deck: 'slides',
  slide: 'slides',
  presentation: 'slides',
  page: 'wiki',
  notes: 'note',
  sop: 'protocol',
  method: 'protocol',
};

function coerceKind(v: string): Kind | undefined {
  const k = v.trim().toLowerCase();
  if ((KINDS as readonly string[]).includes(k)) return k as Kind;
  if (k.endsWith('s') && (KINDS as readonly string[]).includes(k.slice(0, -1))) return k.slice(0, -1) as Kind;
  return KIND_ALIASES[k];
}

export const ACCESS_GROUP = /^[a-z0-9_-]{1,64}$/;

// ---------------------------------------------------------------------------------------------
// DOIs

const DOI_IN_TEXT = /10\.\d{4,9}\/[^\s"'<>{}|\\^`]+/g;

function trimDoi(doi: string): string {
  let d = doi;
  for (;;) {
    const before = d;
    d = d.replace(/[.,;:'"!?*]+$/, '');
    // A closing bracket at the end belongs to the DOI only if the DOI opened it.
    for (const [open, close] of [['(', ')'], ['[', ']']] as const) {
      if (d.endsWith(close) && d.split(open).length - 1 < d.split(close).length - 1) d = d.slice(0, -1);
    }
    if (d === before) return d;
  }
}

/**
 * The first DOI in a text. A DOI announced as such ("doi:", "DOI", "doi.org/") wins over a bare
 * one, because reference lists on a first page are full of other papers' DOIs.
 */
export function findDoi(text: string): string | undefined {
  let first: string | undefined;
  for (const m of text.matchAll(DOI_IN_TEXT)) {
    if (m[0].length > 300) continue;
    const doi = trimDoi(m[0]);
    if (!/^10\.\d{4,9}\/\S+$/.test(doi)) continue;
    const before = text.slice(Math.max(0, (m.index ?? 0) - 24), m.index).toLowerCase();
    if (/doi(\.org\/|\s*[:=]?\s*)$/.test(before) || /doi\.org\/$/.test(before)) return doi;
    first ??= doi;
  }
  return first;
}

/** "doi:10.1/x", "https://doi.org/10.1/x" or "10.1/x" -> "10.1/x"; undefined if not a DOI. */
export function normalizeDoi(value: string): string | undefined {
  if (value.length > 400) return undefined;
  let v = value.trim().replace(/^doi\s*:\s*/i, '').replace(/^(?:https?:\/\/)?(?:dx\.)?doi\.org\//i, '');
  if (/%[0-9a-f]{2}/i.test(v)) {
    try {
      v = decodeURIComponent(v);
    } catch {
      // Not valid percent-encoding: keep the text as written.
    }
  }
  v = trimDoi(v);
  return /^10\.\d{4,9}\/\S+$/.test(v) ? v : undefined;
}

/** The resolver URL of a DOI, with characters that would break a URL percent-encoded. */
export function doiUrl(doi: string): string {
  const d = normalizeDoi(doi) ?? doi.trim();
  return `https://doi.org/${d.replace(/[^A-Za-z0-9\-._~()/;:]/gu, (c) => encodeURIComponent(c))}`;
}

// ---------------------------------------------------------------------------------------------
// Author names

const SUFFIX = /^(jr|sr|ii|iii|iv|v|phd|md|dphil)\.?$/i;
const PARTICLES = new Set([
  'van', 'von', 'der', 'den', 'de', 'del', 'della', 'degli', 'di', 'da', 'du', 'des', 'le', 'la',
  'dos', 'das', 'do', 'ten', 'ter', 'bin', 'ibn', 'al', 'el', 'st.', 'zu', 'af', 'av',
]);
const ORGANISATION = /\b(organi[sz]ation|consortium|group|institute|society|association|committee|council|collaboration|network|project|team|university|cent(er|re)|agency|foundation|laborator(y|ies)|lab|facility|core)\b/i;
const INITIALS = /^(?:\p{Lu}\.?[\s-]*){1,4}$/u;

/** "Smith, Jane" -> "Jane Smith"; "Smith, Jr., John" -> "John Smith Jr."; others unchanged. */
export function normalizeAuthorName(name: string): string {
  const n = squash(name.replace(/^\{+|\}+$/g, ''));
  const parts = n.split(',').map((p) => p.trim()).filter(Boolean);
  if (parts.length === 2) {
    if (SUFFIX.test(parts[1])) return `${parts[0]} ${parts[1]}`;
    return `${parts[1]} ${parts[0]}`;
  }
  if (parts.length === 3 && SUFFIX.test(parts[1])) return `${parts[2]} ${parts[0]} ${parts[1]}`;
  return n;
}

/** The part of a name used in short citations: "Jane van der Berg" -> "van der Berg". */
export function familyName(name: string): string {
  const n = squash(name);
  if (!n) return '';
  if (n.includes(',')) return n.split(',')[0].trim();
  if (ORGANISATION.test(n)) return n;
  const words = n.split(' ').filter((w) => !SUFFIX.test(w.replace(/,$/, '')));
  if (words.length <= 1) return words[0] ?? n;
  // Vancouver style "Smith JK": the initials come last.
  if (INITIALS.test(words[words.length - 1]) && !INITIALS.test(words[0])) return words.slice(0, -1).join(' ');
  for (let i = 1; i < words.length - 1; i++) {
    if (PARTICLES.has(words[i].toLowerCase()) && words[i] === words[i].toLowerCase()) return words.slice(i).join(' ');
  }
  return words[words.length - 1];
}

/** Split "A, B" where items may be whole names or "Last, First" / "Last, Initials" pairs. */
function splitCommaList(s: string): string[] {
  const tokens = s.split(',').map((t) => t.trim()).filter(Boolean);
  if (tokens.length < 2 || tokens.length % 2 !== 0) return tokens;
  const odd = tokens.filter((_, i) => i % 2 === 1);
  const even = tokens.filter((_, i) => i % 2 === 0);
  const lastInitials = odd.every((t) => INITIALS.test(t)) && even.every((t) => !INITIALS.test(t));
  const singleWords = tokens.every((t) => !t.includes(' '));
  if (!lastInitials && !singleWords) return tokens;
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i += 2) out.push(`${tokens[i + 1]} ${tokens[i]}`);
  return out;
}

/**
 * Split an author string as people write it: "A; B", "A and B", "A, B and C",
 * "Smith, Jane and Lee, Kim" (BibTeX style), "Smith J, Lee K". Drops "et al.".
 */
export function splitAuthors(value: string): string[] {
  const s = squash(value.replace(/\bet\.? al\.?/gi, ''));
  if (!s) return [];
  let names: string[];
  if (s.includes(';')) {
    names = s.split(';').map(normalizeAuthorName);
  } else {
    const parts = s.split(/\s*,?\s+(?:and|&)\s+|\s*&\s*/i).map((p) => p.trim()).filter(Boolean);
    if (parts.length > 1 && parts.every((p) => (p.match(/,/g) ?? []).length === 1)) {
      names = parts.map(normalizeAuthorName);
    } else {
      names = parts.flatMap(splitCommaList);
    }
  }
  return names.map(squash).filter((n) => n.length > 0 && !/^(and|others)$/i.test(n));
}

/** "Smith", "Smith & Lee", "Smith et al." */
export function shortAuthors(authors: string[]): string {
  const fam = authors.map(familyName).filter(Boolean);
  if (fam.length === 0) return '';
  if (fam.length === 1) return fam[0];
  if (fam.length === 2) return `${fam[0]} & ${fam[1]}`;
  return `${fam[0]} et al.`;
}

// ---------------------------------------------------------------------------------------------
// normalizeMeta

const describe = (v: unknown) => {
  if (v instanceof Date) return 'a date';
  if (Array.isArray(v)) return 'a list';
  if (v === null) return 'null';
  if (typeof v === 'object') return 'a mapping';
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
};

function coerceAuthors(v: unknown, warn: (msg: string) => void): string[] | undefined {
  if (typeof v === 'string') return splitAuthors(v);
  if (!Array.isArray(v)) {
    warn(`"authors": expected a list of names, got ${describe(v)}`);
    return undefined;
  }
  const items: unknown[] = v;
  const out: string[] = [];
  for (const item of items) {
    if (typeof item === 'string') {
      if (item.trim()) out.push(normalizeAuthorName(item));
    } else if (isPlainObject(item)) {
      // CSL-JSON style {family, given} or {name}
      const given = typeof item.given === 'string' ? item.given : '';
      const family = typeof item.family === 'string' ? item.family : '';
      const name = typeof item.name === 'string' ? item.name : squash(`${given} ${family}`);
      if (name) out.push(squash(name));
      else warn(`"authors": could not read a name from ${describe(item)}`);
    } else {
      warn(`"authors": ignored ${describe(item)}`);
    }
  }
  return out;
}

function coerceString(key: string, v: unknown, warn: (msg: string) => void): string | undefined {
  if (typeof v === 'string') return squash(v) || undefined;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v === null || v === undefined) return undefined;
  warn(`"${key}": expected text, got ${describe(v)}`);
  return undefined;
}

// Keywords are searched with every chunk of their document, so a runaway list would bloat the
// lexical index by its length times the chunk count: the first terms up to this many characters.
const MAX_KEYWORD_CHARS = 1000;

/** Terms from a list or a "a, b; c" string; undefined when the value is neither. */
export function coerceKeywords(v: unknown): string[] | undefined {
  if (!Array.isArray(v) && typeof v !== 'string') return undefined;
  const items: unknown[] = Array.isArray(v) ? v : v.split(/[;,\n]/);
  const out = new Set<string>();
  let chars = 0;
  for (const item of items) {
    if (typeof item !== 'string' && typeof item !== 'number') continue;
    const t = squash(String(item));
    if (!t || out.has(t)) continue;
    if (chars + t.length > MAX_KEYWORD_CHARS) break;
    out.add(t);
    chars += t.length + 2;
  }
  return [...out];
}

const pick = (raw: Record<string, unknown>, ...keys: string[]): [string, unknown] | undefined => {
  for (const k of keys) if (raw[k] !== undefined && raw[k] !== null && raw[k] !== '') return [k, raw[k]];
  return undefined;
};

/**
 * Coerce hand-written metadata (front matter, YAML sidecar) into DocMeta. Unknown fields are
 * ignored silently (front matter carries plenty of unrelated keys); known fields with values
 * that cannot be understood are dropped with a warning.
 */
export function normalizeMeta(raw: Record<string, unknown>): MetaResult {
  const warnings: string[] = [];
  const warn = (msg: string) => warnings.push(msg);
  const meta: DocMeta = {};
  const lower: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw)) lower[k.toLowerCase()] = v;

  const id = pick(lower, 'id');
  if (id) meta.id = coerceString('id', id[1], warn);

  const title = pick(lower, 'title');
  if (title) {
    const t: unknown = title[1];
    const parts: unknown[] = Array.isArray(t) ? t : [];
    meta.title = parts.length && parts.every((p) => typeof p === 'string')
      ? squash(parts.join(' '))
      : coerceString('title', t, warn);
  }

  const authors = pick(lower, 'authors', 'author', 'creators', 'creator');
  if (authors) {
    const list = coerceAuthors(authors[1], warn);
    if (list && list.length) meta.authors = list;
  }

  const year = pick(lower, 'year');
  if (year) {
    const y = coerceYear(year[1]);
    if (y === undefined) warn(`"year": expected a year, got ${describe(year[1])}`);
    else meta.year = y;
  } else {
    const date = pick(lower, 'date', 'published', 'publication_date');
    if (date) meta.year = coerceYear(date[1]);
  }

  const journal = pick(lower, 'journal', 'venue', 'booktitle', 'container-title');
  if (journal) meta.journal = coerceString('journal', journal[1], warn);

  const doi = pick(lower, 'doi');
  if (doi) {
    const d = typeof doi[1] === 'string' ? normalizeDoi(doi[1]) : undefined;
    if (d) meta.doi = d;
    else warn(`"doi": not a DOI: ${describe(doi[1])}`);
  }

  const url = pick(lower, 'url', 'link');
  if (url) {
    const u = typeof url[1] === 'string' ? url[1].trim() : '';
    if (/^https?:\/\/\S+$/i.test(u) && URL.canParse(u)) meta.url = u;
    else warn(`"url": expected an http(s) URL, got ${describe(url[1])}`);
  }

  const kind = pick(lower, 'kind');
  if (kind) {
    const k = typeof kind[1] === 'string' ? coerceKind(kind[1]) : undefined;
    if (k) meta.kind = k;
    else warn(`"kind": unknown kind ${describe(kind[1])} ignored (known: ${KINDS.join(', ')})`);
  } else {
    // "type" often means something else in wiki front matter; use it only when it names a kind.
    const type = pick(lower, 'type');
    if (type && typeof type[1] === 'string') meta.kind = coerceKind(type[1]);
  }

  const access = pick(lower, 'access', 'access_group');
  if (access) {
    const a = typeof access[1] === 'string' ? access[1].trim().toLowerCase() : '';
    if (ACCESS_GROUP.test(a)) meta.access = a;
    else {
      // Fail closed: a document whose access group cannot be read must not fall back to public.
      meta.invalidAccess = describe(access[1]);
      warn(`"access": ${describe(access[1])} is not a group name (letters, digits, "_" and "-" only)`);
    }
  }

  const updated = pick(lower, 'updated', 'last_updated', 'lastmod', 'modified');
  if (updated) {
    const u = coerceDateString(updated[1]);
    if (u) meta.updated = u;
    else warn(`"updated": expected a date, got ${describe(updated[1])}`);
  }

  const language = pick(lower, 'language', 'lang');
  if (language) meta.language = coerceString('language', language[1], warn);

  // Wiki pages say "tags", papers "keywords", PubMed exports "mesh": all name the subject.
  const keywords = pick(lower, 'keywords', 'keyword', 'tags', 'mesh', 'subjects', 'subject');
  if (keywords) {
    const list = coerceKeywords(keywords[1]);
    if (list) {
      if (list.length) meta.keywords = list;
    } else warn(`"${keywords[0]}": expected a list of terms, got ${describe(keywords[1])}`);
  }

  for (const key of Object.keys(meta) as (keyof DocMeta)[]) if (meta[key] === undefined) delete meta[key];
  return { meta, warnings };
}

// ---------------------------------------------------------------------------------------------
// mergeMeta

const hasValue = (v: unknown) =>
  v !== undefined && v !== null && (typeof v === 'string' ? v.trim() !== '' : Array.isArray(v) ? v.length > 0 : typeof v === 'number' ? Number.isFinite(v) : true);

/** Per field, the first layer with a non-empty value wins (front matter, sidecar, file). */
export function mergeMeta(...layers: DocMeta[]): DocMeta {
  const out: Record<string, unknown> = {};
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer)) {
      if (!hasValue(out[key]) && hasValue(value)) out[key] = Array.isArray(value) ? [...value] : value;
    }
  }
  return out as DocMeta;
}

// ---------------------------------------------------------------------------------------------
// BibTeX

const ACCENTS: Record<string, string> = {
  '`': '\u0300', "'": '\u0301', '^': '\u0302', '~': '\u0303', '=': '\u0304', u: '\u0306', '.': '\u0307',
  '"': '\u0308', r: '\u030A', H: '\u030B', v: '\u030C', c: '\u0327', k: '\u0328', d: '\u0323', b: '\u0331',
};
const SYMBOLS: Record<string, string> = {
  ss: 'ß', o: 'ø', O: 'Ø', ae: 'æ', AE: 'Æ', oe: 'œ', OE: 'Œ', aa: 'å', AA: 'Å', l: 'ł', L: 'Ł', i: 'ı', j: 'ȷ',
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
  jan: 'January', feb: 'February', mar: 'March', apr: 'April', may: 'May', jun: 'June',
  jul: 'July', aug: 'August', sep: 'September', oct: 'October', nov: 'November', dec: 'December',
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

/** The text of the first @entry{...}, for when a later entry breaks the parser. */
function firstEntrySource(text: string): string | undefined {
  const re = /@(\w+)\s*([{(])/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (/^(string|preamble|comment)$/i.test(m[1])) continue;
    const close = m[2] === '{' ? '}' : ')';
    let depth = 0;
    for (let i = m.index + m[0].length - 1; i < text.length; i++) {
      if (text[i] === m[2] || (m[2] === '(' && text[i] === '{')) depth++;
      else if (text[i] === close || (m[2] === '(' && text[i] === '}')) depth--;
      if (depth === 0) return text.slice(m.index, i + 1);
    }
    return undefined;
  }
  return undefined;
}

const PAPER_TYPES = new Set([
  'article', 'inproceedings', 'conference', 'incollection', 'inbook', 'book', 'phdthesis',
  'mastersthesis', 'thesis', 'techreport', 'report', 'unpublished', 'preprint',
]);

const NO_ENTRIES = 'BibTeX file has no entries';

function parseBib(text: string): MetaResult {
  const warnings: string[] = [];
  let items;
  try {
    items = bibtex.parse(text, { number: 'string' });
  } catch (err) {
    const first = firstEntrySource(text);
    try {
      if (!first) throw err;
      items = bibtex.parse(first, { number: 'string' });
      warnings.push(`BibTeX file has errors after its first entry: ${firstLine(err)}`);
    } catch (err2) {
      return { meta: {}, warnings: [`invalid BibTeX: ${firstLine(err2)}`] };
    }
  }

  const strings: Record<string, string> = { ...MONTHS };
  const entries = [];
  for (const item of items) {
    if (item.itemtype === 'string') strings[item.name.toLowerCase()] = bibValue(item, strings);
    else if (item.itemtype === 'entry') entries.push(item);
  }
  const entry = entries[0];
  if (!entry) return { meta: {}, warnings: [...warnings, NO_ENTRIES] };
  if (entries.length > 1) warnings.push(`BibTeX file has ${entries.length} entries; using the first ("${entry.key}")`);

  const f: Record<string, string> = {};
  for (const field of entry.fields) f[field.name.toLowerCase()] = bibValue(field, strings);

  const meta: DocMeta = {};
  if (f.title) meta.title = delatex(f.title);
  if (f.author) {
    const authors = splitBibAuthors(f.author).map(bibAuthor).filter(Boolean);
    if (authors.length) meta.authors = authors;
  }
  const year = coerceYear(f.year) ?? coerceYear(f.date);
  if (year !== undefined) meta.year = year;
  else if (f.year) warnings.push(`"year": expected a year, got ${describe(f.year)}`);
  const journal = f.journal || f.journaltitle || f.booktitle;
  if (journal) meta.journal = delatex(journal);
  if (f.doi) {
    const doi = normalizeDoi(f.doi);
    if (doi) meta.doi = doi;
    else warnings.push(`"doi": not a DOI: ${describe(f.doi)}`);
  }
  if (f.url && /^https?:\/\//i.test(f.url.trim())) meta.url = f.url.trim();
  const keywords = f.keywords ? coerceKeywords(delatex(f.keywords)) : undefined;
  if (keywords?.length) meta.keywords = keywords;
  if (PAPER_TYPES.has(entry.type.toLowerCase())) meta.kind = 'paper';
  return { meta, warnings };
}

// ---------------------------------------------------------------------------------------------
// Sidecars

export interface SidecarResult extends MetaResult {
  /** Why the file cannot be read as metadata at all; its document must then not be indexed. */
  unreadable?: string;
}

/**
 * Metadata from a sidecar file next to a document (paper.pdf + paper.bib / paper.yaml). Never
 * throws; a file that cannot be parsed as a whole comes back `unreadable` (it may be the one
 * carrying the document's access group, so the caller fails closed), wrong values as warnings.
 */
export function parseSidecar(fileName: string, text: string): SidecarResult {
  const ext = /\.([^./\\]+)$/.exec(fileName)?.[1]?.toLowerCase() ?? '';
  const body = text.replace(/^\uFEFF/, '');
  if (ext === 'bib' || ext === 'bibtex') {
    const r = parseBib(body);
    const broken = r.warnings.find((w) => /^(invalid BibTeX|BibTeX file has errors)/.test(w)) ?? (body.trim() !== '' && r.warnings.includes(NO_ENTRIES) ? NO_ENTRIES : undefined);
    return broken ? { ...r, unreadable: broken } : r;
  }
  if (ext === 'yaml' || ext === 'yml') {
    const { data, warning } = parseYamlObject(body);
    if (!data) return { meta: {}, warnings: [`${fileName}: ${warning}`], unreadable: warning };
    return normalizeMeta(data);
  }
  if (ext === 'json') {
    try {
      const data: unknown = JSON.parse(body);
      if (!isPlainObject(data)) return { meta: {}, warnings: [`${fileName}: JSON is not an object`], unreadable: 'JSON is not an object' };
      return normalizeMeta(data);
    } catch (err) {
      return { meta: {}, warnings: [`${fileName}: invalid JSON: ${firstLine(err)}`], unreadable: `invalid JSON: ${firstLine(err)}` };
    }
  }
  return { meta: {}, warnings: [`${fileName}: unsupported sidecar type ".${ext}" (use .bib, .yaml, .yml or .json)`] };
}
