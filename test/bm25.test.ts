import { describe, expect, it } from 'vitest';
import { createLexicalIndex, type LexicalHit } from '../src/search/bm25.ts';
import { tokenize } from '../src/search/tokenize.ts';
import { mulberry32 } from '../bench/prng.ts';

// Words that survive analysis unchanged (no stop words, stems equal to the word).
const VOCAB = Array.from({ length: 60 }, (_, i) => `w${i}x`);

function randomDoc(r: () => number, vocabSize: number, maxLen: number): string {
  const n = 1 + Math.floor(r() * maxLen);
  const words: string[] = [];
  // Zipf-like: low word numbers are common, so lists of very different lengths exist.
  for (let i = 0; i < n; i++) words.push(VOCAB[Math.floor(vocabSize * r() * r())]);
  return words.join(' ');
}

// Independent, naive BM25 straight from the formula, for cross-checking scores.
function naiveBm25(docs: Map<string, string>, query: string, k1 = 1.2, b = 0.75): Map<string, number> {
  const toks = new Map([...docs].map(([id, t]) => [id, tokenize(t)]));
  const N = toks.size;
  const avg = [...toks.values()].reduce((a, t) => a + t.length, 0) / N;
  const qtf = new Map<string, number>();
  for (const t of tokenize(query)) qtf.set(t, (qtf.get(t) ?? 0) + 1);
  const scores = new Map<string, number>();
  for (const [term, qn] of qtf) {
    const df = [...toks.values()].filter((t) => t.includes(term)).length;
    if (df === 0) continue;
    const idf = Math.log(1 + (N - df + 0.5) / (df + 0.5));
    for (const [id, t] of toks) {
      const tf = t.filter((x) => x === term).length;
      if (tf === 0) continue;
      const s = (qn * idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * t.length) / avg));
      scores.set(id, (scores.get(id) ?? 0) + s);
    }
  }
  return scores;
}

function expectSameHits(a: LexicalHit[], b: LexicalHit[]) {
  expect(a.map((h) => h.id)).toEqual(b.map((h) => h.id));
  expect(a.map((h) => h.score)).toEqual(b.map((h) => h.score));
}

describe('createLexicalIndex', () => {
  it('matches a hand-computed BM25', () => {
    const index = createLexicalIndex();
    index.add('d1', 'apple banana');
    index.add('d2', 'apple apple cherry');
    index.add('d3', 'banana cherry cherry date');
    // N = 3, df(apple) = 2, avgdl = 3, k1 = 1.2, b = 0.75.
    const idf = Math.log(1 + (3 - 2 + 0.5) / (2 + 0.5));
    const d1 = (idf * 1 * 2.2) / (1 + 1.2 * (0.25 + (0.75 * 2) / 3));
    const d2 = (idf * 2 * 2.2) / (2 + 1.2 * (0.25 + (0.75 * 3) / 3));
    const hits = index.search('apple', 10);
    expect(hits.map((h) => h.id)).toEqual(['d2', 'd1']);
    expect(hits[0].score).toBeCloseTo(d2, 12);
    expect(hits[1].score).toBeCloseTo(d1, 12);
    // A two-term query sums the terms' contributions.
    const idfDate = Math.log(1 + (3 - 1 + 0.5) / (1 + 0.5));
    const d3date = (idfDate * 1 * 2.2) / (1 + 1.2 * (0.25 + (0.75 * 4) / 3));
    expect(index.search('date apple', 10)[0]).toEqual({ id: 'd3', score: expect.closeTo(d3date, 12) });
  });

  it("rejects parameters outside BM25's range", () => {
    expect(() => createLexicalIndex({ k1: -1 })).toThrow(RangeError);
    expect(() => createLexicalIndex({ b: 1.5 })).toThrow(RangeError);
  });

  it('honours k1 and b', () => {
    const index = createLexicalIndex({ k1: 2, b: 0 });
    index.add('d1', 'apple');
    index.add('d2', 'apple apple pear pear pear pear');
    const idf = Math.log(1 + (2 - 2 + 0.5) / (2 + 0.5));
    expect(index.search('apple', 1)[0].score).toBeCloseTo((idf * 2 * 3) / (2 + 2), 12);
  });

  it('returns exactly the exhaustive top-k on random corpora', () => {
    // Small pruning windows so MaxScore skips documents even in corpora of a few thousand
    // (it only starts pruning once the first window has set a threshold).
    const words = Array.from({ length: 3000 }, (_, i) => `w${i}x`);
    for (const [seed, vocab, maxLen, skew] of [
      [1, 3000, 120, 3],
      [2, 500, 60, 2],
      [3, 60, 40, 2],
      [4, 8, 6, 2], // tiny vocabulary: many exact score ties
    ]) {
      const r = mulberry32(seed);
      const doc = (n: number) => Array.from({ length: 1 + Math.floor(r() * n) }, () => words[Math.floor(vocab * r() ** skew)]).join(' ');
      const index = createLexicalIndex({ pruningWindow: 64 });
      const wide = createLexicalIndex();
      for (let i = 0; i < 4000; i++) {
        const text = doc(maxLen);
        index.add(`doc-${i}`, text);
        wide.add(`doc-${i}`, text);
      }
      for (let q = 0; q < 60; q++) {
        const query = doc(12);
        for (const k of [1, 5, 10, 50]) {
          expectSameHits(index.search(query, k), index.search(query, k, { exhaustive: true }));
        }
      }
      // The window size changes the work done, never the results.
      for (let q = 0; q < 10; q++) {
        const query = doc(12);
        expectSameHits(index.search(query, 10), wide.search(query, 10));
      }
    }
  });

  it('agrees with an independent naive BM25', () => {
    const r = mulberry32(7);
    const docs = new Map<string, string>();
    const index = createLexicalIndex({ pruningWindow: 32 });
    for (let i = 0; i < 300; i++) {
      const text = randomDoc(r, 60, 30);
      docs.set(`d${i}`, text);
      index.add(`d${i}`, text);
    }
    for (let q = 0; q < 20; q++) {
      const query = randomDoc(r, 60, 8);
      const naive = naiveBm25(docs, query);
      const hits = index.search(query, 20);
      const best = [...naive.values()].sort((x, y) => y - x).slice(0, 20);
      expect(hits.length).toBe(best.length);
      hits.forEach((h, i) => {
        expect(h.score).toBeCloseTo(naive.get(h.id)!, 9);
        expect(h.score).toBeCloseTo(best[i], 9);
      });
    }
  });

  it('breaks score ties by id', () => {
    const index = createLexicalIndex();
    for (const id of ['c', 'a', 'b']) index.add(id, 'identical text here');
    expect(index.search('identical', 3).map((h) => h.id)).toEqual(['a', 'b', 'c']);
    expect(index.search('identical', 2).map((h) => h.id)).toEqual(['a', 'b']);
  });

  it('weights repeated query terms', () => {
    const index = createLexicalIndex();
    index.add('d1', 'kinase assay');
    index.add('d2', 'phosphatase assay');
    index.add('d3', 'buffer');
    const once = index.search('kinase', 1)[0].score;
    expect(index.search('kinase kinase', 1)[0].score).toBeCloseTo(2 * once, 12);
  });

  it('replaces, removes and re-adds documents', () => {
    const index = createLexicalIndex();
    index.add('a', 'western blot protocol');
    index.add('b', 'elisa protocol');
    expect(index.size).toBe(2);
    index.add('a', 'flow cytometry protocol');
    expect(index.size).toBe(2);
    expect(index.search('western blot', 5)).toEqual([]);
    expect(index.search('cytometry', 5).map((h) => h.id)).toEqual(['a']);
    expect(index.remove('a')).toBe(true);
    expect(index.remove('a')).toBe(false);
    expect(index.has('a')).toBe(false);
    expect(index.size).toBe(1);
    expect(index.search('cytometry', 5)).toEqual([]);
    index.add('a', 'western blot protocol');
    expect(index.has('a')).toBe(true);
    expect(index.search('western', 5).map((h) => h.id)).toEqual(['a']);
  });

  it('scores after removals as a fresh index of the survivors would, before and after compaction', () => {
    const r = mulberry32(11);
    const texts = Array.from({ length: 400 }, () => randomDoc(r, 60, 40));
    const index = createLexicalIndex({ compactDeadFraction: 1, pruningWindow: 32 }); // no automatic compaction here
    texts.forEach((t, i) => index.add(`d${i}`, t));
    const removed = new Set<number>();
    while (removed.size < 150) removed.add(Math.floor(r() * texts.length));
    for (const i of removed) expect(index.remove(`d${i}`)).toBe(true);
    const fresh = createLexicalIndex();
    texts.forEach((t, i) => {
      if (!removed.has(i)) fresh.add(`d${i}`, t);
    });
    const queries = Array.from({ length: 30 }, () => randomDoc(r, 60, 10));
    expect(index.memoryStats().deadDocs).toBe(150);
    for (const q of queries) expectSameHits(index.search(q, 25), fresh.search(q, 25));
    index.compact();
    expect(index.memoryStats().deadDocs).toBe(0);
    expect(index.size).toBe(250);
    for (const q of queries) {
      expectSameHits(index.search(q, 25), fresh.search(q, 25));
      expectSameHits(index.search(q, 25), index.search(q, 25, { exhaustive: true }));
    }
    // Adding and removing after compaction still work (emptied lists grow again; document
    // frequencies come from the rewritten forward lists).
    index.add('new', texts[[...removed][0]]);
    fresh.add('new', texts[[...removed][0]]);
    for (const i of [...Array(400).keys()].filter((i) => !removed.has(i)).slice(0, 40)) {
      index.remove(`d${i}`);
      fresh.remove(`d${i}`);
    }
    index.compact();
    for (const q of queries) expectSameHits(index.search(q, 25), fresh.search(q, 25));
  });

  it('compacts on its own when tombstones pile up', () => {
    const index = createLexicalIndex();
    for (let i = 0; i < 300; i++) index.add(`d${i}`, `common word${i % 7}x`);
    for (let i = 0; i < 100; i++) index.remove(`d${i}`);
    const stats = index.memoryStats();
    expect(stats.deadDocs).toBeLessThan(100);
    expect(stats.docs).toBe(200);
    expect(index.idsWithTerm('common').length).toBe(200);
    expect(index.search('word3x', 1000).length).toBe(index.idsWithTerm('word3x').length);
  });

  it('filters results without losing the top-k', () => {
    const r = mulberry32(5);
    const index = createLexicalIndex({ pruningWindow: 32 });
    for (let i = 0; i < 1000; i++) index.add(`d${i}`, randomDoc(r, 60, 30));
    const even = (id: string) => Number(id.slice(1)) % 2 === 0;
    for (let q = 0; q < 20; q++) {
      const query = randomDoc(r, 60, 8);
      const filtered = index.search(query, 10, { filter: even });
      expect(filtered.every((h) => even(h.id))).toBe(true);
      const expected = index
        .search(query, 1000, { exhaustive: true })
        .filter((h) => even(h.id))
        .slice(0, 10);
      expectSameHits(filtered, expected);
    }
  });

  it('lists every chunk containing a term, across pooled and own postings storage', () => {
    const index = createLexicalIndex();
    // Interleaved terms whose lists grow past the shared pool into their own arrays.
    for (let i = 0; i < 500; i++) index.add(`d${i}`, i % 3 === 0 ? 'alphaz betaz' : i % 3 === 1 ? 'betaz gammaz' : `gammaz uniq${i}`);
    const expectIds = (pred: (i: number) => boolean) =>
      Array.from({ length: 500 }, (_, i) => i)
        .filter(pred)
        .map((i) => `d${i}`);
    expect(index.idsWithTerm('alphaz')).toEqual(expectIds((i) => i % 3 === 0));
    expect(index.idsWithTerm('betaz')).toEqual(expectIds((i) => i % 3 !== 2));
    expect(index.idsWithTerm('gammaz')).toEqual(expectIds((i) => i % 3 !== 0));
    expect(index.idsWithTerm('uniq2')).toEqual(['d2']);
    expect(index.idsWithTerm('alphaz', 3)).toEqual(['d0', 'd3', 'd6']);
    expect(index.idsWithTerm('absent')).toEqual([]);
    expect(index.memoryStats().postings).toBe(167 * 2 + 167 * 2 + 166 * 2);
    // Counting agrees with listing, also once documents are gone (tombstones, then compaction).
    const counts = () => ['alphaz', 'betaz', 'gammaz', 'uniq2', 'absent'].map((t) => [index.countWithTerm(t), index.countWithTerm(t, 3)]);
    const listed = () =>
      ['alphaz', 'betaz', 'gammaz', 'uniq2', 'absent'].map((t) => [index.idsWithTerm(t).length, index.idsWithTerm(t, 3).length]);
    expect(counts()).toEqual(listed());
    for (let i = 0; i < 500; i += 2) index.remove(`d${i}`);
    expect(counts()).toEqual(listed());
    index.compact();
    expect(counts()).toEqual(listed());
    expect(index.countWithTerm('uniq2')).toBe(0);
  });

  it('finds identifiers however they are typed', () => {
    const index = createLexicalIndex();
    index.add('p53', 'Loss of TP53 function in tumour cells.');
    index.add('il6', 'Serum IL-6 rose after surgery.');
    index.add('ab', 'Stained with anti-actin ab32389 and siRNA sc-7392; see issue #1234.');
    index.add('other', 'Tumour cells and serum after surgery, unrelated text.');
    expect(index.search('tp53', 1)[0].id).toBe('p53');
    expect(index.search('What does TP53 do?', 1)[0].id).toBe('p53');
    expect(index.search('IL6', 1)[0].id).toBe('il6');
    expect(index.search('il-6 levels', 1)[0].id).toBe('il6');
    expect(index.search('SC-7392', 1)[0].id).toBe('ab');
    expect(index.search('sc7392', 1)[0].id).toBe('ab');
    expect(index.idsWithTerm('sc7392')).toEqual(['ab']);
    expect(index.idsWithTerm('sc-7392')).toEqual(['ab']);
    expect(index.idsWithTerm('IL-6')).toEqual(['il6']);
    expect(index.idsWithTerm('#1234')).toEqual(['ab']);
    expect(index.idsWithTerm('AB32389')).toEqual(['ab']);
    expect(index.idsWithTerm('tumours')).toEqual(['p53', 'other']);
  });

  it('retrieves Spanish text with or without accents', () => {
    const index = createLexicalIndex();
    index.add('es', 'Protocolo para la purificación de proteínas recombinantes con columnas de níquel.');
    index.add('en', 'Protocol for the purification of recombinant proteins on nickel columns.');
    for (const q of ['columnas de níquel', 'columnas de niquel', 'COLUMNAS DE NÍQUEL', 'níquel']) {
      expect(index.search(q, 2)[0].id).toBe('es');
    }
    // The Spanish and English stems of "purificación"/"purification" and "proteínas"/"proteins"
    // coincide, so a question in either language reaches both documents.
    expect(new Set(index.search('purificacion de proteinas', 2).map((h) => h.id))).toEqual(new Set(['es', 'en']));
    expect(new Set(index.search('purification of proteins', 2).map((h) => h.id))).toEqual(new Set(['es', 'en']));
  });

  it('returns nothing for empty, stop-word-only or unknown queries, and for k < 1', () => {
    const index = createLexicalIndex();
    expect(index.search('anything', 5)).toEqual([]);
    index.add('d', 'some content');
    expect(index.search('', 5)).toEqual([]);
    expect(index.search('the of and', 5)).toEqual([]);
    expect(index.search('zebrafish', 5)).toEqual([]);
    expect(index.search('content', 0)).toEqual([]);
    expect(index.search('content', 5)).toHaveLength(1);
  });

  it('exposes idf of analysed terms', () => {
    const index = createLexicalIndex();
    index.add('a', 'rare common');
    index.add('b', 'common');
    index.add('c', 'common');
    expect(index.idf('rare')).toBeGreaterThan(index.idf('common'));
    expect(index.idf('missing')).toBe(0);
    index.remove('a');
    expect(index.idf('rare')).toBe(0);
  });

  it('reports memory', () => {
    const index = createLexicalIndex();
    index.add('a', 'one two three');
    index.add('b', 'two three four');
    const m = index.memoryStats();
    expect(m.docs).toBe(2);
    expect(m.terms).toBe(4);
    expect(m.postings).toBe(6);
    expect(m.approxBytes).toBeGreaterThan(m.bytes.postings);
  });
});
