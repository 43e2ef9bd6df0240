// MaxScore (Turtle & Flood), in windows of ordinals as Lucene's MaxScoreBulkScorer does it.
// Query terms are ordered by their score upper bound; the prefix whose bounds sum below the
// current k-th score is "non-essential": a document found only there cannot enter the top-k.
// Per window, the essential lists are accumulated term at time (cheap sequential reads); each
// touched document is then kept only while its partial score plus the remaining bounds can
// reach the threshold, probing non-essential lists by galloping search.
//
// Returns exactly the results of searchExhaustive (same scores, same order, same tie-breaks).
import { type QueryTerm, refreshBound } from './scoring.ts';
import { type LexicalStore, postingsOf } from './store.ts';
import { createTopK, type TopK } from './top-k.ts';
import type { LexicalHit } from './types.ts';

/** Queries with more distinct terms are scored exhaustively (same results). */
export const MAX_PRUNED_TERMS = 64;
// Upper bounds are computed for an average length this much above the current one, so they stay
// valid (BM25 grows with avgdl) while documents are added, without recomputation per add.
const BOUND_AVG_SLACK = 1.05;
// Guards the pruning against rounding: a bound must never fall below a score it bounds.
const BOUND_EPS = 1 + 1e-9;

const NO_DOCS = new Int32Array(0);
const NO_TFS = new Uint16Array(0);

/**
 * State of the search kept between queries, so a query allocates no window-sized arrays: the
 * window scratch, and the current query's per-term cursors (indexed by sorted term, ascending
 * bound; sized for MAX_PRUNED_TERMS).
 */
export interface MaxScoreScratch {
  /** Ordinals per window. */
  readonly window: number;
  /** Per (sorted term, window slot): its contribution, and the window stamp saying it was written in this window. */
  winContrib: Float64Array;
  winStamp: Int32Array;
  stamp: number;
  readonly winAcc: Float64Array;
  readonly winTouched: Int32Array;

  nq: number;
  readonly docsOf: Int32Array[];
  readonly tfsOf: Uint16Array[];
  pos: Int32Array;
  end: Int32Array;
  w: Float64Array;
  /** cum[i]: sum of the bounds of sorted terms 0..i. */
  cum: Float64Array;
  /** Canonical index -> sorted index. */
  sortedOf: Int32Array;
  /** Contribution of each non-essential term to the document being scored. */
  probe: Float64Array;
  k1p1: number;
  normA: number;
  normB: number;
  theta: number;
  firstEssential: number;
}

/** An array of n copies of x, built by pushing so V8 keeps it packed (no hole checks on reads). */
function packed<T>(n: number, x: T): T[] {
  const out: T[] = [];
  for (let i = 0; i < n; i++) out.push(x);
  return out;
}

export function createMaxScoreScratch(window: number): MaxScoreScratch {
  const n = MAX_PRUNED_TERMS;
  return {
    window,
    winContrib: new Float64Array(window * 16),
    winStamp: new Int32Array(window * 16),
    stamp: 0,
    winAcc: new Float64Array(window),
    winTouched: new Int32Array(window),
    nq: 0,
    docsOf: packed(n, NO_DOCS),
    tfsOf: packed(n, NO_TFS),
    pos: new Int32Array(n),
    end: new Int32Array(n),
    w: new Float64Array(n),
    cum: new Float64Array(n),
    sortedOf: new Int32Array(n),
    probe: new Float64Array(n),
    k1p1: 0,
    normA: 0,
    normB: 0,
    theta: -Infinity,
    firstEssential: 0,
  };
}

export function searchMaxScore(
  s: LexicalStore,
  m: MaxScoreScratch,
  qs: QueryTerm[],
  k: number,
  filter?: (id: string) => boolean,
): LexicalHit[] {
  const avg = s.totalLen / s.liveDocs || 1;
  if (avg > s.boundAvg || avg * 1.25 < s.boundAvg) {
    s.boundAvg = avg * BOUND_AVG_SLACK;
    s.boundEpoch++;
  }
  for (const q of qs) if (s.tBoundEpoch[q.t] !== s.boundEpoch) refreshBound(s, q.t, s.boundAvg);
  prepareCursors(s, m, qs, avg);

  const { nq, docsOf, pos, end, window } = m;
  const ordCount = s.ordCount;
  const top = createTopK(k, s.ordToId);
  let ws = 0;
  while (ws < ordCount && m.firstEssential < nq) {
    // Jump over ordinals where no essential list has postings.
    let next = 0x7fffffff;
    for (let i = m.firstEssential; i < nq; i++) if (pos[i] < end[i] && docsOf[i][pos[i]] < next) next = docsOf[i][pos[i]];
    if (next === 0x7fffffff) break;
    if (next >= ws + window) ws = next - (next % window);
    const we = Math.min(ws + window, ordCount);
    // Essential/non-essential split for this whole window: lists at or above it are
    // accumulated below, so their cursors end past the window and must not be probed in it.
    const fe = m.firstEssential;
    const st = ++m.stamp;
    const touched = accumulateWindow(s, m, fe, ws, we, st);
    scoreWindow(s, m, top, fe, ws, touched, st, filter);
    ws = we;
  }
  // Let go of the postings arrays: a later compaction may replace them.
  m.docsOf.fill(NO_DOCS, 0, nq);
  m.tfsOf.fill(NO_TFS, 0, nq);
  return top.results();
}

/** Orders the query's terms by bound and points a cursor at the start of each one's postings. */
function prepareCursors(s: LexicalStore, m: MaxScoreScratch, qs: QueryTerm[], avg: number): void {
  const nq = qs.length;
  if (m.pos.length < nq) {
    // Callers keep to MAX_PRUNED_TERMS; this keeps the search correct if one does not.
    m.pos = new Int32Array(nq);
    m.end = new Int32Array(nq);
    m.w = new Float64Array(nq);
    m.cum = new Float64Array(nq);
    m.sortedOf = new Int32Array(nq);
    m.probe = new Float64Array(nq);
  }
  const { tBound } = s;
  const order = qs.map((q) => ({ q, ub: q.w * tBound[q.t] * BOUND_EPS })).sort((x, y) => x.ub - y.ub || x.q.ci - y.q.ci);
  const { docsOf, tfsOf, pos, end, w, cum, sortedOf } = m;
  for (let i = 0; i < nq; i++) {
    const t = order[i].q.t;
    const p = postingsOf(s, t);
    docsOf[i] = p.docs;
    tfsOf[i] = p.tfs;
    pos[i] = p.start;
    end[i] = p.end;
    w[i] = order[i].q.w;
    sortedOf[order[i].q.ci] = i;
    cum[i] = (i > 0 ? cum[i - 1] : 0) + order[i].ub;
  }
  const window = m.window;
  if (m.winContrib.length < nq * window) {
    m.winContrib = new Float64Array(nq * window);
    m.winStamp = new Int32Array(nq * window);
    m.stamp = 0;
  }
  if (m.stamp > 0x3fffffff) {
    m.winStamp.fill(0);
    m.stamp = 0;
  }
  const { k1, b } = s;
  m.nq = nq;
  m.k1p1 = k1 + 1;
  m.normA = k1 * (1 - b);
  m.normB = (k1 * b) / avg;
  m.theta = -Infinity;
  m.firstEssential = 0;
}

/**
 * Adds the essential lists' postings in [ws, we) into the window accumulator, term at a time,
 * and returns how many window slots were touched (listed in winTouched).
 */
function accumulateWindow(s: LexicalStore, m: MaxScoreScratch, fe: number, ws: number, we: number, st: number): number {
  const { docLen } = s;
  const { nq, docsOf, tfsOf, pos, end, w, winAcc, winTouched, winContrib, winStamp, k1p1, normA, normB, window } = m;
  let touched = 0;
  for (let i = fe; i < nq; i++) {
    const docs = docsOf[i];
    const tfs = tfsOf[i];
    const wi = w[i];
    const base = i * window;
    let p = pos[i];
    const e = end[i];
    for (; p < e; p++) {
      const d = docs[p];
      if (d >= we) break;
      const slot = d - ws;
      const tf = tfs[p];
      const c = (wi * (tf * k1p1)) / (tf + (normA + normB * docLen[d]));
      if (winAcc[slot] === 0) winTouched[touched++] = slot;
      winAcc[slot] += c;
      winContrib[base + slot] = c;
      winStamp[base + slot] = st;
    }
    pos[i] = p;
  }
  return touched;
}

/**
 * Scores the window's touched documents that can still enter the top-k (probing the
 * non-essential lists below fe), pushes them, and raises the threshold and firstEssential.
 */
function scoreWindow(
  s: LexicalStore,
  m: MaxScoreScratch,
  top: TopK,
  fe: number,
  ws: number,
  touched: number,
  st: number,
  filter?: (id: string) => boolean,
): void {
  const { alive, docLen, ordToId } = s;
  const { nq, docsOf, tfsOf, pos, end, w, cum, sortedOf, probe, winAcc, winTouched, winContrib, winStamp, normA, normB, k1p1, window } = m;
  let theta = m.theta;
  // Visit touched documents in ordinal order: non-essential cursors only move forward.
  const slots = winTouched.subarray(0, touched).sort();
  for (let si = 0; si < touched; si++) {
    const slot = slots[si];
    const d = ws + slot;
    let partial = winAcc[slot];
    winAcc[slot] = 0;
    if (!alive[d]) continue;
    let viable = true;
    const norm = normA + normB * docLen[d];
    for (let j = fe - 1; j >= 0; j--) {
      if (partial + cum[j] < theta) {
        viable = false;
        break;
      }
      const docs = docsOf[j];
      let p = pos[j];
      const e = end[j];
      if (p < e && docs[p] < d) {
        // Gallop, then binary search, to the first posting >= d.
        let step = 1;
        let lo = p;
        let hi = p + 1;
        while (hi < e && docs[hi] < d) {
          lo = hi;
          step <<= 1;
          hi = lo + step;
        }
        if (hi > e) hi = e;
        lo++;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (docs[mid] < d) lo = mid + 1;
          else hi = mid;
        }
        p = lo;
        pos[j] = p;
      }
      let c = 0;
      if (p < e && docs[p] === d) {
        const tf = tfsOf[j][p];
        c = (w[j] * (tf * k1p1)) / (tf + norm);
      }
      probe[j] = c;
      partial += c;
    }
    if (!viable) continue;
    // Sum in canonical order so the score is bit-identical to the exhaustive path's.
    let score = 0;
    for (let c = 0; c < nq; c++) {
      const i = sortedOf[c];
      if (i < fe) score += probe[i];
      else if (winStamp[i * window + slot] === st) score += winContrib[i * window + slot];
    }
    if (top.admits(score, d) && (!filter || filter(ordToId[d]))) {
      top.push(score, d);
      if (top.full && top.threshold > theta) {
        theta = top.threshold;
        m.theta = theta;
        while (m.firstEssential < nq && cum[m.firstEssential] < theta) m.firstEssential++;
      }
    }
  }
}
