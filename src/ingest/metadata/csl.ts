// CSL-JSON: what Zotero's "Export Library… → CSL JSON" (and Better CSL JSON, Mendeley, pandoc)
// writes: an array of items with `title`, `author` [{family, given} | {literal}], `issued`
// {"date-parts": [[2022, 3, 1]]} (or `raw`/`literal`), `container-title`, `DOI`, `URL`,
// `keyword` ("a, b"), `type` ("article-journal") and Zotero's Extra field as `note`.
import type { DocMeta } from '../../types.ts';
import { readAccessFields } from '../access.ts';
import { coerceKeywords, coerceYear, firstLine, isPlainObject, normalizeDoi, type MetaResult } from './coerce.ts';
import { describeValue } from '../describe-value.ts';
import { extraFieldRecords } from './extra-field.ts';
import { entryDigest, entryLabel, pathFileNames, type LibraryEntry, type LibraryRead } from './library-entry.ts';

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();
const text = (v: unknown): string | undefined => {
  if (typeof v === 'string') return squash(v) || undefined;
  if (typeof v === 'number') return String(v);
  // Older CSL processors wrote some text variables as one-element arrays.
  if (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string')) return squash(v.join(' ')) || undefined;
  return undefined;
};

const PAPER_TYPES = new Set([
  'article',
  'article-journal',
  'article-magazine',
  'article-newspaper',
  'paper-conference',
  'chapter',
  'book',
  'report',
  'thesis',
  'manuscript',
  'preprint',
  'review',
  'review-book',
  'dataset',
]);

/** The year of a CSL date: `date-parts` (numbers or strings), else `raw`, `literal` or a plain string. */
export function cslYear(v: unknown): number | undefined {
  if (typeof v === 'string' || typeof v === 'number') return coerceYear(v);
  if (!isPlainObject(v)) return undefined;
  const parts = v['date-parts'];
  if (Array.isArray(parts) && Array.isArray(parts[0])) {
    const y = parts[0][0];
    const year = typeof y === 'number' ? coerceYear(y) : typeof y === 'string' ? coerceYear(y.trim()) : undefined;
    if (year !== undefined) return year;
  }
  for (const k of ['raw', 'literal']) {
    const s = v[k];
    if (typeof s === 'string') {
      const year = coerceYear(s);
      if (year !== undefined) return year;
    }
  }
  return undefined;
}

function cslAuthors(v: unknown, warn: (m: string) => void): string[] | undefined {
  if (!Array.isArray(v)) {
    if (v !== undefined) warn(`"author": expected a list of names, got ${describeValue(v)}`);
    return undefined;
  }
  const out: string[] = [];
  for (const a of v as unknown[]) {
    if (!isPlainObject(a)) continue;
    const literal = text(a.literal);
    const family = squash([text(a['non-dropping-particle']), text(a.family)].filter(Boolean).join(' '));
    const given = text(a.given);
    const name = literal ?? squash([given, family, text(a.suffix)].filter(Boolean).join(' '));
    if (name) out.push(name);
  }
  return out.length ? out : undefined;
}

/** One CSL item as metadata. Access is read by the one rule from an `access` key and Extra lines in `note`. */
export function cslItemMeta(item: Record<string, unknown>): MetaResult {
  const warnings: string[] = [];
  const warn = (m: string) => warnings.push(m);
  const meta: DocMeta = {};
  const title = text(item.title);
  if (title) meta.title = title;
  const authors = cslAuthors(item.author, warn);
  if (authors) meta.authors = authors;
  const year = cslYear(item.issued);
  if (year !== undefined) meta.year = year;
  else if (item.issued !== undefined) warn(`"issued": no year in ${describeValue(item.issued)}`);
  const journal = text(item['container-title']);
  if (journal) meta.journal = journal;
  const doiRaw = text(item.DOI ?? item.doi);
  if (doiRaw) {
    const doi = normalizeDoi(doiRaw);
    if (doi) meta.doi = doi;
    else warn(`"DOI": not a DOI: ${describeValue(doiRaw)}`);
  }
  const url = text(item.URL ?? item.url);
  if (url && /^https?:\/\/\S+$/i.test(url) && URL.canParse(url)) meta.url = url;
  const keywords = coerceKeywords(item.keyword ?? item.keywords);
  if (keywords?.length) meta.keywords = keywords;
  if (typeof item.type === 'string' && PAPER_TYPES.has(item.type)) meta.kind = 'paper';
  const note = typeof item.note === 'string' ? item.note : undefined;
  const access = readAccessFields([item, ...extraFieldRecords(note)]);
  if (access.access) meta.access = access.access;
  if (access.invalidAccess !== undefined) {
    meta.invalidAccess = access.invalidAccess;
    warn(`"access": ${access.invalidAccess} is not a group name (letters, digits, "_" and "-" only)`);
  }
  return { meta, warnings };
}

/** The citation key of an item: CSL 1.0.2 `citation-key`, else an `id` that reads as one (not a URI or a number). */
function cslKey(item: Record<string, unknown>): string | undefined {
  const ck = text(item['citation-key'] ?? item.citationKey);
  if (ck) return ck;
  const id = text(item.id);
  return id && /^[\p{L}][\p{L}\p{N}_:.-]*$/u.test(id) && !/^https?:/i.test(id) ? id : undefined;
}

/** True when a parsed JSON value is a CSL-JSON library: an array (empty, or of objects). */
export function isCslLibrary(data: unknown): data is unknown[] {
  return Array.isArray(data) && data.every((x) => isPlainObject(x));
}

/** Reads a CSL-JSON text: every item with the keys documents are matched by. */
export function readCslLibrary(body: string): LibraryRead {
  let data: unknown;
  try {
    data = JSON.parse(body.replace(/^\uFEFF/, ''));
  } catch (err) {
    return { entries: [], broken: [], unreadable: `invalid JSON: ${firstLine(err)}` };
  }
  if (!Array.isArray(data)) return { entries: [], broken: [], unreadable: 'JSON is not a CSL-JSON array of items' };
  const entries: LibraryEntry[] = [];
  const broken: LibraryRead['broken'] = [];
  (data as unknown[]).forEach((item, n) => {
    if (!isPlainObject(item)) {
      broken.push({ reason: `item ${n + 1} is not an object (${describeValue(item)})`, text: JSON.stringify(item) ?? '' });
      return;
    }
    const r = cslItemMeta(item);
    const key = cslKey(item);
    const files = [item.file, item.attachment, item.attachments].flatMap((v) =>
      typeof v === 'string' ? v.split(';') : Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [],
    );
    entries.push({
      label: entryLabel(key, r.meta, n),
      key,
      meta: r.meta,
      warnings: r.warnings,
      files: pathFileNames(files),
      digest: entryDigest(JSON.stringify(item)),
    });
  });
  return { entries, broken };
}
