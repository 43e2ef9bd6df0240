// Exhaustive BM25 top-k: every posting of every query term is scored. The reference the pruned
// search must match bit for bit, and the path for very long queries.
import type { QueryTerm } from './scoring.ts';
import type { LexicalStore } from './store.ts';
import { postingsOf } from './store.ts';
import { createTopK } from './top-k.ts';
import type { LexicalHit } from './types.ts';

export function searchExhaustive(s: LexicalStore, qs: QueryTerm[], k: number, filter?: (id: string) => boolean): LexicalHit[] {
  const { k1, b, ordCount, alive, docLen, ordToId } = s;
  const avg = s.totalLen / s.liveDocs || 1;
  // Same expression, constants and summation order as searchMaxScore: scores must match bit for bit.
  const k1p1 = k1 + 1;
  const normA = k1 * (1 - b);
  const normB = (k1 * b) / avg;
  const acc = new Float64Array(ordCount);
  const hit = new Uint8Array(ordCount);
  for (const q of qs) {
    const t = q.t;
    const { docs, tfs, start, end } = postingsOf(s, t);
    for (let r = start; r < end; r++) {
      const d = docs[r];
      if (!alive[d]) continue;
      const tf = tfs[r];
      acc[d] += (q.w * (tf * k1p1)) / (tf + (normA + normB * docLen[d]));
      hit[d] = 1;
    }
  }
  const top = createTopK(k, ordToId);
  for (let d = 0; d < ordCount; d++) {
    if (!hit[d] || !top.admits(acc[d], d)) continue;
    if (filter && !filter(ordToId[d])) continue;
    top.push(acc[d], d);
  }
  return top.results();
}
