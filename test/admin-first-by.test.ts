// firstBy keeps the first k of a stream in order: the same as sorting everything and slicing.
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../bench/prng.ts';
import { firstBy } from '../src/admin/first-by.ts';

describe('firstBy', () => {
  it('gives what a stable sort and slice give, holding at most k items', () => {
    const rnd = mulberry32(11);
    for (const [n, k] of [
      [0, 5],
      [3, 5],
      [5, 5],
      [1000, 7],
      [1000, 200],
    ]) {
      const items = Array.from({ length: n }, (_, i) => ({ key: Math.floor(rnd() * 50), i }));
      const first = firstBy(k, (a: { key: number }, b: { key: number }) => a.key - b.key);
      for (const x of items) first.add(x);
      expect(first.items(), `${n}/${k}`).toEqual([...items].sort((a, b) => a.key - b.key).slice(0, k));
      expect(first.seen).toBe(n);
    }
  });
});
