// Bibliographic metadata: tolerant coercion of hand-written values (front matter, YAML/TOML/BibTeX
// sidecars), DOIs, and the short author form used in citations.
// Lab members write metadata by hand, so wrong types are repaired where the intent is clear and
// reported (not thrown) where it is not.
import { KINDS, type DocMeta, type Kind } from '../../types.ts';
import { readAccessField } from '../access.ts';
import { describeValue } from '../describe-value.ts';

export interface MetaResult {
  meta: DocMeta;
  warnings: string[];
}

// ---------------------------------------------------------------------------------------------
// Helpers shared by the readers

export const firstLine = (err: unknown): string => (err instanceof Error ? err.message : String(err)).split('\n')[0].slice(0, 200);

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

// ---------------------------------------------------------------------------------------------
// DOIs

const DOI_IN_TEXT = /10\.\d{4,9}\/[^\s"'<>{}|\\^`]+/g;

function trimDoi(doi: string): string {
  let d = doi;
  for (;;) {
    const before = d;
    d = d.replace(/[.,;:'"!?*]+$/, '');
    // A closing bracket at the end belongs to the DOI only if the DOI opened it.
    for (const [open, close] of [
      ['(', ')'],
      ['[', ']'],
    ] as const) {
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
  let v = value
    .trim()
    .replace(/^doi\s*:\s*/i, '')
    .replace(/^(?:https?:\/\/)?(?:dx\.)?doi\.org\//i, '');
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
  'van',
  'von',
  'der',
  'den',
  'de',
  'del',
  'della',
  'degli',
  'di',
  'da',
  'du',
  'des',
  'le',
  'la',
  'dos',
  'das',
  'do',
  'ten',
  'ter',
  'bin',
  'ibn',
  'al',
  'el',
  'st.',
  'zu',
  'af',
  'av',
]);
const ORGANISATION = new RegExp(
  String.raw`\b(organi[sz]ation|consortium|group|institute|society|association|committee|council|` +
    String.raw`collaboration|network|project|team|university|cent(er|re)|agency|foundation|laborator(y|` +
    String.raw`ies)|lab|facility|core)\b`,
  'i',
);
const INITIALS = /^(?:\p{Lu}\.?[\s-]*){1,4}$/u;

/** "Smith, Jane" -> "Jane Smith"; "Smith, Jr., John" -> "John Smith Jr."; others unchanged. */
export function normalizeAuthorName(name: string): string {
  const n = squash(name.replace(/^\{+|\}+$/g, ''));
  const parts = n
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
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
  // A family name on its own that starts with its particle ("van der Berg" from a file name).
  if (PARTICLES.has(words[0]) && words[0] === words[0].toLowerCase()) return words.join(' ');
  // Vancouver style "Smith JK": the initials come last.
  if (INITIALS.test(words[words.length - 1]) && !INITIALS.test(words[0])) return words.slice(0, -1).join(' ');
  for (let i = 1; i < words.length - 1; i++) {
    if (PARTICLES.has(words[i].toLowerCase()) && words[i] === words[i].toLowerCase()) return words.slice(i).join(' ');
  }
  return words[words.length - 1];
}

/** Split "A, B" where items may be whole names or "Last, First" / "Last, Initials" pairs. */
function splitCommaList(s: string): string[] {
  const tokens = s
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
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
    const parts = s
      .split(/\s*,?\s+(?:and|&)\s+|\s*&\s*/i)
      .map((p) => p.trim())
      .filter(Boolean);
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

const describe = describeValue;

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
    meta.title = parts.length && parts.every((p) => typeof p === 'string') ? squash(parts.join(' ')) : coerceString('title', t, warn);
  }

  const authors = pick(lower, 'authors', 'author', 'creators', 'creator');
  if (authors) {
    const list = coerceAuthors(authors[1], warn);
    if (list?.length) meta.authors = list;
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

  // Access is read by the one rule (ingest/access.ts), in every format the same way.
  const access = readAccessField(raw);
  if (access.access) meta.access = access.access;
  if (access.invalidAccess !== undefined) {
    // Fail closed: a document whose access group cannot be read must not fall back to public.
    meta.invalidAccess = access.invalidAccess;
    warn(`"access": ${access.invalidAccess} is not a group name (letters, digits, "_" and "-" only)`);
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
