// In-memory BM25 index for one access-group partition of chunks.
//
// Why not an off-the-shelf library: at 100k chunks LangChain's BM25Retriever rescans every chunk
// (p95 3.5 s) and MiniSearch holds postings in objects (p95 1.5 s, 2.2 GB peak). This index keeps
// postings in typed arrays and answers top-k with MaxScore pruning, which returns exactly the
// results of exhaustive BM25 scoring (same scores, same order, same tie-breaks).
//
// Layout:
// - documents get dense ordinals in insertion order; a replaced or removed document leaves a
//   tombstone and its postings stay until compaction, which renumbers the survivors in order;
// - each term's postings are (ordinal, tf) pairs sorted by ordinal, because documents are only
//   ever appended. Rare terms (the long tail of a lab vocabulary: numbers, catalogue numbers,
//   typos) live in one shared pool so they do not cost a typed-array object each; a term moves
//   into its own doubling arrays once it outgrows POOL_MAX_CAP;
// - a forward list of each document's distinct term ids makes removal exact (document
//   frequencies are decremented at once, so scores never depend on pending compaction).
import { normalizeIdentifier, tokenize } from './tokenize.ts';

export interface LexicalHit {
  id: string;
  score: number;
}

export interface LexicalIndexOptions {
  /** Term-frequency saturation. Default 1.2 (tuning was flat on our corpora, see docs/architecture.md). */
  k1?: number;
  /** Length normalisation. Default 0.75. */
  b?: number;
  /** Compact when tombstones exceed this fraction of ordinals. Default 0.25. */
  compactDeadFraction?: number;
  /**
   * Ordinals per MaxScore window. Default 4096. Pruning starts after the first window, so small
   * values let tests exercise it on small corpora; results never depend on it.
   */
  pruningWindow?: number;
}

export interface LexicalSearchOptions {
  /** Only ids for which this returns true are returned; it is called only for would-be hits. */
  filter?: (id: string) => boolean;
  /** Score every matching document instead of pruning: for benchmarks and tests of the pruning. */
  exhaustive?: boolean;
}

export interface LexicalMemoryStats {
  docs: number;
  deadDocs: number;
  terms: number;
  /** Posting entries stored, including those of dead documents not yet compacted. */
  postings: number;
  /** Bytes held by the typed arrays, by purpose. */
  bytes: { postings: number; docs: number; forward: number; terms: number };
  /** Typed arrays plus an estimate of the id and vocabulary maps and strings. */
  approxBytes: number;
}

/**
 * The index's content as plain arrays, for a snapshot on disk: live documents in ordinal order
 * and every term's postings, concatenated. Forward lists are not kept (they are the transpose
 * of the postings and rebuilt on restore), nor are score bounds (recomputed on demand).
 */
export interface LexicalSnapshot {
  k1: number;
  b: number;
  ids: string[];
  docLen: Float32Array;
  terms: string[];
  /** Term t's postings are postDocs/postTfs[postStart[t] .. postStart[t + 1]). */
  postStart: Int32Array;
  postDocs: Int32Array;
  postTfs: Uint16Array;
}

export interface LexicalIndex {
  /** Indexes a chunk; an existing id is replaced. */
  add(id: string, text: string): void;
  remove(id: string): boolean;
  has(id: string): boolean;
  /** Exact BM25 top-k, best first; equal scores are ordered by id so results are reproducible. */
  search(query: string, k: number, opts?: LexicalSearchOptions): LexicalHit[];
  /**
   * Ids of all live chunks containing an analysed term, in indexing order. A raw identifier
   * ("IL-6", "#1234") or a single word is analysed when it is not a term as given.
   */
  idsWithTerm(term: string, limit?: number): string[];
  /** BM25 idf of an analysed term over live chunks (0 when absent): lets the reranker weight terms. */
  idf(term: string): number;
  /** Drops tombstones now (it also happens on its own when they pile up). */
  compact(): void;
  readonly size: number;
  memoryStats(): LexicalMemoryStats;
  /** Compacts, then copies the content out (see LexicalSnapshot). */
  snapshot(): LexicalSnapshot;
}

type TypedArray = Int32Array | Uint16Array | Uint8Array | Float32Array;

/** A new array of `size` entries holding the first `used` entries of `a` (growth by copying). */
function resized<T extends TypedArray>(a: T, size: number, used: number): T {
  const out = new (a.constructor as new (n: number) => T)(size);
  out.set(a.subarray(0, used));
  return out;
}

// Terms whose postings fit in this many entries share the pool.
const POOL_MAX_CAP = 32;
const MAX_TF = 65535;
// Upper bounds are computed for an average length this much above the current one, so they stay
// valid (BM25 grows with avgdl) while documents are added, without recomputation per add.
const BOUND_AVG_SLACK = 1.05;
// Guards the pruning against rounding: a bound must never fall below a score it bounds.
const BOUND_EPS = 1 + 1e-9;
// Queries with more distinct terms are scored exhaustively (same results).
const MAX_PRUNED_TERMS = 64;

/**
 * A new index, or one holding a snapshot's content. Search results of a restored index are
 * identical to the original's (same postings, same ordinals, same k1/b). The index takes the
 * snapshot's postings arrays as its own storage: restore each snapshot once.
 */
export function createLexicalIndex(opts: LexicalIndexOptions = {}, from?: LexicalSnapshot): LexicalIndex {
  const k1 = from?.k1 ?? opts.k1 ?? 1.2;
  const b = from?.b ?? opts.b ?? 0.75;
  const compactDeadFraction = opts.compactDeadFraction ?? 0.25;
  const WINDOW = Math.max(1, Math.floor(opts.pruningWindow ?? 4096));
  // Outside these ranges a term's contribution can be zero or negative, which the pruning and
  // the "touched" test in searchMaxScore rely on never happening.
  if (!(k1 >= 0) || !(b >= 0 && b <= 1)) throw new RangeError(`BM25 needs k1 >= 0 and 0 <= b <= 1 (got k1=${k1}, b=${b})`);

  // Documents, by ordinal.
  let docCap = 1024;
  let ordCount = 0;
  let liveDocs = 0;
  let totalLen = 0;
  let docLen = new Float32Array(docCap);
  let alive = new Uint8Array(docCap);
  let ordToId: string[] = [];
  const idToOrd = new Map<string, number>();

  // Forward lists: distinct term ids of document o are fwd[fwdStart[o] .. fwdStart[o + 1]).
  let fwd = new Int32Array(1 << 16);
  let fwdStart = new Int32Array(docCap + 1);

  // Vocabulary, by term id.
  const termIds = new Map<string, number>();
  let termCap = 1024;
  let termCount = 0;
  let tOff = new Int32Array(termCap); // pool offset, or -1 when the term has its own arrays
  let tLen = new Int32Array(termCap); // postings stored, dead ones included
  let tCap = new Int32Array(termCap);
  let tDf = new Int32Array(termCap); // live documents containing the term
  let tBound = new Float64Array(termCap); // max BM25 tf-part over the term's postings at boundAvg
  let tBoundEpoch = new Int32Array(termCap).fill(-1);
  let scratchTf = new Int32Array(termCap);
  const ownDocs: (Int32Array | undefined)[] = [];
  const ownTfs: (Uint16Array | undefined)[] = [];

  /** Where term t's postings live (the shared pool or its own arrays), as entries [start, end). */
  function postings(t: number): { docs: Int32Array; tfs: Uint16Array; start: number; end: number } {
    const off = tOff[t];
    return off >= 0
      ? { docs: poolDocs, tfs: poolTfs, start: off, end: off + tLen[t] }
      : { docs: ownDocs[t]!, tfs: ownTfs[t]!, start: 0, end: tLen[t] };
  }

  // Shared pool for small postings lists. Growing a list moves it to the end of the pool; the old
  // block is garbage until the pool is rebuilt.
  let poolDocs = new Int32Array(1 << 16);
  let poolTfs = new Uint16Array(1 << 16);
  let poolUsed = 0;
  let poolGarbage = 0;

  let boundAvg = 0;
  let boundEpoch = 0;
  let deadDocs = 0;

  const tfPart = (tf: number, dl: number, avg: number) => (tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * dl) / avg));

  function growDocs(need: number): void {
    if (need <= docCap) return;
    let cap = docCap;
    while (cap < need) cap *= 2;
    docLen = resized(docLen, cap, ordCount);
    alive = resized(alive, cap, ordCount);
    fwdStart = resized(fwdStart, cap + 1, ordCount + 1);
    docCap = cap;
  }

  function growTerms(need: number): void {
    if (need <= termCap) return;
    let cap = termCap;
    while (cap < need) cap *= 2;
    const grow32 = (a: Int32Array, fill = 0) => {
      const n = new Int32Array(cap);
      if (fill !== 0) n.fill(fill);
      n.set(a.subarray(0, termCount));
      return n;
    };
    tOff = grow32(tOff);
    tLen = grow32(tLen);
    tCap = grow32(tCap);
    tDf = grow32(tDf);
    tBoundEpoch = grow32(tBoundEpoch, -1);
    scratchTf = grow32(scratchTf);
    const nb = new Float64Array(cap);
    nb.set(tBound.subarray(0, termCount));
    tBound = nb;
    termCap = cap;
  }

  function termId(term: string): number {
    let t = termIds.get(term);
    if (t === undefined) {
      t = termCount++;
      growTerms(termCount);
      termIds.set(term, t);
      tOff[t] = -2; // no storage yet
    }
    return t;
  }

  function poolAlloc(cap: number): number {
    if (poolUsed + cap > poolDocs.length) {
      // Rebuilding reclaims moved-away blocks; only grow when that would not free enough.
      if (poolGarbage > poolUsed / 2) rebuildPool();
      if (poolUsed + cap > poolDocs.length) {
        let size = poolDocs.length;
        while (poolUsed + cap > size) size *= 2;
        poolDocs = resized(poolDocs, size, poolUsed);
        poolTfs = resized(poolTfs, size, poolUsed);
      }
    }
    const off = poolUsed;
    poolUsed += cap;
    return off;
  }

  // Packs every pooled list into fresh arrays (capacity = length, or exactly what is live).
  function rebuildPool(): void {
    let live = 0;
    for (let t = 0; t < termCount; t++) if (tOff[t] >= 0) live += tLen[t];
    const size = Math.max(1 << 16, live * 2);
    const d = new Int32Array(size);
    const f = new Uint16Array(size);
    let used = 0;
    for (let t = 0; t < termCount; t++) {
      const off = tOff[t];
      if (off < 0) continue;
      const n = tLen[t];
      d.set(poolDocs.subarray(off, off + n), used);
      f.set(poolTfs.subarray(off, off + n), used);
      tOff[t] = used;
      tCap[t] = n;
      used += n;
    }
    poolDocs = d;
    poolTfs = f;
    poolUsed = used;
    poolGarbage = 0;
  }

  function appendPosting(t: number, ord: number, tf: number): void {
    const len = tLen[t];
    let off = tOff[t];
    if (off === -2) {
      off = poolAlloc(1);
      tOff[t] = off;
      tCap[t] = 1;
    } else if (len === tCap[t]) {
      // A list emptied by compaction has capacity 0.
      const cap = len === 0 ? 1 : len * 2;
      if (off >= 0 && cap <= POOL_MAX_CAP) {
        const n = poolAlloc(cap);
        // poolAlloc may have rebuilt the pool and moved this list.
        const cur = tOff[t];
        poolDocs.copyWithin(n, cur, cur + len);
        poolTfs.copyWithin(n, cur, cur + len);
        poolGarbage += tCap[t];
        tOff[t] = off = n;
        tCap[t] = cap;
      } else {
        const d = new Int32Array(Math.max(cap, POOL_MAX_CAP * 2));
        const f = new Uint16Array(d.length);
        if (off >= 0) {
          d.set(poolDocs.subarray(off, off + len));
          f.set(poolTfs.subarray(off, off + len));
          poolGarbage += tCap[t];
          tOff[t] = off = -1;
        } else {
          d.set(ownDocs[t]!.subarray(0, len));
          f.set(ownTfs[t]!.subarray(0, len));
        }
        ownDocs[t] = d;
        ownTfs[t] = f;
        tCap[t] = d.length;
      }
    }
    if (off >= 0) {
      poolDocs[off + len] = ord;
      poolTfs[off + len] = tf;
    } else {
      ownDocs[t]![len] = ord;
      ownTfs[t]![len] = tf;
    }
    tLen[t] = len + 1;
  }

  function add(id: string, text: string): void {
    if (idToOrd.has(id)) remove(id);
    const terms = tokenize(text);
    const ord = ordCount;
    growDocs(ord + 1);
    const touched: number[] = [];
    for (const term of terms) {
      const t = termId(term);
      if (scratchTf[t]++ === 0) touched.push(t);
    }
    const dl = terms.length;
    const fStart = fwdStart[ord];
    if (fStart + touched.length > fwd.length) {
      let size = fwd.length * 2;
      while (fStart + touched.length > size) size *= 2;
      fwd = resized(fwd, size, fStart);
    }
    for (let i = 0; i < touched.length; i++) {
      const t = touched[i];
      const tf = Math.min(scratchTf[t], MAX_TF);
      scratchTf[t] = 0;
      appendPosting(t, ord, tf);
      tDf[t]++;
      fwd[fStart + i] = t;
      if (tBoundEpoch[t] === boundEpoch) {
        const g = tfPart(tf, dl, boundAvg);
        if (g > tBound[t]) tBound[t] = g;
      }
    }
    fwdStart[ord + 1] = fStart + touched.length;
    docLen[ord] = dl;
    alive[ord] = 1;
    ordToId[ord] = id;
    idToOrd.set(id, ord);
    ordCount++;
    liveDocs++;
    totalLen += dl;
  }

  function remove(id: string): boolean {
    const ord = idToOrd.get(id);
    if (ord === undefined) return false;
    idToOrd.delete(id);
    alive[ord] = 0;
    ordToId[ord] = '';
    for (let i = fwdStart[ord]; i < fwdStart[ord + 1]; i++) tDf[fwd[i]]--;
    totalLen -= docLen[ord];
    liveDocs--;
    deadDocs++;
    if (deadDocs >= 64 && deadDocs > compactDeadFraction * ordCount) compact();
    return true;
  }

  function compact(): void {
    if (deadDocs === 0) return;
    // Survivors keep their relative order, so every postings list stays sorted after remapping.
    const remap = new Int32Array(ordCount).fill(-1);
    let n = 0;
    for (let o = 0; o < ordCount; o++) if (alive[o]) remap[o] = n++;

    for (let t = 0; t < termCount; t++) {
      const off = tOff[t];
      if (off === -2) continue;
      const { docs, tfs, start: base, end } = postings(t);
      let w = base;
      for (let r = base; r < end; r++) {
        const m = remap[docs[r]];
        if (m < 0) continue;
        docs[w] = m;
        tfs[w] = tfs[r];
        w++;
      }
      tLen[t] = w - base;
      if (off < 0 && tLen[t] * 4 < tCap[t] && tCap[t] > POOL_MAX_CAP * 2) {
        // Shrink lists that lost most of their documents.
        const cap = Math.max(POOL_MAX_CAP * 2, tLen[t] * 2);
        ownDocs[t] = ownDocs[t]!.slice(0, cap);
        ownTfs[t] = ownTfs[t]!.slice(0, cap);
        tCap[t] = cap;
      }
    }
    rebuildPool();

    let fw = 0;
    for (let o = 0; o < ordCount; o++) {
      const m = remap[o];
      if (m < 0) continue;
      const s = fwdStart[o];
      const e = fwdStart[o + 1];
      fwdStart[m] = fw;
      fwd.copyWithin(fw, s, e);
      fw += e - s;
      docLen[m] = docLen[o];
      alive[m] = 1;
      const id = ordToId[o];
      ordToId[m] = id;
      idToOrd.set(id, m);
    }
    fwdStart[n] = fw;
    alive.fill(0, n, ordCount);
    ordToId.length = n;
    ordToId = ordToId.slice();
    ordCount = n;
    deadDocs = 0;
    // Bounds were maxima over dead postings too; recompute them (tighter) on demand.
    boundEpoch++;
  }

  function idfOf(t: number): number {
    const df = tDf[t];
    return Math.log(1 + (liveDocs - df + 0.5) / (df + 0.5));
  }

  function refreshBound(t: number, avg: number): void {
    let max = 0;
    const off = tOff[t];
    if (off !== -2) {
      const { docs, tfs, start, end } = postings(t);
      for (let r = start; r < end; r++) {
        const d = docs[r];
        if (!alive[d]) continue;
        const g = tfPart(tfs[r], docLen[d], avg);
        if (g > max) max = g;
      }
    }
    tBound[t] = max;
    tBoundEpoch[t] = boundEpoch;
  }

  interface QueryTerm {
    t: number;
    /** Query weight: idf times the number of times the term occurs in the query. */
    w: number;
    /** Position in canonical (first-occurrence) order: scores are summed in this order on every path. */
    ci: number;
  }

  function queryTerms(query: string): QueryTerm[] {
    const seen = new Map<number, QueryTerm>();
    const out: QueryTerm[] = [];
    for (const term of tokenize(query)) {
      const t = termIds.get(term);
      if (t === undefined || tDf[t] === 0) continue;
      const q = seen.get(t);
      if (q) q.w += 1;
      else {
        const nq = { t, w: 1, ci: out.length };
        seen.set(t, nq);
        out.push(nq);
      }
    }
    for (const q of out) q.w *= idfOf(q.t);
    return out;
  }

  // Min-heap of the current top-k with the worst hit at the root. "Worse" means a lower score, or
  // an equal score and a larger id, which makes the cut deterministic.
  function createTopK(k: number) {
    const scores = new Float64Array(k);
    const ords = new Int32Array(k);
    let size = 0;
    const worse = (i: number, j: number) => scores[i] < scores[j] || (scores[i] === scores[j] && ordToId[ords[i]] > ordToId[ords[j]]);
    const swap = (i: number, j: number) => {
      const s = scores[i];
      scores[i] = scores[j];
      scores[j] = s;
      const o = ords[i];
      ords[i] = ords[j];
      ords[j] = o;
    };
    const down = (i0: number) => {
      let i = i0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= size) return;
        let m = l;
        if (l + 1 < size && worse(l + 1, l)) m = l + 1;
        if (!worse(m, i)) return;
        swap(i, m);
        i = m;
      }
    };
    return {
      get full() {
        return size === k;
      },
      /** The score a new hit must reach (ties then go by id); -Infinity until k hits are held. */
      get threshold() {
        return size === k ? scores[0] : -Infinity;
      },
      /** Whether (score, ord) would enter the heap. */
      admits(score: number, ord: number): boolean {
        if (size < k) return true;
        return score > scores[0] || (score === scores[0] && ordToId[ord] < ordToId[ords[0]]);
      },
      push(score: number, ord: number): void {
        if (size < k) {
          let i = size++;
          scores[i] = score;
          ords[i] = ord;
          while (i > 0) {
            const p = (i - 1) >> 1;
            if (!worse(i, p)) break;
            swap(i, p);
            i = p;
          }
        } else {
          scores[0] = score;
          ords[0] = ord;
          down(0);
        }
      },
      results(): LexicalHit[] {
        const out: LexicalHit[] = [];
        for (let i = 0; i < size; i++) out.push({ id: ordToId[ords[i]], score: scores[i] });
        return out.sort((x, y) => y.score - x.score || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
      },
    };
  }

  function searchExhaustive(qs: QueryTerm[], k: number, filter?: (id: string) => boolean): LexicalHit[] {
    const avg = totalLen / liveDocs || 1;
    // Same expression, constants and summation order as searchMaxScore: scores must match bit for bit.
    const k1p1 = k1 + 1;
    const normA = k1 * (1 - b);
    const normB = (k1 * b) / avg;
    const acc = new Float64Array(ordCount);
    const hit = new Uint8Array(ordCount);
    for (const q of qs) {
      const t = q.t;
      const { docs, tfs, start, end } = postings(t);
      for (let r = start; r < end; r++) {
        const d = docs[r];
        if (!alive[d]) continue;
        const tf = tfs[r];
        acc[d] += (q.w * (tf * k1p1)) / (tf + (normA + normB * docLen[d]));
        hit[d] = 1;
      }
    }
    const top = createTopK(k);
    for (let d = 0; d < ordCount; d++) {
      if (!hit[d] || !top.admits(acc[d], d)) continue;
      if (filter && !filter(ordToId[d])) continue;
      top.push(acc[d], d);
    }
    return top.results();
  }

  // Scratch for searchMaxScore, kept between queries: per (sorted term, window slot) contribution
  // and the window stamp that says it was written in the current window.
  let winContrib = new Float64Array(WINDOW * 16);
  let winStamp = new Int32Array(WINDOW * 16);
  let stamp = 0;
  const winAcc = new Float64Array(WINDOW);
  const winTouched = new Int32Array(WINDOW);

  // MaxScore (Turtle & Flood), in windows of ordinals as Lucene's MaxScoreBulkScorer does it.
  // Query terms are ordered by their score upper bound; the prefix whose bounds sum below the
  // current k-th score is "non-essential": a document found only there cannot enter the top-k.
  // Per window, the essential lists are accumulated term at time (cheap sequential reads); each
  // touched document is then kept only while its partial score plus the remaining bounds can
  // reach the threshold, probing non-essential lists by galloping search.
  function searchMaxScore(qs: QueryTerm[], k: number, filter?: (id: string) => boolean): LexicalHit[] {
    const avg = totalLen / liveDocs || 1;
    if (avg > boundAvg || avg * 1.25 < boundAvg) {
      boundAvg = avg * BOUND_AVG_SLACK;
      boundEpoch++;
    }
    for (const q of qs) if (tBoundEpoch[q.t] !== boundEpoch) refreshBound(q.t, boundAvg);

    const nq = qs.length;
    const order = qs.map((q) => ({ q, ub: q.w * tBound[q.t] * BOUND_EPS })).sort((x, y) => x.ub - y.ub || x.q.ci - y.q.ci);
    const docsOf: Int32Array[] = [];
    const tfsOf: Uint16Array[] = [];
    const pos = new Int32Array(nq);
    const end = new Int32Array(nq);
    const w = new Float64Array(nq);
    const cum = new Float64Array(nq);
    const sortedOf = new Int32Array(nq); // canonical index -> sorted index
    for (let i = 0; i < nq; i++) {
      const t = order[i].q.t;
      const p = postings(t);
      docsOf.push(p.docs);
      tfsOf.push(p.tfs);
      pos[i] = p.start;
      end[i] = p.end;
      w[i] = order[i].q.w;
      sortedOf[order[i].q.ci] = i;
      cum[i] = (i > 0 ? cum[i - 1] : 0) + order[i].ub;
    }
    if (winContrib.length < nq * WINDOW) {
      winContrib = new Float64Array(nq * WINDOW);
      winStamp = new Int32Array(nq * WINDOW);
      stamp = 0;
    }
    if (stamp > 0x3fffffff) {
      winStamp.fill(0);
      stamp = 0;
    }
    const k1p1 = k1 + 1;
    const normA = k1 * (1 - b);
    const normB = (k1 * b) / avg;
    const probe = new Float64Array(nq);
    const top = createTopK(k);
    let theta = -Infinity;
    let firstEssential = 0;

    let ws = 0;
    while (ws < ordCount && firstEssential < nq) {
      // Jump over ordinals where no essential list has postings.
      let next = 0x7fffffff;
      for (let i = firstEssential; i < nq; i++) if (pos[i] < end[i] && docsOf[i][pos[i]] < next) next = docsOf[i][pos[i]];
      if (next === 0x7fffffff) break;
      if (next >= ws + WINDOW) ws = next - (next % WINDOW);
      const we = Math.min(ws + WINDOW, ordCount);
      // Essential/non-essential split for this whole window: lists at or above it are
      // accumulated below, so their cursors end past the window and must not be probed in it.
      const fe = firstEssential;
      const st = ++stamp;
      let touched = 0;
      for (let i = fe; i < nq; i++) {
        const docs = docsOf[i];
        const tfs = tfsOf[i];
        const wi = w[i];
        const base = i * WINDOW;
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
          else if (winStamp[i * WINDOW + slot] === st) score += winContrib[i * WINDOW + slot];
        }
        if (top.admits(score, d) && (!filter || filter(ordToId[d]))) {
          top.push(score, d);
          if (top.full && top.threshold > theta) {
            theta = top.threshold;
            while (firstEssential < nq && cum[firstEssential] < theta) firstEssential++;
          }
        }
      }
      ws = we;
    }
    return top.results();
  }

  function search(query: string, k: number, sopts: LexicalSearchOptions = {}): LexicalHit[] {
    if (!(k >= 1) || liveDocs === 0) return [];
    const qs = queryTerms(query);
    if (qs.length === 0) return [];
    const kk = Math.min(Math.floor(k), liveDocs);
    // A pasted page as a query: the window scratch grows with the term count, and with that many
    // terms few lists are skippable anyway.
    const exhaustive = sopts.exhaustive || qs.length > MAX_PRUNED_TERMS;
    return exhaustive ? searchExhaustive(qs, kk, sopts.filter) : searchMaxScore(qs, kk, sopts.filter);
  }

  function idsWithTerm(term: string, limit = Infinity): string[] {
    let t = termIds.get(term);
    if (t === undefined) t = termIds.get(normalizeIdentifier(term));
    if (t === undefined) {
      const analysed = tokenize(term);
      if (analysed.length === 1) t = termIds.get(analysed[0]);
    }
    const out: string[] = [];
    if (t === undefined || tOff[t] === -2) return out;
    const { docs, start, end } = postings(t);
    for (let r = start; r < end && out.length < limit; r++) {
      if (alive[docs[r]]) out.push(ordToId[docs[r]]);
    }
    return out;
  }

  function memoryStats(): LexicalMemoryStats {
    let postings = 0;
    let own = 0;
    for (let t = 0; t < termCount; t++) {
      if (tOff[t] !== -2) postings += tLen[t];
      if (tOff[t] === -1) own += ownDocs[t]!.byteLength + ownTfs[t]!.byteLength;
    }
    const bytes = {
      postings: own + poolDocs.byteLength + poolTfs.byteLength,
      docs: docLen.byteLength + alive.byteLength + fwdStart.byteLength,
      forward: fwd.byteLength,
      terms:
        tOff.byteLength +
        tLen.byteLength +
        tCap.byteLength +
        tDf.byteLength +
        tBound.byteLength +
        tBoundEpoch.byteLength +
        scratchTf.byteLength,
    };
    // Rough V8 costs: a Map entry ~40 bytes, a string ~20 bytes + 1-2 bytes per character, an
    // own-arrays term ~200 bytes for its two typed-array objects.
    let idChars = 0;
    for (const id of idToOrd.keys()) idChars += id.length;
    let termChars = 0;
    for (const term of termIds.keys()) termChars += term.length;
    const estimated =
      idToOrd.size * 68 +
      idChars * 2 +
      ordToId.length * 8 +
      termIds.size * 60 +
      termChars +
      ownDocs.length * 8 +
      (own > 0 ? ownDocs.filter(Boolean).length * 200 : 0);
    return {
      docs: liveDocs,
      deadDocs,
      terms: termCount,
      postings,
      bytes,
      approxBytes: bytes.postings + bytes.docs + bytes.forward + bytes.terms + estimated,
    };
  }

  function snapshot(): LexicalSnapshot {
    compact();
    const postStart = new Int32Array(termCount + 1);
    for (let t = 0; t < termCount; t++) postStart[t + 1] = postStart[t] + (tOff[t] === -2 ? 0 : tLen[t]);
    const total = postStart[termCount];
    const postDocs = new Int32Array(total);
    const postTfs = new Uint16Array(total);
    const terms = new Array<string>(termCount);
    for (const [term, t] of termIds) terms[t] = term;
    for (let t = 0; t < termCount; t++) {
      if (tOff[t] === -2) continue;
      const { docs, tfs, start, end } = postings(t);
      postDocs.set(docs.subarray(start, end), postStart[t]);
      postTfs.set(tfs.subarray(start, end), postStart[t]);
    }
    return { k1, b, ids: ordToId.slice(0, ordCount), docLen: docLen.slice(0, ordCount), terms, postStart, postDocs, postTfs };
  }

  function restore(s: LexicalSnapshot): void {
    const n = s.ids.length;
    const nTerms = s.terms.length;
    if (
      s.docLen.length !== n ||
      s.postStart.length !== nTerms + 1 ||
      s.postDocs.length !== s.postStart[nTerms] ||
      s.postTfs.length !== s.postDocs.length
    ) {
      throw new RangeError('lexical snapshot: array lengths do not agree');
    }
    growDocs(n);
    docLen.set(s.docLen);
    alive.fill(1, 0, n);
    ordToId = s.ids.slice();
    for (let o = 0; o < n; o++) {
      totalLen += s.docLen[o];
      idToOrd.set(s.ids[o], o);
    }
    if (idToOrd.size !== n) throw new RangeError('lexical snapshot: duplicate ids');
    ordCount = n;
    liveDocs = n;

    growTerms(nTerms);
    termCount = nTerms;
    let pooled = 0;
    // Forward lists are the transpose of the postings: count per document, then fill.
    const fwdCount = new Int32Array(n + 1);
    for (let t = 0; t < nTerms; t++) {
      termIds.set(s.terms[t], t);
      const start = s.postStart[t];
      const len = s.postStart[t + 1] - start;
      if (len <= POOL_MAX_CAP) pooled += len;
      for (let r = start; r < start + len; r++) {
        const d = s.postDocs[r];
        if (d < 0 || d >= n || (r > start && d <= s.postDocs[r - 1])) throw new RangeError('lexical snapshot: postings out of order');
        fwdCount[d]++;
      }
    }
    if (termIds.size !== nTerms) throw new RangeError('lexical snapshot: duplicate terms');
    fwdStart[0] = 0;
    for (let o = 0; o < n; o++) fwdStart[o + 1] = fwdStart[o] + fwdCount[o];
    fwd = new Int32Array(Math.max(1 << 16, fwdStart[n]));
    const fill = fwdStart.slice(0, n);

    poolDocs = new Int32Array(Math.max(1 << 16, pooled * 2));
    poolTfs = new Uint16Array(poolDocs.length);
    for (let t = 0; t < nTerms; t++) {
      const start = s.postStart[t];
      const end = s.postStart[t + 1];
      const len = end - start;
      tLen[t] = len;
      tDf[t] = len;
      for (let r = start; r < end; r++) fwd[fill[s.postDocs[r]]++] = t;
      if (len === 0) {
        tOff[t] = -2;
        tCap[t] = 0;
      } else if (len <= POOL_MAX_CAP) {
        tOff[t] = poolUsed;
        tCap[t] = len;
        poolDocs.set(s.postDocs.subarray(start, end), poolUsed);
        poolTfs.set(s.postTfs.subarray(start, end), poolUsed);
        poolUsed += len;
      } else {
        // Views, not copies (most postings are in long lists): full, so the first posting added
        // moves the list to arrays of its own, like every other full list.
        ownDocs[t] = s.postDocs.subarray(start, end);
        ownTfs[t] = s.postTfs.subarray(start, end);
        tOff[t] = -1;
        tCap[t] = len;
      }
    }
  }

  if (from) restore(from);

  return {
    add,
    remove,
    has: (id) => idToOrd.has(id),
    snapshot,
    search,
    idsWithTerm,
    idf(term) {
      const t = termIds.get(term);
      return t === undefined || tDf[t] === 0 ? 0 : idfOf(t);
    },
    compact,
    get size() {
      return liveDocs;
    },
    memoryStats,
  };
}
