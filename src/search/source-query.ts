// Questions that name their source: "in the Zhang 2019 paper, which antibody…", "according to our
// Western blot protocol…", "in last week's lab-meeting slides…". Read in code (no model): author
// family names known to the index, years next to an author or a kind word, journal names known to
// the index, and kind words. Authors, years and journals restrict the answer to the documents they
// name; kinds only lift passages of that kind (people say "the paper" of a protocol). Pure: the
// documents to match against are passed in.
import type { Kind } from '../types.ts';

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
  authors: Map<string, string>;
  /** Lower-case journal name -> as spelled in the index. */
  journals: Map<string, string>;
}

// Particles stay with the family name ("van der Berg"); a name is matched by its last word too.
const familyOf = (author: string): string => {
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
export function knownSources(docs: Iterable<SourceDoc>): KnownSources {
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
  ...'what which who how when where why in on at by from according the our this that does do did is are was were western northern southern'.split(' '),
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
    if (at >= 0 && !/[\p{L}\p{N}]/u.test(lower[at + key.length] ?? '') && !/[\p{L}\p{N}]/u.test(lower[at - 1] ?? '')) journals.push(journal);
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
}

/** Chunks of named documents added as candidates at most (a named source of a few papers). */
const MAX_NAMED_CHUNKS = 400;

/** What `readNamedSource` needs of the catalog. */
export interface SourceCatalog {
  docs(): Iterable<SourceDoc & { access: string; chunkIds: string[] }>;
}

/**
 * Reads the source names of a question against the documents the asker may read. Undefined when
 * the question names no source.
 */
export function readNamedSource(question: string, groups: string[], catalog: SourceCatalog): NamedSource | undefined {
  const allowed = new Set(groups);
  const readable = [...catalog.docs()].filter((d) => allowed.has(d.access));
  const known = knownSources(readable);
  const q = parseSourceQuery(question, known);
  if (q.named.length === 0) return undefined;
  const matching = q.restricts ? readable.filter((d) => docMatches(d, q)) : [];
  const chunks = matching.reduce((s, d) => s + d.chunkIds.length, 0);
  return {
    ...q,
    documents: matching.length,
    docIds: new Set(matching.map((d) => d.id)),
    chunkIds: chunks <= MAX_NAMED_CHUNKS ? matching.flatMap((d) => d.chunkIds) : [],
    described: describeNamed(q, known),
    topic: withoutSourceNames(question, q, known),
  };
}

/**
 * The question without the words that name its source ("in the Weber 2020 paper"): those say
 * which document, not what the answer says, so they must not count as evidence for a sentence.
 */
export function withoutSourceNames(question: string, q: SourceQuery, known: KnownSources): string {
  let out = question.replace(/\bet\s+al\.?/gu, ' ');
  const names = [
    ...q.authors.map((a) => known.authors.get(a) ?? a),
    ...q.years.map(String),
    ...q.journals,
  ];
  for (const name of names) {
    const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    out = out.replace(new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?:['’]s)?(?![\\p{L}\\p{N}])`, 'giu'), ' ');
  }
  for (const [kind, re] of KIND_WORDS) if (q.kinds.includes(kind)) out = out.replace(new RegExp(re.source, 'gi'), ' ');
  return out.replace(/\(\s*\)/g, ' ').replace(/\s+/g, ' ').trim();
}
