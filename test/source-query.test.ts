// Reading the source a question names ("the Zhang 2019 paper", "our Western blot protocol").
import { describe, expect, it } from 'vitest';
import { docMatches, knownSources, parseSourceQuery, readNamedSource, withoutSourceNames, type SourceDoc } from '../src/search/source-query.ts';

const docs: Array<SourceDoc & { access: string; chunkIds: string[] }> = [
  { id: 'weber2020', kind: 'paper', authors: ['Weber, Jonas', 'Okafor, Adaeze'], year: 2020, journal: 'Journal of Cellular Stress Research', access: 'public', chunkIds: ['weber2020#0', 'weber2020#1'] },
  { id: 'okafor2023', kind: 'paper', authors: ['Adaeze Okafor', 'Hannah Lee'], year: 2023, journal: 'Journal of Cellular Stress Research', access: 'public', chunkIds: ['okafor2023#0'] },
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
    const q = parseSourceQuery("In the Weber 2020 paper, how often was the chase sampled?", known);
    expect(withoutSourceNames("In the Weber 2020 paper, how often was the chase sampled?", q, known)).toBe('In the , how often was the chase sampled?');
    const q2 = parseSourceQuery("In Okafor et al. (2023), what was the p53 half-life?", known);
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
    const q = parseSourceQuery('In the Zhang 2019 paper, which antibody was used?', knownSources(docs.filter((d) => d.access === 'public')));
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

describe('readNamedSource', () => {
  const catalog = { docs: () => docs };
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
});
