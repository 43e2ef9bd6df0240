// Reading the source a question names ("the Zhang 2019 paper", "our Western blot protocol").
import { describe, expect, it } from 'vitest';
import { createCatalog } from '../src/search/catalog.ts';
import {
  docMatches,
  knownSources,
  parseSourceQuery,
  readNamedSource,
  withoutSourceNames,
  type SourceDoc,
} from '../src/search/source-query.ts';
import type { Chunk, LabDocument } from '../src/types.ts';

const docs: Array<SourceDoc & { access: string; chunkIds: string[] }> = [
  {
    id: 'weber2020',
    kind: 'paper',
    authors: ['Weber, Jonas', 'Okafor, Adaeze'],
    year: 2020,
    journal: 'Journal of Cellular Stress Research',
    access: 'public',
    chunkIds: ['weber2020#0', 'weber2020#1'],
  },
  {
    id: 'okafor2023',
    kind: 'paper',
    authors: ['Adaeze Okafor', 'Hannah Lee'],
    year: 2023,
    journal: 'Journal of Cellular Stress Research',
    access: 'public',
    chunkIds: ['okafor2023#0'],
  },
  { id: 'wb', kind: 'protocol', authors: ['Hannah Lee', 'Priya Raman'], year: 2023, access: 'public', chunkIds: ['wb#0'] },
  { id: 'grant', kind: 'note', authors: ['Wei Zhang'], year: 2019, access: 'pi-only', chunkIds: ['grant#0'] },
];
const known = knownSources(docs);

describe('parseSourceQuery', () => {
  it('reads an author and year next to a kind word, and restricts to them', () => {
    const q = parseSourceQuery('In the Weber 2020 paper, how often was the chase sampled?', known);
    expect(q).toMatchObject({ authors: ['weber'], years: [2020], kinds: ['paper'], restricts: true });
    expect(q.named).toEqual(['author Weber', 'year 2020', 'kind paper']);
    expect(docs.filter((d) => docMatches(d, q)).map((d) => d.id)).toEqual(['weber2020']);
  });

  it('reads "et al." with a year in brackets, and possessives', () => {
    expect(parseSourceQuery('What did Okafor et al. (2023) find?', known)).toMatchObject({ authors: ['okafor'], years: [2023] });
    expect(parseSourceQuery("Which antibody is in Lee's protocol?", known)).toMatchObject({ authors: ['lee'], kinds: ['protocol'] });
  });

  it('reads "In Okafor et al. (2023)" as the author Okafor, not a person called "In Okafor"', () => {
    const q = parseSourceQuery('In Okafor et al. (2023), what was the p53 half-life under hypoxia?', known);
    expect(q.named).toEqual(['author Okafor', 'year 2023']);
  });

  it('leaves out the source names from the question the answer must match', () => {
    const q = parseSourceQuery('In the Weber 2020 paper, how often was the chase sampled?', known);
    expect(withoutSourceNames('In the Weber 2020 paper, how often was the chase sampled?', q, known)).toBe(
      'In the , how often was the chase sampled?',
    );
    const q2 = parseSourceQuery('In Okafor et al. (2023), what was the p53 half-life?', known);
    expect(withoutSourceNames('In Okafor et al. (2023), what was the p53 half-life?', q2, known)).toBe('In , what was the p53 half-life?');
  });

  it('takes a kind alone as a lift, not a filter', () => {
    const q = parseSourceQuery('According to our Western blot protocol, how long do we block?', known);
    expect(q).toMatchObject({ authors: [], years: [], kinds: ['protocol'], restricts: false });
  });

  it('reads a journal the index knows, as whole words', () => {
    const q = parseSourceQuery('What did the Journal of Cellular Stress Research report on p53?', known);
    expect(q.journals).toEqual(['Journal of Cellular Stress Research']);
    expect(q.restricts).toBe(true);
  });

  it('keeps an explicitly named author the index does not know, so nothing else answers', () => {
    const q = parseSourceQuery(
      'In the Zhang 2019 paper, which antibody was used?',
      knownSources(docs.filter((d) => d.access === 'public')),
    );
    expect(q.restricts).toBe(true);
    expect(q.named).toContain('author Zhang (not in the index)');
    expect(docs.filter((d) => d.access === 'public' && docMatches(d, q))).toEqual([]);
  });

  it('does not take a collective author for a family name', () => {
    const lab = knownSources([{ id: 'x', kind: 'wiki', authors: ['Okafor Lab'], access: 'public', chunkIds: [] } as SourceDoc]);
    expect(lab.authors.size).toBe(0);
    expect(parseSourceQuery('Lab meeting 2024 slides: who presents?', lab).authors).toEqual([]);
  });

  it('reads nothing in questions that name no source', () => {
    for (const text of [
      'How many cases were reported by March 2020?',
      'What is the p53 half-life in HEK293T cells?',
      'Which Western blot antibody do we use in 2024?',
      'Where is the ab32389 stored?',
    ]) {
      const q = parseSourceQuery(text, known);
      expect(q.restricts, text).toBe(false);
      expect(q.authors, text).toEqual([]);
    }
  });
});

/** A real catalog holding these documents, each chunk a text (and a page, for PDFs). */
function catalogOf(entries: Array<{ doc: SourceDoc & { access: string; path?: string }; chunks: Array<{ text: string; page?: number }> }>) {
  const c = createCatalog();
  for (const { doc, chunks } of entries) {
    const lab: LabDocument = { source: 'lab', path: doc.path ?? `${doc.id}.md`, title: doc.id, contentHash: `h-${doc.id}`, ...doc };
    c.putDocument(
      lab,
      chunks.map(
        (ch, n): Chunk => ({
          id: `${doc.id}#${n}`,
          docId: doc.id,
          text: ch.text,
          section: '',
          hash: `${doc.id}-${n}`,
          ...(ch.page ? { page: ch.page } : {}),
        }),
      ),
    );
  }
  return c;
}

describe('readNamedSource', () => {
  const catalog = catalogOf(docs.map((d) => ({ doc: d, chunks: d.chunkIds.map((id) => ({ text: `${id} text about p53` })) })));
  it('only knows and matches documents the asker may read', () => {
    const pub = readNamedSource('In the Zhang 2019 paper, what is the budget?', ['public'], catalog)!;
    expect(pub.documents).toBe(0);
    const pi = readNamedSource('In the Zhang 2019 paper, what is the budget?', ['public', 'pi-only'], catalog)!;
    expect(pi.documents).toBe(1);
    expect(pi.chunkIds).toEqual(['grant#0']);
  });

  it('is undefined when nothing is named', () => {
    expect(readNamedSource('How long do we block the membrane?', ['public'], catalog)).toBeUndefined();
  });

  // A shelf as labs keep it: PDFs without metadata, authors printed on page 1, Zotero file names.
  const shelf = catalogOf([
    {
      doc: {
        id: 'kcnk5b',
        kind: 'paper',
        authors: [],
        access: 'public',
        path: 'Sharma et al. - 2022 - Loss of kcnk5b lengthens zebrafish fins.pdf',
      },
      chunks: [
        { text: 'Loss of kcnk5b lengthens zebrafish fins\nAnika Sharma, Tomas Berg', page: 1 },
        { text: 'Fins regenerated 34% longer.', page: 3 },
      ],
    },
    {
      doc: { id: 'scales', kind: 'paper', authors: [], access: 'public', path: 'scales.pdf' },
      chunks: [
        { text: 'Scale regeneration in medaka\nLea Novak, Ivan Petrov\nReceived 2019', page: 1 },
        { text: 'As shown by Sharma et al. (2022), fins lengthen.', page: 4 },
      ],
    },
  ]);

  it('does not refuse a name no metadata matches when the index has no metadata to rule it out: it lifts the documents that carry it', () => {
    const r = readNamedSource('In Sharma et al. (2022), what happened to fin length?', ['public'], shelf)!;
    expect(r.restricts).toBe(false);
    expect(r.unmatched).toBe('Sharma 2022');
    // Its file name and page 1 carry the name; the other paper only cites it on page 4.
    expect([...r.lifted]).toEqual(['kcnk5b']);
    expect(r.liftedChunkIds).toEqual(['kcnk5b#0', 'kcnk5b#1']);
    expect(r.named).toContain('author Sharma (in no document’s metadata)');
  });

  it('reads names and years glued together in a file name', () => {
    const glued = catalogOf([
      {
        doc: { id: 'a', kind: 'paper', authors: [], access: 'public', path: 'papers/sharma2022_kcnk5b-fins.pdf' },
        chunks: [{ text: 'Fin size and potassium channels', page: 1 }],
      },
      {
        doc: { id: 'b', kind: 'paper', authors: [], access: 'public', path: 'papers/sharmaville2022.pdf' },
        chunks: [{ text: 'Fin rays', page: 1 }],
      },
    ]);
    expect([...readNamedSource('In Sharma et al. (2022), what happened to fin length?', ['public'], glued)!.lifted]).toEqual(['a']);
  });

  it('reads a byline with initials and affiliation marks, not a citation of the name on the same page', () => {
    const cat = catalogOf([
      {
        doc: { id: 'own', kind: 'paper', authors: [], access: 'public', path: 'a.pdf' },
        chunks: [{ text: 'Loss of kcnk5b\nA. Sharma1, T. Berg2\nAvailable online 2 January 2022\nAbstract\nFins grew longer.', page: 1 }],
      },
      {
        doc: { id: 'cites', kind: 'paper', authors: [], access: 'public', path: 'b.pdf' },
        chunks: [
          {
            text: 'Calcineurin and fins\nL. Novak1\nReceived 2023\nAbstract\nSharma and colleagues (2022) found longer fins (Sharma et al., 2022).',
            page: 1,
          },
        ],
      },
    ]);
    expect([...readNamedSource('In Sharma et al. (2022), what happened to fin length?', ['public'], cat)!.lifted]).toEqual(['own']);
  });

  it('reads authors printed on page 1 when the file name says nothing', () => {
    const r = readNamedSource('What did Novak et al. 2019 report on scales?', ['public'], shelf)!;
    expect([...r.lifted]).toEqual(['scales']);
  });

  it('searches everything, saying so, when nothing carries the name and no metadata could rule it out', () => {
    const r = readNamedSource('In Zhang et al. (2019), what happened to fin length?', ['public'], shelf)!;
    expect(r).toMatchObject({ restricts: false, unmatched: 'Zhang 2019', documents: 0 });
    expect(r.lifted.size).toBe(0);
  });

  it('still refuses a name the metadata of the index rules out', () => {
    const mixed = catalogOf([
      { doc: docs[0], chunks: [{ text: 'Weber hypoxia paper' }] },
      {
        doc: { id: 'kcnk5b', kind: 'paper', authors: [], access: 'public', path: 'fins.pdf' },
        chunks: [{ text: 'Loss of kcnk5b\nAnika Sharma', page: 1 }],
      },
    ]);
    expect(readNamedSource('In the Zhang 2019 paper, what is the budget?', ['public'], mixed)).toMatchObject({
      restricts: true,
      documents: 0,
    });
    // ... but not one a document without metadata carries on its first page, beside documents with metadata.
    const sharma = readNamedSource('In Sharma et al. (2022), what happened to fin length?', ['public'], mixed)!;
    expect(sharma.restricts).toBe(false);
    expect([...sharma.lifted]).toEqual(['kcnk5b']);
  });

  it('does not lift a document whose own year disagrees with the one named', () => {
    const wrongYear = catalogOf([
      {
        doc: { id: 'old', kind: 'paper', authors: ['Anika Sharma'], year: 2019, access: 'public', path: 'old.pdf' },
        chunks: [{ text: 'Fin rays\nAnika Sharma 2019', page: 1 }],
      },
    ]);
    expect(readNamedSource('In Sharma et al. (2022), what happened to fin length?', ['public'], wrongYear)).toMatchObject({
      restricts: true,
      documents: 0,
    });
  });
});
