// BM25 term weights: idf, the tf part and its per-term upper bound, and a query's weighted terms.
import { tokenize } from '../tokenize.ts';
import { type LexicalStore, NO_STORAGE, postingsOf } from './store.ts';

/** BM25's tf part for a document of length dl at average length avg. */
export function tfPart(tf: number, dl: number, avg: number, k1: number, b: number): number {
  return (tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * dl) / avg));
}

export function idfOf(s: LexicalStore, t: number): number {
  const df = s.tDf[t];
  return Math.log(1 + (s.liveDocs - df + 0.5) / (df + 0.5));
}

/** Recomputes term t's bound (max tf part over its live postings) at average length avg. */
export function refreshBound(s: LexicalStore, t: number, avg: number): void {
  let max = 0;
  if (s.tOff[t] !== NO_STORAGE) {
    const { k1, b, alive, docLen } = s;
    const { docs, tfs, start, end } = postingsOf(s, t);
    for (let r = start; r < end; r++) {
      const d = docs[r];
      if (!alive[d]) continue;
      const g = tfPart(tfs[r], docLen[d], avg, k1, b);
      if (g > max) max = g;
    }
  }
  s.tBound[t] = max;
  s.tBoundEpoch[t] = s.boundEpoch;
}

export interface QueryTerm {
  t: number;
  /** Query weight: idf times the number of times the term occurs in the query. */
  w: number;
  /** Position in canonical (first-occurrence) order: scores are summed in this order on every path. */
  ci: number;
}

/** The query's analysed terms that some live document has, once each, in first-occurrence order. */
export function queryTerms(s: LexicalStore, query: string): QueryTerm[] {
  const seen = new Map<number, QueryTerm>();
  const out: QueryTerm[] = [];
  for (const term of tokenize(query)) {
    const t = s.termIds.get(term);
    if (t === undefined || s.tDf[t] === 0) continue;
    const q = seen.get(t);
    if (q) q.w += 1;
    else {
      const nq = { t, w: 1, ci: out.length };
      seen.set(t, nq);
      out.push(nq);
    }
  }
  for (const q of out) q.w *= idfOf(s, q.t);
  return out;
}
