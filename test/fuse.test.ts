import { describe, expect, it } from 'vitest';
import { fuseRrf, fuseWeighted } from '../src/search/fuse.ts';

describe('fusion', () => {
  const dense = [
    { id: 'a#0', score: 0.9 },
    { id: 'b#0', score: 0.8 },
    { id: 'c#0', score: 0.1 },
  ];
  const lexical = [
    { id: 'b#0', score: 12 },
    { id: 'd#0', score: 11 },
    { id: 'a#0', score: 2 },
  ];

  it('RRF sums weight / (k + rank) and records ranks per list', () => {
    const fused = fuseRrf([dense, lexical], [1, 1], 60);
    expect(fused[0].id).toBe('b#0');
    expect(fused[0].score).toBeCloseTo(1 / 62 + 1 / 61, 10);
    expect(fused[0].ranks).toEqual([2, 1]);
    expect(fused.find((h) => h.id === 'd#0')?.ranks).toEqual([undefined, 2]);
    expect(fused.map((h) => h.id).sort()).toEqual(['a#0', 'b#0', 'c#0', 'd#0']);
  });

  it('weights change the order', () => {
    const denseHeavy = fuseRrf([dense, lexical], [5, 1], 60);
    expect(denseHeavy[0].id).toBe('a#0');
  });

  it('weighted fusion normalises each list by its best score', () => {
    const fused = fuseWeighted([dense, lexical], [0.5, 1]);
    const b = fused.find((h) => h.id === 'b#0')!;
    expect(b.score).toBeCloseTo(0.5 * (0.8 / 0.9) + 1, 6);
    expect(fused[0].id).toBe('b#0');
  });

  it('deduplicates by id, never by text: equal texts from two documents both survive', () => {
    const same = [
      { id: 'protocol-a#3', score: 1 },
      { id: 'protocol-b#3', score: 1 },
      { id: 'protocol-a#3', score: 0.5 },
    ];
    const fused = fuseRrf([same, same], [1, 1]);
    expect(fused.map((h) => h.id)).toEqual(['protocol-a#3', 'protocol-b#3']);
    expect(fuseWeighted([same], [1]).length).toBe(2);
  });
});
