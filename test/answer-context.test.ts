import { describe, expect, it } from 'vitest';
import { fitContext } from '../src/answer/context.ts';

const p = (id: string, len: number) => ({ id, text: 'x'.repeat(len) });

describe('context budget', () => {
  it('keeps passages best first while they fit; the first that does not fit ends the context', () => {
    const out = fitContext([p('a', 300), p('b', 300), p('c', 500), p('d', 10)], 700);
    expect(out.map((x) => x.id)).toEqual(['a', 'b']);
  });

  it('keeps everything when it all fits, exactly at the budget', () => {
    expect(fitContext([p('a', 300), p('b', 400)], 700).map((x) => x.id)).toEqual(['a', 'b']);
  });

  it('cuts a first passage longer than the budget instead of leaving the answer step nothing', () => {
    const long = p('a', 900);
    const out = fitContext([long, p('b', 10)], 500);
    expect(out).toHaveLength(1);
    expect(out[0].text.length).toBe(500);
    expect(long.text.length).toBe(900);
  });

  it('returns nothing for nothing', () => {
    expect(fitContext([], 500)).toEqual([]);
  });
});
