import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../bench/prng.ts';
import { createCatalog } from '../src/search/catalog.ts';
import { createSourceIndex } from '../src/search/source-index.ts';
import { docMatches, knownSources, parseSourceQuery, type SourceDoc, type SourceQuery } from '../src/search/source-query.ts';

type Doc = SourceDoc & { access: string };

const FAMILIES = ['Okafor', 'okafor', 'OKAFOR', 'Zhang', 'Li', 'van der Berg', 'Sharma', 'Ng', 'Weber'];
const JOURNALS = ['Cell', 'Nature', ' Nature ', 'nature', 'J Biol Chem', 'PLoS One', 'Gut'];
const GROUPS = ['public', 'pi-only', 'lab'];

/** A random document: authors written every way familyOf reads them, journals with odd spacing and case. */
function randomDoc(rand: () => number, id: string): Doc {
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
  const authors = Array.from({ length: Math.floor(rand() * 4) }, () => {
    const f = pick(FAMILIES);
    return pick([`${f}, A.`, `Ana ${f}`, `${f} AN`, `${f} Lab`, f]);
  });
  const doc: Doc = { id, kind: 'paper', authors, access: pick(GROUPS) };
  if (rand() < 0.7) doc.year = 2018 + Math.floor(rand() * 5);
  if (rand() < 0.6) doc.journal = pick(JOURNALS);
  return doc;
}

/** knownSources as plain entries, in iteration order. */
const entriesOf = (k: { authors: Pick<ReadonlyMap<string, string>, 'get'>; journals: Iterable<[string, string]> }, keys: string[]) => ({
  authors: keys.map((key) => [key, k.authors.get(key)]),
  journals: [...k.journals],
});

describe('source index', () => {
  it('answers as knownSources and docMatches over the readable documents in catalog order, through adds, re-adds and removals', () => {
    const rand = mulberry32(7);
    const index = createSourceIndex();
    // The reference: a Map in catalog order (a re-added document goes last, as in the catalog).
    const docs = new Map<string, Doc>();
    const keys = [...new Set(FAMILIES.map((f) => f.toLowerCase())), 'nobody'];
    const queries: Pick<SourceQuery, 'authors' | 'years' | 'journals'>[] = [
      { authors: ['okafor'], years: [], journals: [] },
      { authors: ['okafor', 'zhang'], years: [2019], journals: [] },
      { authors: [], years: [2020, 2021], journals: [] },
      { authors: [], years: [], journals: ['Nature'] },
      { authors: ['li'], years: [], journals: ['Cell'] },
      { authors: ['nobody'], years: [], journals: [] },
    ];
    for (let step = 0; step < 600; step++) {
      const id = `d${Math.floor(rand() * 60)}`;
      if (rand() < 0.3) {
        docs.delete(id);
        index.remove(id);
      } else {
        const d = randomDoc(rand, id);
        docs.delete(id);
        docs.set(id, d);
        index.add(d);
      }
      if (step % 20 !== 0) continue;
      for (const groups of [['public'], ['public', 'pi-only'], GROUPS, []]) {
        const readable = [...docs.values()].filter((d) => groups.includes(d.access));
        expect(entriesOf(index.known(groups), keys)).toEqual(entriesOf(knownSources(readable), keys));
        for (const key of keys) expect(index.known(groups).authors.has(key)).toBe(knownSources(readable).authors.has(key));
        for (const q of queries) {
          const full = { ...q, named: [], kinds: [], restricts: true } as SourceQuery;
          const matching = readable.filter((d) => docMatches(d, full)).map((d) => d.id);
          const candidates = index.candidates(q, groups);
          // Every matching document is a candidate, and candidates come in catalog order.
          expect(candidates.filter((id) => docMatches(docs.get(id)!, full))).toEqual(matching);
          expect(candidates).toEqual(readable.map((d) => d.id).filter((id) => candidates.includes(id)));
        }
      }
    }
  });

  it('is kept by the catalog: put, replace, remove and a snapshot restore answer alike', () => {
    const catalog = createCatalog();
    const put = (d: Doc) =>
      catalog.putDocument({ ...d, source: 'lab', path: `${d.id}.pdf`, title: d.id, contentHash: `h-${d.id}` }, [
        { id: `${d.id}#0`, docId: d.id, hash: `${d.id}-0`, section: '', text: `${d.id} text` },
      ]);
    put({ id: 'a', kind: 'paper', authors: ['Okafor, A.'], year: 2023, journal: 'Cell', access: 'public' });
    put({ id: 'b', kind: 'paper', authors: ['Beatriz OKAFOR'], year: 2021, access: 'public' });
    put({ id: 'c', kind: 'paper', authors: ['Zhang W'], year: 2023, journal: 'Nature', access: 'pi-only' });
    const q = parseSourceQuery('In the Okafor 2023 paper, what was the dose?', catalog.sources.known(['public']));
    expect(q.authors).toEqual(['okafor']);
    // The later document's spelling, as knownSources would give it.
    expect(catalog.sources.known(['public']).authors.get('okafor')).toBe('OKAFOR');
    expect(catalog.sources.candidates(q, ['public'])).toEqual(['a']);
    // Replaced with other metadata: its old names are gone.
    put({ id: 'a', kind: 'paper', authors: ['Sharma, R.'], year: 2020, access: 'public' });
    expect(catalog.sources.candidates(q, ['public'])).toEqual([]);
    expect(catalog.sources.known(['public']).authors.get('sharma')).toBe('Sharma');
    expect([...catalog.sources.known(['public', 'pi-only']).journals]).toEqual([['nature', 'Nature']]);
    catalog.removeDocument('b');
    expect(catalog.sources.known(['public']).authors.has('okafor')).toBe(false);
    const restored = createCatalog(catalog.snapshot());
    for (const groups of [['public'], ['public', 'pi-only']]) {
      const keys = ['okafor', 'sharma', 'zhang'];
      expect(entriesOf(restored.sources.known(groups), keys)).toEqual(entriesOf(catalog.sources.known(groups), keys));
      expect(restored.sources.candidates({ authors: [], years: [2020, 2023], journals: [] }, groups)).toEqual(
        catalog.sources.candidates({ authors: [], years: [2020, 2023], journals: [] }, groups),
      );
    }
    expect(restored.sources.candidates({ authors: [], years: [2023], journals: [] }, ['public', 'pi-only'])).toEqual(['c']);
  });
});
