// The names documents can be asked by (author family names, journals, years), indexed per
// document as the catalog adds and removes them, so reading a question's source names costs what
// the names match instead of a pass over every document on every question. Answers are those of
// knownSources and docMatches over the readable documents in catalog order (the order documents
// were added, a re-added document going last), which is what the tests hold it to.
import { familyOf, type KnownSources, type SourceDoc, type SourceNames, type SourceQuery } from './source-query.ts';

/** One document under one key: when it was added (catalog order), its group, the name as spelled. */
interface Entry {
  seq: number;
  group: string;
  spelling: string;
}
/** Key -> document id -> entry. Inner maps iterate in catalog order: documents are only ever appended. */
type Postings<K> = Map<K, Map<string, Entry>>;

/** What one document was indexed under, to remove it by. */
interface Keys {
  known: string[];
  families: string[];
  journal?: string;
  journalExact?: string;
  year?: number;
}

export interface SourceIndex extends SourceNames {
  add(doc: SourceDoc & { access: string }): void;
  remove(docId: string): void;
}

const put = <K>(p: Postings<K>, key: K, docId: string, e: Entry) => {
  let m = p.get(key);
  if (!m) p.set(key, (m = new Map()));
  m.set(docId, e);
};
const drop = <K>(p: Postings<K>, key: K, docId: string) => {
  const m = p.get(key);
  if (m?.delete(docId) && m.size === 0) p.delete(key);
};

export function createSourceIndex(): SourceIndex {
  let seq = 0;
  const byDoc = new Map<string, Keys>();
  /** Family names of length 2 or more, as knownSources keeps them. */
  const known: Postings<string> = new Map();
  /** Every family name, as docMatches compares them. */
  const families: Postings<string> = new Map();
  /** Trimmed journal names of length 4 or more, as knownSources keeps them. */
  const journals: Postings<string> = new Map();
  /** Journal names lower-cased untrimmed, as docMatches compares them. */
  const journalExact: Postings<string> = new Map();
  const years: Postings<number> = new Map();

  function remove(docId: string): void {
    const k = byDoc.get(docId);
    if (!k) return;
    for (const key of k.known) drop(known, key, docId);
    for (const key of k.families) drop(families, key, docId);
    if (k.journal !== undefined) drop(journals, k.journal, docId);
    if (k.journalExact !== undefined) drop(journalExact, k.journalExact, docId);
    if (k.year !== undefined) drop(years, k.year, docId);
    byDoc.delete(docId);
  }

  function add(doc: SourceDoc & { access: string }): void {
    remove(doc.id);
    const at = seq++;
    const entry = (spelling: string): Entry => ({ seq: at, group: doc.access, spelling });
    const keys: Keys = { known: [], families: [] };
    for (const a of doc.authors) {
      const family = familyOf(a);
      const lower = family.toLowerCase();
      // A later author of the same family overwrites the spelling, as in knownSources.
      if (family.length >= 2) {
        put(known, lower, doc.id, entry(family));
        if (!keys.known.includes(lower)) keys.known.push(lower);
      }
      put(families, lower, doc.id, entry(family));
      if (!keys.families.includes(lower)) keys.families.push(lower);
    }
    const j = doc.journal?.trim();
    if (j && j.length >= 4) put(journals, (keys.journal = j.toLowerCase()), doc.id, entry(j));
    if (doc.journal !== undefined) put(journalExact, (keys.journalExact = doc.journal.toLowerCase()), doc.id, entry(doc.journal));
    if (doc.year !== undefined) put(years, (keys.year = doc.year), doc.id, entry(String(doc.year)));
    byDoc.set(doc.id, keys);
  }

  return {
    add,
    remove,
    known: (groups) => knownIn(known, journals, new Set(groups)),
    candidates: (q, groups) => candidatesIn(q, new Set(groups)),
  };

  /** Documents of the groups that can match the query's authors, years and journals (docMatches decides), in catalog order. */
  function candidatesIn(q: Pick<SourceQuery, 'authors' | 'years' | 'journals'>, groups: Set<string>): string[] {
    const lists: Map<string, Entry>[][] = [];
    if (q.years.length) lists.push(q.years.flatMap((y) => years.get(y) ?? []));
    if (q.journals.length) lists.push(q.journals.flatMap((j) => journalExact.get(j.toLowerCase()) ?? []));
    // Every named author must be among the document's: any one author's documents will do, the fewest best.
    for (const a of q.authors) lists.push([families.get(a) ?? new Map()]);
    if (lists.length === 0) return [];
    const size = (l: Map<string, Entry>[]) => l.reduce((n, m) => n + m.size, 0);
    const fewest = lists.reduce((best, l) => (size(l) < size(best) ? l : best));
    const out = new Map<string, number>();
    for (const m of fewest) for (const [id, e] of m) if (groups.has(e.group)) out.set(id, e.seq);
    return [...out].sort((a, b) => a[1] - b[1]).map(([id]) => id);
  }
}

/** The last entry (in catalog order) of a readable document, if any. */
function lastIn(m: Map<string, Entry> | undefined, groups: Set<string>): Entry | undefined {
  let last: Entry | undefined;
  for (const e of m?.values() ?? []) if (groups.has(e.group)) last = e;
  return last;
}

function firstIn(m: Map<string, Entry>, groups: Set<string>): Entry | undefined {
  for (const e of m.values()) if (groups.has(e.group)) return e;
  return undefined;
}

/**
 * KnownSources of the readable documents, read from the postings: an author's spelling is its last
 * readable document's, and journals come in the order of their first readable document, as
 * knownSources builds its maps from the documents in order.
 */
function knownIn(known: Postings<string>, journals: Postings<string>, groups: Set<string>): KnownSources {
  return {
    authors: {
      has: (key) => firstIn(known.get(key) ?? new Map(), groups) !== undefined,
      get: (key) => lastIn(known.get(key), groups)?.spelling,
    },
    journals: {
      *[Symbol.iterator]() {
        const readable: [key: string, first: number, spelling: string][] = [];
        for (const [key, m] of journals) {
          const first = firstIn(m, groups);
          if (first) readable.push([key, first.seq, lastIn(m, groups)!.spelling]);
        }
        readable.sort((a, b) => a[1] - b[1]);
        for (const [key, , spelling] of readable) yield [key, spelling] as [string, string];
      },
    },
  };
}
