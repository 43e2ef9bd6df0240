// Offline embeddings: feature hashing of analysed words, word bigrams and character 3-5-grams.
//
// Not a semantic model: it is the "dense" signal when no embedding endpoint is configured. On
// scientific text it still adds to BM25 when fused by weighted normalised score (docs/architecture.md):
// character n-grams match morphology the stemmer misses (immunohistochemistry /
// immunohistochemical) and bigrams reward shared word pairs. Deterministic, no network, and fast
// enough to embed a whole corpus at ingest.
import { Embeddings, type EmbeddingsParams } from '@langchain/core/embeddings';
import { tokenize } from '../search/tokenize.ts';

/** Names the hashing scheme; it is part of the index version, so change it when the features change. */
export const HASH_EMBEDDING_MODEL = 'hash-v1';

export const DEFAULT_HASH_DIMENSIONS = 384;

// Feature-type weights: words carry the topic, bigrams add word order, and the many character
// n-grams per word get a small weight each so they do not drown the words. Picked on the PubMedQA
// abstracts (question -> abstract, recall@1 of the hash vectors alone: 87.6 with 1/0.5/0.2,
// 88.5 with these; differences of a point are within noise there).
const W_UNIGRAM = 1;
const W_BIGRAM = 0.25;
const W_CHARGRAM = 0.35;
// Seeds separate the feature namespaces, so the word "cat" and the 3-gram "cat" differ.
const SEED_UNIGRAM = 0x811c9dc5;
const SEED_BIGRAM = 0x01000193 ^ 0x9e3779b9;
const SEED_CHARGRAM = 0x2545f491;

/** FNV-1a over UTF-16 code units of s[start, end), from a seed. */
function fnv1a(s: string, start: number, end: number, seed: number): number {
  let h = seed >>> 0;
  for (let i = start; i < end; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Murmur3's finaliser: FNV alone leaves the low bits, which pick the bucket, poorly mixed. */
function fmix32(x: number): number {
  let h = x;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function count(map: Map<number, number>, h: number): void {
  map.set(h, (map.get(h) ?? 0) + 1);
}

/** The hashed vector of a text, L2-normalised. Empty text maps to a fixed unit vector (never zero, which breaks cosine). */
export function hashEmbed(text: string, dimensions = DEFAULT_HASH_DIMENSIONS): Float32Array {
  if (!Number.isInteger(dimensions) || dimensions < 1) throw new RangeError(`dimensions must be a positive integer, got ${dimensions}`);
  const terms = tokenize(text);
  const uni = new Map<number, number>();
  const bi = new Map<number, number>();
  const chars = new Map<number, number>();
  let prev = -1;
  for (const term of terms) {
    const hu = fnv1a(term, 0, term.length, SEED_UNIGRAM);
    count(uni, hu);
    if (prev >= 0) count(bi, fnv1a(term, 0, term.length, Math.imul(prev ^ SEED_BIGRAM, 0x01000193) >>> 0));
    prev = hu;
    const padded = `<${term}>`;
    for (let n = 3; n <= 5; n++) {
      for (let i = 0; i + n <= padded.length; i++) count(chars, fnv1a(padded, i, i + n, SEED_CHARGRAM));
    }
  }
  const v = new Float32Array(dimensions);
  const acc = new Float64Array(dimensions);
  const put = (map: Map<number, number>, weight: number) => {
    for (const [h, tf] of map) {
      const m = fmix32(h);
      // Signed hashing: collisions cancel in expectation instead of piling up.
      const sign = m & 1 ? -1 : 1;
      acc[(m >>> 1) % dimensions] += sign * weight * (1 + Math.log(tf));
    }
  };
  put(uni, W_UNIGRAM);
  put(bi, W_BIGRAM);
  put(chars, W_CHARGRAM);
  let norm = 0;
  for (let i = 0; i < dimensions; i++) norm += acc[i] * acc[i];
  if (norm === 0) {
    v[0] = 1;
    return v;
  }
  const inv = 1 / Math.sqrt(norm);
  for (let i = 0; i < dimensions; i++) v[i] = acc[i] * inv;
  return v;
}

export interface HashEmbeddingsParams extends EmbeddingsParams {
  /** Vector size. Default 384. */
  dimensions?: number;
}

/** LangChain Embeddings over hashEmbed: offline and deterministic. */
export class HashEmbeddings extends Embeddings {
  readonly dimensions: number;
  readonly model = HASH_EMBEDDING_MODEL;

  constructor(params: HashEmbeddingsParams = {}) {
    super(params);
    this.dimensions = params.dimensions ?? DEFAULT_HASH_DIMENSIONS;
    if (!Number.isInteger(this.dimensions) || this.dimensions < 1) {
      throw new RangeError(`dimensions must be a positive integer, got ${this.dimensions}`);
    }
  }

  async embedDocuments(texts: string[]): Promise<number[][]> {
    return texts.map((t) => Array.from(hashEmbed(t, this.dimensions)));
  }

  async embedQuery(text: string): Promise<number[]> {
    return Array.from(hashEmbed(text, this.dimensions));
  }
}
