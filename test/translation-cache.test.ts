import { describe, expect, it } from 'vitest';
import { boundedCache } from '../src/translate/translator.ts';

describe('the translation cache', () => {
  it('keeps at most its size, forgetting the oldest first, and a re-set key does not evict another', () => {
    const c = boundedCache(2);
    c.set('a', 'A');
    c.set('b', 'B');
    c.set('b', 'B2');
    expect(c.get('a')).toBe('A');
    c.set('c', 'C');
    expect(c.get('a')).toBeUndefined();
    expect(c.get('b')).toBe('B2');
    expect(c.get('c')).toBe('C');
  });
});
