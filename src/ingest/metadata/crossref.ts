// Crossref's record of a DOI, read from the REST API's `works/{doi}` message: authors, year,
// title and journal for a document whose own metadata lacks them, and the editorial notices
// (retraction, expression of concern) registered for it. Pure: JSON in, values out; the HTTP
// client and its cache are adapters (src/enrich/).
import { z } from 'zod';
import type { EditorialNotice } from '../../types.ts';
import { normalizeDoi } from './coerce.ts';
import type { MetaLayer } from './layers.ts';

export const CROSSREF_ORIGIN = 'Crossref';

/** What labbot keeps of a Crossref work (the raw record, with its references, can be 100 kB). */
export interface CrossrefRecord {
  doi: string;
  title?: string;
  authors: string[];
  year?: number;
  journal?: string;
  /** Crossref's type: journal-article, posted-content, book-chapter… */
  type?: string;
  notices: EditorialNotice[];
}

// Every field is optional and a malformed one is dropped, not the record: Crossref's metadata is
// deposited by thousands of publishers and a stray shape in one field must not lose the rest.
const strings = z
  .array(z.unknown())
  .catch([])
  .transform((a) => a.filter((v): v is string => typeof v === 'string'));
const dateParts = z
  .object({ 'date-parts': z.array(z.array(z.unknown())).optional(), 'date-time': z.string().optional() })
  .loose()
  .optional()
  .catch(undefined);
const person = z.object({ given: z.string().optional(), family: z.string().optional(), name: z.string().optional() }).loose();
const update = z
  .object({ DOI: z.string().optional(), type: z.string(), label: z.string().optional(), source: z.string().optional(), updated: dateParts })
  .loose();
const workSchema = z
  .object({
    DOI: z.string(),
    title: strings.optional(),
    subtitle: strings.optional(),
    author: z.array(z.unknown()).catch([]).optional(),
    issued: dateParts,
    published: dateParts,
    'published-print': dateParts,
    'published-online': dateParts,
    'container-title': strings.optional(),
    type: z.string().optional().catch(undefined),
    'updated-by': z.array(z.unknown()).catch([]).optional(),
  })
  .loose();

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** Crossref titles carry JATS/MathML markup (`<i>`, `<sup>`) and HTML entities: plain text only. */
export function plainText(value: string, max = 500): string {
  const text = value
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
      if (e[0] === '#') {
        const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1));
        return Number.isFinite(code) && code > 31 && code < 0x110000 ? String.fromCodePoint(code) : ' ';
      }
      return ENTITIES[e.toLowerCase()] ?? m;
    })
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > max ? `${text.slice(0, max - 1).trimEnd()}…` : text;
}

function yearOf(d: z.infer<typeof dateParts>): number | undefined {
  const y = d?.['date-parts']?.[0]?.[0];
  const n = typeof y === 'number' ? y : typeof y === 'string' && /^\d{4}$/.test(y) ? Number(y) : undefined;
  return n !== undefined && Number.isInteger(n) && n >= 1500 && n <= 2200 ? n : undefined;
}

function dateOf(d: z.infer<typeof dateParts>): string | undefined {
  const parts = (d?.['date-parts']?.[0] ?? []).filter((p): p is number => typeof p === 'number' && Number.isInteger(p));
  if (yearOf(d) !== undefined) {
    const [y, m, day] = parts;
    return [String(y), ...(m ? [String(m).padStart(2, '0')] : []), ...(m && day ? [String(day).padStart(2, '0')] : [])].join('-');
  }
  const t = d?.['date-time'];
  return t && /^\d{4}-\d{2}-\d{2}/.test(t) ? t.slice(0, 10) : undefined;
}

/** "Family, Given": unambiguous for family names of several words ("García Márquez, Gabriel"). */
function authorName(raw: unknown): string | undefined {
  const p = person.safeParse(raw);
  if (!p.success) return undefined;
  const family = p.data.family && plainText(p.data.family, 120);
  const given = p.data.given && plainText(p.data.given, 120);
  if (family) return given ? `${family}, ${given}` : family;
  const name = p.data.name && plainText(p.data.name, 200);
  return name || undefined;
}

const NOTICE_KINDS: Record<string, EditorialNotice['kind']> = {
  retraction: 'retraction',
  partial_retraction: 'partial-retraction',
  withdrawal: 'withdrawal',
  removal: 'removal',
  expression_of_concern: 'expression-of-concern',
};

function noticeOf(raw: unknown): EditorialNotice | undefined {
  const u = update.safeParse(raw);
  if (!u.success) return undefined;
  // Corrections, errata and addenda do not change whether the findings stand: not flagged.
  const kind =
    NOTICE_KINDS[
      u.data.type
        .trim()
        .toLowerCase()
        .replace(/[\s-]+/g, '_')
    ];
  if (!kind) return undefined;
  const notice: EditorialNotice = { kind };
  const doi = u.data.DOI ? normalizeDoi(u.data.DOI) : undefined;
  if (doi) notice.doi = doi;
  const date = dateOf(u.data.updated);
  if (date) notice.date = date;
  if (u.data.source && /^[a-z0-9][a-z0-9-]{0,39}$/i.test(u.data.source)) notice.source = u.data.source.toLowerCase();
  return notice;
}

const MAX_AUTHORS = 100;

/** The `message` of a `works/{doi}` response as a record; undefined when it is not a work. */
export function parseCrossrefWork(message: unknown): CrossrefRecord | undefined {
  const w = workSchema.safeParse(message);
  if (!w.success) return undefined;
  const doi = normalizeDoi(w.data.DOI);
  if (!doi) return undefined;
  const m = w.data;
  const title = m.title?.map((t) => plainText(t)).find(Boolean);
  const subtitle = m.subtitle?.map((t) => plainText(t)).find(Boolean);
  const record: CrossrefRecord = {
    doi,
    authors: (m.author ?? [])
      .map(authorName)
      .filter((a): a is string => Boolean(a))
      .slice(0, MAX_AUTHORS),
    notices: (m['updated-by'] ?? []).map(noticeOf).filter((n): n is EditorialNotice => n !== undefined),
  };
  if (title) record.title = subtitle && !title.toLowerCase().includes(subtitle.toLowerCase()) ? `${title}: ${subtitle}` : title;
  const year = yearOf(m.issued) ?? yearOf(m.published) ?? yearOf(m['published-print']) ?? yearOf(m['published-online']);
  if (year !== undefined) record.year = year;
  const journal = m['container-title']?.map((t) => plainText(t, 300)).find(Boolean);
  if (journal) record.journal = journal;
  if (m.type && /^[a-z-]{1,40}$/.test(m.type)) record.type = m.type;
  return record;
}

/** A record read back from the cache: only what parseCrossrefWork could have written. */
export function isCrossrefRecord(v: unknown): v is CrossrefRecord {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return typeof r.doi === 'string' && Array.isArray(r.authors) && r.authors.every((a) => typeof a === 'string') && Array.isArray(r.notices);
}

const SEVERITY: EditorialNotice['kind'][] = ['retraction', 'withdrawal', 'removal', 'partial-retraction', 'expression-of-concern'];

/**
 * The notice to show: the gravest kind, and of several of that kind (the publisher's and
 * Retraction Watch's entry for the same retraction) the one with a notice DOI.
 */
export function mainNotice(notices: EditorialNotice[]): EditorialNotice | undefined {
  return [...notices].sort(
    (a, b) => SEVERITY.indexOf(a.kind) - SEVERITY.indexOf(b.kind) || Number(Boolean(b.doi)) - Number(Boolean(a.doi)),
  )[0];
}

/**
 * The metadata layer Crossref's record gives a document. It names no access group (Crossref
 * cannot know who in the lab may read a file) and no DOI (the document's DOI is what was asked).
 */
export function crossrefLayer(record: CrossrefRecord): MetaLayer {
  const meta: MetaLayer['meta'] = {};
  if (record.title) meta.title = record.title;
  if (record.authors.length) meta.authors = [...record.authors];
  if (record.year !== undefined) meta.year = record.year;
  if (record.journal) meta.journal = record.journal;
  return { origin: CROSSREF_ORIGIN, meta };
}

/**
 * The layers with Crossref's placed after the lab's own (front matter, sidecars, library entries,
 * a reference manager's records) and before what the file says about itself (PDF info, Office
 * properties: often a word processor's "Microsoft Word - draft3.docx" and a login name) or what
 * was inferred from its text.
 */
export function withCrossrefLayer(layers: MetaLayer[], crossref: MetaLayer, isFilesOwn: (l: MetaLayer) => boolean): MetaLayer[] {
  const at = layers.findIndex((l) => l.inferred || isFilesOwn(l));
  return at < 0 ? [...layers, crossref] : [...layers.slice(0, at), crossref, ...layers.slice(at)];
}

const STOP = new Set([
  'the',
  'and',
  'for',
  'with',
  'from',
  'into',
  'that',
  'this',
  'are',
  'was',
  'were',
  'its',
  'not',
  'but',
  'via',
  'del',
  'der',
  'die',
  'und',
  'les',
  'des',
  'los',
  'las',
]);
const words = (text: string): string[] =>
  text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length >= 3 && !STOP.has(w));

/**
 * Whether Crossref's title for a DOI is the title of the document the DOI was found in. A DOI
 * read from a first page can be a cited paper's (a reference list, "see also"), and another
 * paper's authors, year or retraction must not be pinned on this one.
 */
export function titleMatchesText(title: string, text: string): boolean {
  const wanted = [...new Set(words(title))];
  if (wanted.length < 2) return true;
  const have = new Set(words(text));
  return wanted.filter((w) => have.has(w)).length / wanted.length >= 0.7;
}
