import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../bench/prng.ts';
import { createLexicalIndex, type LexicalIndex } from '../src/search/bm25.ts';

const VOCAB = Array.from({ length: 80 }, (_, i) => `w${i}x`);

function randomDoc(r: () => number): string {
  const n = 1 + Math.floor(r() * 40);
  const words: string[] = [];
  for (let i = 0; i < n; i++) words.push(VOCAB[Math.floor(VOCAB.length * r() * r())]);
  return words.join(' ');
}

function queries(r: () => number, count: number): string[] {
  return Array.from({ length: count }, () =>
    Array.from({ length: 1 + Math.floor(r() * 4) }, () => VOCAB[Math.floor(r() * VOCAB.length)]).join(' '),
  );
}

function expectSame(a: LexicalIndex, b: LexicalIndex, qs: string[]) {
  expect(b.size).toBe(a.size);
  for (const q of qs) {
    expect(b.search(q, 7)).toEqual(a.search(q, 7));
    expect(b.search(q, 7, { exhaustive: true })).toEqual(a.search(q, 7, { exhaustive: true }));
  }
  for (const w of VOCAB.slice(0, 20)) {
    expect(b.idf(w)).toBe(a.idf(w));
    expect(b.idsWithTerm(w)).toEqual(a.idsWithTerm(w));
  }
}

describe('lexical index snapshot', () => {
  it('a restored index answers exactly like the original, before and after further edits', () => {
    const r = mulberry32(7);
    // A small pruning window so MaxScore pruning runs on this corpus too.
    const original = createLexicalIndex({ pruningWindow: 32 });
    for (let i = 0; i < 600; i++) original.add(`d${i}`, randomDoc(r));
    // Removed and replaced documents leave tombstones the snapshot must not carry.
    for (let i = 0; i < 600; i += 7) original.remove(`d${i}`);
    for (let i = 1; i < 600; i += 11) original.add(`d${i}`, randomDoc(r));
    const snap = original.snapshot();
    expect(snap.ids.length).toBe(original.size);
    expect(original.memoryStats().deadDocs).toBe(0);

    const restored = createLexicalIndex({ pruningWindow: 32 }, snap);
    const qs = queries(r, 60);
    expectSame(original, restored, qs);

    // Long lists are restored as views of the snapshot's arrays: compaction rewrites them in place.
    for (let i = 3; i < 600; i += 3) {
      original.remove(`d${i}`);
      restored.remove(`d${i}`);
    }
    original.compact();
    restored.compact();
    expectSame(original, restored, qs);

    // Both keep working the same way: adds that grow pooled and own lists, removals, compaction.
    for (let i = 600; i < 900; i++) {
      const text = randomDoc(r);
      original.add(`d${i}`, text);
      restored.add(`d${i}`, text);
    }
    for (let i = 2; i < 900; i += 5) {
      original.remove(`d${i}`);
      restored.remove(`d${i}`);
    }
    expectSame(original, restored, qs);
  });

  it('keeps k1 and b of the index it was taken from', () => {
    const a = createLexicalIndex({ k1: 2, b: 0.3 });
    a.add('x', 'alpha beta beta');
    a.add('y', 'alpha gamma');
    const b = createLexicalIndex({}, a.snapshot());
    expect(b.search('beta alpha', 2)).toEqual(a.search('beta alpha', 2));
  });

  it('rejects a snapshot whose arrays do not agree', () => {
    const a = createLexicalIndex();
    a.add('x', 'alpha beta');
    a.add('y', 'alpha gamma');
    const s = a.snapshot();
    expect(() => createLexicalIndex({}, { ...s, docLen: s.docLen.slice(1) })).toThrow(RangeError);
    const reversed = { ...s, postDocs: s.postDocs.slice().reverse() };
    expect(() => createLexicalIndex({}, reversed)).toThrow(RangeError);
    expect(() => createLexicalIndex({}, { ...s, ids: ['x', 'x'] })).toThrow(RangeError);
  });
});
