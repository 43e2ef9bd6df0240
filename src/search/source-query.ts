// Questions that name their source: "in the Zhang 2019 paper, which antibody…", "according to our
// Western blot protocol…", "in last week's lab-meeting slides…". Read in code (no model): author
// family names known to the index, years next to an author or a kind word, journal names known to
// the index, and kind words. Authors, years and journals restrict the answer to the documents they
// name; kinds only lift passages of that kind (people say "the paper" of a protocol). Pure: the
// documents to match against are passed in.
import type { Kind } from '../types.ts';
import { tokenize } from './tokenize.ts';

/** What a document offers to be named by. */
export interface SourceDoc {
  id: string;
  kind: Kind;
  authors: string[];
  year?: number;
  journal?: string;
}

export interface SourceQuery {
  /** How the question's source names were read, for people: "author Okafor", "year 2023", "kind protocol". */
  named: string[];
  /** Lower-case family names. */
  authors: string[];
  years: number[];
  /** Journal names as the index spells them. */
  journals: string[];
  kinds: Kind[];
  /** An author, year or journal was named: only matching documents may answer. */
  restricts: boolean;
}

export interface KnownSources {
  /** Lower-case family name -> as spelled in the index. */
  authors: Pick<ReadonlyMap<string, string>, 'has' | 'get'>;
  /** Lower-case journal name -> as spelled in the index, in the order of the documents first naming each. */
  journals: Iterable<[string, string]>;
}

/** The source names of a catalog's documents by access group, kept as documents come and go (see source-index.ts). */
export interface SourceNames {
  /** What knownSources reads from the documents of these groups. */
  known(groups: readonly string[]): KnownSources;
  /** The documents of these groups that may match (every one docMatches accepts among them), in catalog order. */
  candidates(q: Pick<SourceQuery, 'authors' | 'years' | 'journals'>, groups: readonly string[]): string[];
}

// Particles stay with the family name ("van der Berg"); a name is matched by its last word too.
export const familyOf = (author: string): string => {
  const name = author.replace(/[{}]/g, '').trim();
  // A collective author ("Okafor Lab", "ENCODE Consortium") has no family name to be asked by.
  if (/\b(?:consortium|group|lab|laboratory|team|institute|committee|network|project)\b/i.test(name)) return '';
  const comma = name.indexOf(',');
  if (comma > 0) return name.slice(0, comma).trim();
  const parts = name.split(/\s+/);
  // "Okafor A" / "Okafor AN": family name first, initials after (PubMed style).
  if (parts.length > 1 && /^(?:\p{Lu}\.?-?){1,3}$/u.test(parts[parts.length - 1]) && !/^(?:\p{Lu}\.?-?){1,3}$/u.test(parts[0])) {
    return parts.slice(0, -1).join(' ');
  }
  return parts[parts.length - 1] ?? '';
};

/** The author family names and journal names of the indexed documents. */
export function knownSources(docs: Iterable<SourceDoc>): KnownSources & { authors: Map<string, string>; journals: Map<string, string> } {
  const authors = new Map<string, string>();
  const journals = new Map<string, string>();
  for (const d of docs) {
    for (const a of d.authors) {
      const family = familyOf(a);
      // Very short names ("Li", "Ng") are matched only in an explicit pattern (see AUTHOR_PATTERNS).
      if (family.length >= 2) authors.set(family.toLowerCase(), family);
    }
    const j = d.journal?.trim();
    if (j && j.length >= 4) journals.set(j.toLowerCase(), j);
  }
  return { authors, journals };
}

// Only words that name a kind of document in lab speech: "presentation" (clinical presentation),
// "manual" (manual counting) or "study" are too often something else.
const KIND_WORDS: Array<[Kind, RegExp]> = [
  ['paper', /\b(?:paper|article|art[ií]culo|publication|publicaci[oó]n|preprint)s?\b/i],
  ['protocol', /\b(?:protocol|protocolo|SOP)s?\b/i],
  ['slides', /\b(?:slides?|slide deck|diapositivas?)\b/i],
  ['wiki', /\bwiki\b/i],
];
const KIND_WORD = /(?:paper|article|art[ií]culo|publication|preprint|study|protocol|protocolo|slides?|wiki)s?/.source;
const NAME = /\p{Lu}[\p{Ll}'’]+(?:-\p{Lu}[\p{Ll}'’]+)?/u.source;
const YEAR = /(?:19[5-9]\d|20\d\d)/.source;

// Phrases that name an author whether or not the index knows them: a name that is not in the
// index then means the source is missing, not that the question is about something else.
const AUTHOR_PATTERNS = [
  new RegExp(`(${NAME})\\s+et\\s+al\\.?(?:,?\\s*\\(?(${YEAR})\\)?)?`, 'gu'),
  new RegExp(`(${NAME})(?:\\s+(?:and|&|y)\\s+${NAME})?,?\\s+\\(?(${YEAR})\\)?\\s+${KIND_WORD}\\b`, 'gu'),
  new RegExp(`(${NAME})['’]s\\s+(?:(${YEAR})\\s+)?${KIND_WORD}\\b`, 'gu'),
];
// A name the index knows, followed by a year: "Okafor 2023", "Okafor (2023)".
const KNOWN_NAME_YEAR = new RegExp(`(${NAME}),?\\s+\\(?(${YEAR})\\)?`, 'gu');
const YEAR_WITH_KIND = [
  new RegExp(`\\b(${YEAR})\\s+${KIND_WORD}\\b`, 'giu'),
  new RegExp(`\\b${KIND_WORD}\\s+(?:from|of|in|de|del)\\s+(${YEAR})\\b`, 'giu'),
];
// Capitalised words that start questions or name methods, never people.
const NOT_NAMES = new Set([
  ...'what which who how when where why in on at by from according the our this that does do did is are was were western northern southern'.split(
    ' ',
  ),
  ...'january february march april may june july august september october november december'.split(' '),
]);

export function parseSourceQuery(question: string, known: KnownSources): SourceQuery {
  const authors = new Set<string>();
  const years = new Set<number>();
  const named: string[] = [];
  const unknownAuthors = new Set<string>();

  for (const re of AUTHOR_PATTERNS) {
    for (const m of question.matchAll(re)) {
      const name = m[1];
      if (NOT_NAMES.has(name.toLowerCase())) continue;
      const key = name.toLowerCase();
      if (known.authors.has(key)) authors.add(key);
      else unknownAuthors.add(name);
      if (m[2]) years.add(Number(m[2]));
    }
  }
  for (const m of question.matchAll(KNOWN_NAME_YEAR)) {
    const key = m[1].toLowerCase();
    if (known.authors.has(key)) {
      authors.add(key);
      years.add(Number(m[2]));
    }
  }
  // A known family name written as a name (capitalised) anywhere in the question.
  for (const m of question.matchAll(new RegExp(NAME, 'gu'))) {
    const key = m[0].toLowerCase();
    if (key.length >= 3 && known.authors.has(key) && !NOT_NAMES.has(key)) authors.add(key);
  }
  for (const re of YEAR_WITH_KIND) for (const m of question.matchAll(re)) years.add(Number(m[1]));

  const lower = question.toLowerCase();
  const journals: string[] = [];
  for (const [key, journal] of known.journals) {
    const at = lower.indexOf(key);
    // Whole words only: "Cell" must not match "cells".
    if (at >= 0 && !/[\p{L}\p{N}]/u.test(lower[at + key.length] ?? '') && !/[\p{L}\p{N}]/u.test(lower[at - 1] ?? ''))
      journals.push(journal);
  }
  const kinds = KIND_WORDS.filter(([, re]) => re.test(question)).map(([k]) => k);

  for (const a of authors) named.push(`author ${known.authors.get(a)}`);
  for (const a of unknownAuthors) named.push(`author ${a} (not in the index)`);
  for (const y of years) named.push(`year ${y}`);
  for (const j of journals) named.push(`journal ${j}`);
  for (const k of kinds) named.push(`kind ${k}`);
  return {
    named,
    // An author the index does not know still restricts: no document can match, so none answers.
    authors: [...authors, ...[...unknownAuthors].map((a) => a.toLowerCase())],
    years: [...years],
    journals,
    kinds,
    restricts: authors.size + unknownAuthors.size + years.size + journals.length > 0,
  };
}

/** Whether a document is one the question names (every named author, year and journal must fit). */
export function docMatches(doc: SourceDoc, q: SourceQuery): boolean {
  if (q.years.length && (doc.year === undefined || !q.years.includes(doc.year))) return false;
  if (q.journals.length && !q.journals.some((j) => doc.journal?.toLowerCase() === j.toLowerCase())) return false;
  if (q.authors.length) {
    const families = new Set(doc.authors.map((a) => familyOf(a).toLowerCase()));
    if (!q.authors.every((a) => families.has(a))) return false;
  }
  return true;
}

/** "Okafor 2023" / "the Western blot protocol": the named source for a sentence to the user. */
export function describeNamed(q: SourceQuery, known: KnownSources): string {
  const parts = [
    ...q.authors.map((a) => known.authors.get(a) ?? a.replace(/^\p{Ll}/u, (c) => c.toUpperCase())),
    ...q.years.map(String),
    ...q.journals,
  ];
  return parts.join(' ');
}

/** The parse of a question's source names, with the documents (readable by the asker) it names. */
export interface NamedSource extends SourceQuery {
  /** Documents that match the named author/year/journal (all readable ones when nothing restricts). */
  documents: number;
  docIds: Set<string>;
  /** Chunks of the named documents when they are few enough to all compete; else empty. */
  chunkIds: string[];
  /** "Okafor 2023": the named source, for a sentence to the user. */
  described: string;
  /** The question without its source names: what the answer must say. */
  topic: string;
  /**
   * Set when no document's metadata matches the names and the index cannot rule the source out
   * (see readNamedSource): the names as described, which the answer says were not matched.
   */
  unmatched?: string;
  /** Documents whose first page, file name or partial metadata carry the names: ranked first. */
  lifted: Set<string>;
  /** Chunks of the lifted documents when they are few enough to all compete; else empty. */
  liftedChunkIds: string[];
}

/** Chunks of named documents added as candidates at most (a named source of a few papers). */
const MAX_NAMED_CHUNKS = 400;
/** Chunks holding a name that are looked at, at most (a name is rare; "2021" is not). */
const NAME_LOOKUP_LIMIT = 20_000;
/** Without pages, the chunks that make a document's first page: its first few. */
const FRONT_CHUNKS = 2;

type CatalogDoc = SourceDoc & { access: string; chunkIds: string[]; path?: string };

/** What `readNamedSource` needs of the catalog. */
export interface SourceCatalog {
  /** Every document: read only when the question's names match no document's metadata. */
  docs(): Iterable<CatalogDoc>;
  doc(docId: string): CatalogDoc | undefined;
  sources: SourceNames;
  /** Chunks (in the groups searched) whose text holds an analysed term (see tokenize). */
  idsWithTerm(groups: string[], term: string, limit: number): string[];
  chunkInfo(chunkId: string): { docId: string; page?: number } | undefined;
  /** A chunk with its text (read only for the first chunk of a document holding a name). */
  chunk(chunkId: string): { text: string } | undefined;
}

/**
 * Reads the source names of a question against the documents the asker may read. Undefined when
 * the question names no source. Names restrict the answer to the documents whose metadata matches
 * them. When none does, a name is not taken to mean the source is missing unless the index could
 * say so: documents whose first page, file name or partial metadata carry the names are ranked
 * first (a PDF with no metadata prints its authors on page 1; Zotero names files "Sharma et al. -
 * 2022 - …"); failing those, the question is refused only when readable documents carry metadata
 * of the kind named (authors, years) that disagrees, and otherwise searched as if unnamed. Either
 * way the answer says which name was not matched.
 */
export function readNamedSource(question: string, groups: string[], catalog: SourceCatalog): NamedSource | undefined {
  const known = catalog.sources.known(groups);
  const q = parseSourceQuery(question, known);
  if (q.named.length === 0) return undefined;
  const matching = q.restricts
    ? catalog.sources
        .candidates(q, groups)
        .map((id) => catalog.doc(id))
        .filter((d): d is CatalogDoc => d !== undefined && docMatches(d, q))
    : [];
  const described = describeNamed(q, known);
  const base = {
    ...q,
    described,
    topic: withoutSourceNames(question, q, known),
    lifted: new Set<string>(),
    liftedChunkIds: [] as string[],
  };
  const named = (docs: CatalogDoc[]) => {
    const chunks = docs.reduce((n, d) => n + d.chunkIds.length, 0);
    return { ids: new Set(docs.map((d) => d.id)), chunkIds: chunks <= MAX_NAMED_CHUNKS ? docs.flatMap((d) => d.chunkIds) : [] };
  };
  if (!q.restricts || matching.length > 0) {
    const m = named(matching);
    return { ...base, documents: matching.length, docIds: m.ids, chunkIds: m.chunkIds };
  }
  const allowed = new Set(groups);
  const readable = [...catalog.docs()].filter((d) => allowed.has(d.access));
  const carrying = carryingNames(q, readable, groups, catalog);
  if (carrying.length === 0 && canRuleOut(q, readable)) return { ...base, documents: 0, docIds: new Set(), chunkIds: [] };
  const lifted = named(carrying);
  return {
    ...base,
    named: q.named.map((n) => n.replace(' (not in the index)', ' (in no document’s metadata)')),
    restricts: false,
    documents: 0,
    docIds: new Set(),
    chunkIds: [],
    unmatched: described,
    lifted: lifted.ids,
    liftedChunkIds: lifted.chunkIds,
  };
}

/** Readable documents hold metadata of every kind the question names, so a name they lack is missing. */
function canRuleOut(q: SourceQuery, readable: CatalogDoc[]): boolean {
  if (q.authors.length && !readable.some((d) => d.authors.length > 0)) return false;
  if (q.years.length && !readable.some((d) => d.year !== undefined)) return false;
  return true;
}

const fold = (s: string): string =>
  s
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();

/**
 * The documents that carry the named authors and years. Best, where a document names its own:
 * its metadata, its file name ("Sharma et al. - 2022 - …"), or its first chunk (a PDF's title
 * block: title, byline, journal line) other than inside a citation ("Sharma et al., 2022"). Failing
 * those, documents that carry the authors so and have no year of their own to disagree with the
 * one named. Failing those, documents whose first page mentions the names (a paper that cites the
 * named one and states its finding).
 */
function carryingNames(q: SourceQuery, readable: CatalogDoc[], groups: string[], catalog: SourceCatalog): CatalogDoc[] {
  /** Documents with a chunk holding every analysed term of the name, and which chunks. */
  const holding = (name: string): string[] => {
    let ids: string[] | undefined;
    for (const t of tokenize(name)) {
      const hits = new Set(catalog.idsWithTerm(groups, t, NAME_LOOKUP_LIMIT));
      ids = ids ? ids.filter((id) => hits.has(id)) : [...hits];
    }
    return ids ?? [];
  };
  const docsWith = (ids: string[], keep: (id: string) => boolean): Set<string> =>
    new Set(ids.filter(keep).map((id) => catalog.chunkInfo(id)?.docId ?? ''));
  const titles = new Map<string, string>();
  const titleOf = (docId: string): string => {
    let t = titles.get(docId);
    if (t === undefined) titles.set(docId, (t = fold(titleBlock(catalog.chunk(`${docId}#0`)?.text ?? ''))));
    return t;
  };
  // File names glue names and years together ("sharma2022_fins.pdf"): a name ends at a non-letter, a year at a non-digit.
  const inFileName = (d: CatalogDoc, name: string): boolean => {
    const n = escapeRegExp(fold(name));
    const re = /^\d+$/.test(name) ? `(?<!\\p{N})${n}(?!\\p{N})` : `(?<!\\p{L})${n}(?!\\p{L})`;
    return new RegExp(re, 'u').test(fold((d.path ?? '').split(/[\\/]/).pop() ?? ''));
  };
  // In the title block a name counts when it is not a citation ("Sharma et al.", "(Sharma, 2019)");
  // affiliation marks may follow it ("Sharma1,2", which the index holds as one word, so every
  // readable document's title block is read, not the index's postings). A year counts anywhere in
  // it (the journal line, "Available online 2 January 2022").
  const bylineAuthor = q.authors.map((a) => {
    const own = new RegExp(`(?<![\\p{L}\\p{N}(])${escapeRegExp(fold(a))}(?!\\p{L})(?!\\s+et\\s+al)(?!,?\\s*\\(?\\d{4})(?!\\d{3})`, 'u');
    return new Set(readable.filter((d) => own.test(titleOf(d.id))).map((d) => d.id));
  });
  const yearRe = q.years.map((y) => new RegExp(`(?<!\\p{N})${y}(?!\\p{N})`, 'u'));
  const ownAuthors = (d: CatalogDoc) =>
    q.authors.every((a, i) => d.authors.some((x) => familyOf(x).toLowerCase() === a) || inFileName(d, a) || bylineAuthor[i].has(d.id));
  // Years are read only from documents that carry the authors (or from those whose first chunk
  // holds the year, when only a year is named): a year is in thousands of documents.
  const yearFirst = q.authors.length ? undefined : q.years.map((y) => docsWith(holding(String(y)), (id) => chunkOrdinal(id) === 0));
  const ownYears = (d: CatalogDoc) =>
    q.years.every(
      (y, i) => d.year === y || inFileName(d, String(y)) || ((yearFirst?.[i].has(d.id) ?? true) && yearRe[i].test(titleOf(d.id))),
    );
  const authored = q.authors.length ? readable.filter(ownAuthors) : readable;
  const own = authored.filter(ownYears);
  if (own.length) return own;
  const undated = q.authors.length ? authored.filter((d) => d.year === undefined) : [];
  if (undated.length) return undated;
  // Last: the first page mentions every name (a paper citing the named one, stating its finding).
  const onFrontPage = (id: string) => {
    const page = catalog.chunkInfo(id)?.page;
    return page === 1 || (page === undefined && chunkOrdinal(id) < FRONT_CHUNKS);
  };
  const mentioned = [...q.authors, ...q.years.map(String)].map((n) => docsWith(holding(n), onFrontPage));
  return readable.filter((d) => mentioned.every((m) => m.has(d.id)));
}

/** Where a paper prints its byline and journal line: the start of its first chunk, before its abstract. */
const TITLE_BLOCK_CHARS = 800;
const FIRST_SECTION = /\n\s*(?:\d\.?\s*)?(?:abstract|summary|introduction|background|resumen|introducci[oó]n)\b/i;
function titleBlock(chunkText: string): string {
  const body = chunkText.slice(chunkText.indexOf('\n') + 1, chunkText.indexOf('\n') + 1 + TITLE_BLOCK_CHARS);
  const end = FIRST_SECTION.exec(body)?.index;
  return end === undefined ? body : body.slice(0, end);
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function chunkOrdinal(chunkId: string): number {
  const m = /#(\d+)$/.exec(chunkId);
  return m ? Number(m[1]) : 0;
}

/**
 * The question without the words that name its source ("in the Weber 2020 paper"): those say
 * which document, not what the answer says, so they must not count as evidence for a sentence.
 */
export function withoutSourceNames(question: string, q: SourceQuery, known: KnownSources): string {
  let out = question.replace(/\bet\s+al\.?/gu, ' ');
  const names = [...q.authors.map((a) => known.authors.get(a) ?? a), ...q.years.map(String), ...q.journals];
  for (const name of names) {
    const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    out = out.replace(new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?:['’]s)?(?![\\p{L}\\p{N}])`, 'giu'), ' ');
  }
  for (const [kind, re] of KIND_WORDS) if (q.kinds.includes(kind)) out = out.replace(new RegExp(re.source, 'gi'), ' ');
  return out
    .replace(/\(\s*\)/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}
