import { Embeddings } from '@langchain/core/embeddings';
import { describe, expect, it } from 'vitest';
import { HASH_EMBEDDING_MODEL, HashEmbeddings, hashEmbed } from '../src/models/hash-embeddings.ts';

const cos = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};
const norm = (a: ArrayLike<number>) => Math.sqrt(cos(a, a));

const PCR = 'Quantitative PCR of IL-6 expression in HeLa cells after siRNA knockdown.';
const PCR2 = 'IL-6 expression in HeLa cells was measured by quantitative PCR following knockdown with siRNA.';
const BIKE = 'The cyclists rode along the coastal road in the afternoon sun.';

describe('HashEmbeddings', () => {
  it('is a LangChain Embeddings named by its scheme', () => {
    const e = new HashEmbeddings();
    expect(e).toBeInstanceOf(Embeddings);
    expect(HASH_EMBEDDING_MODEL).toBe('hash-v1');
    expect(e.model).toBe('hash-v1');
  });

  it('is deterministic across calls and instances', async () => {
    const a = await new HashEmbeddings().embedDocuments([PCR, BIKE]);
    const b = await new HashEmbeddings().embedDocuments([PCR, BIKE]);
    expect(a).toEqual(b);
    expect(await new HashEmbeddings().embedQuery(PCR)).toEqual(a[0]);
  });

  it('returns unit vectors, including for empty text', async () => {
    const vs = await new HashEmbeddings().embedDocuments([PCR, BIKE, 'x', '', 'the of and']);
    for (const v of vs) expect(norm(v)).toBeCloseTo(1, 5);
    expect(vs[0]).not.toEqual(vs[1]);
  });

  it('places similar texts closer than unrelated ones', async () => {
    const [a, b, c] = await new HashEmbeddings().embedDocuments([PCR, PCR2, BIKE]);
    expect(cos(a, b)).toBeGreaterThan(cos(a, c) + 0.2);
    expect(cos(b, a)).toBeGreaterThan(cos(b, c));
  });

  it('shares character n-grams between morphological variants the stemmer keeps apart', () => {
    const a = hashEmbed('immunohistochemistry');
    const b = hashEmbed('immunohistochemical');
    const c = hashEmbed('electrophoresis');
    expect(cos(a, b)).toBeGreaterThan(0.3);
    expect(cos(a, b)).toBeGreaterThan(cos(a, c) + 0.3);
  });

  it('honours the dimensions option and rejects bad values', async () => {
    expect((await new HashEmbeddings().embedQuery(PCR)).length).toBe(384);
    const small = await new HashEmbeddings({ dimensions: 64 }).embedQuery(PCR);
    expect(small.length).toBe(64);
    expect(norm(small)).toBeCloseTo(1, 5);
    expect(() => new HashEmbeddings({ dimensions: 0 })).toThrow(RangeError);
    expect(() => hashEmbed('x', 1.5)).toThrow(RangeError);
  });
});
