// The snapshot codec: the index's content copied out as plain arrays (LexicalSnapshot) and
// loaded back, checked, into an empty store. Forward lists are rebuilt, bounds recomputed.
import { compact } from './documents.ts';
import { growDocs, growTerms, type LexicalStore, NO_STORAGE, OWN_ARRAYS, POOL_MAX_CAP, postingsOf } from './store.ts';
import type { LexicalSnapshot } from './types.ts';

/** Compacts, then copies the content out. */
export function encodeSnapshot(s: LexicalStore): LexicalSnapshot {
  compact(s);
  const { termCount, tOff, tLen, ordCount } = s;
  const postStart = new Int32Array(termCount + 1);
  for (let t = 0; t < termCount; t++) postStart[t + 1] = postStart[t] + (tOff[t] === NO_STORAGE ? 0 : tLen[t]);
  const total = postStart[termCount];
  const postDocs = new Int32Array(total);
  const postTfs = new Uint16Array(total);
  const terms = new Array<string>(termCount);
  for (const [term, t] of s.termIds) terms[t] = term;
  for (let t = 0; t < termCount; t++) {
    if (tOff[t] === NO_STORAGE) continue;
    const { docs, tfs, start, end } = postingsOf(s, t);
    postDocs.set(docs.subarray(start, end), postStart[t]);
    postTfs.set(tfs.subarray(start, end), postStart[t]);
  }
  return {
    k1: s.k1,
    b: s.b,
    ids: s.ordToId.slice(0, ordCount),
    docLen: s.docLen.slice(0, ordCount),
    terms,
    postStart,
    postDocs,
    postTfs,
  };
}

/**
 * Loads a snapshot into a new, empty store, or throws a RangeError when its arrays do not form
 * an index. The store takes the snapshot's long postings lists as views, not copies.
 */
export function restoreSnapshot(s: LexicalStore, snap: LexicalSnapshot): void {
  const n = snap.ids.length;
  const nTerms = snap.terms.length;
  if (
    snap.docLen.length !== n ||
    snap.postStart.length !== nTerms + 1 ||
    snap.postDocs.length !== snap.postStart[nTerms] ||
    snap.postTfs.length !== snap.postDocs.length
  ) {
    throw new RangeError('lexical snapshot: array lengths do not agree');
  }
  restoreDocuments(s, snap);
  growTerms(s, nTerms);
  s.termCount = nTerms;
  const { pooled, fwdCount } = restoreTerms(s, snap);
  const { fwdStart } = s;
  fwdStart[0] = 0;
  for (let o = 0; o < n; o++) fwdStart[o + 1] = fwdStart[o] + fwdCount[o];
  s.fwd = new Int32Array(Math.max(1 << 16, fwdStart[n]));
  s.poolDocs = new Int32Array(Math.max(1 << 16, pooled * 2));
  s.poolTfs = new Uint16Array(s.poolDocs.length);
  restorePostings(s, snap);
}

function restoreDocuments(s: LexicalStore, snap: LexicalSnapshot): void {
  const n = snap.ids.length;
  growDocs(s, n);
  s.docLen.set(snap.docLen);
  s.alive.fill(1, 0, n);
  s.ordToId = snap.ids.slice();
  for (let o = 0; o < n; o++) {
    s.totalLen += snap.docLen[o];
    s.idToOrd.set(snap.ids[o], o);
  }
  if (s.idToOrd.size !== n) throw new RangeError('lexical snapshot: duplicate ids');
  s.ordCount = n;
  s.liveDocs = n;
}

/**
 * Fills the term dictionary and checks the postings; returns how many postings go to the pool
 * and each document's count of distinct terms (forward lists are the transpose of the postings).
 */
function restoreTerms(s: LexicalStore, snap: LexicalSnapshot): { pooled: number; fwdCount: Int32Array } {
  const n = snap.ids.length;
  const nTerms = snap.terms.length;
  const { postStart, postDocs } = snap;
  let pooled = 0;
  const fwdCount = new Int32Array(n + 1);
  for (let t = 0; t < nTerms; t++) {
    s.termIds.set(snap.terms[t], t);
    const start = postStart[t];
    const len = postStart[t + 1] - start;
    if (len <= POOL_MAX_CAP) pooled += len;
    for (let r = start; r < start + len; r++) {
      const d = postDocs[r];
      if (d < 0 || d >= n || (r > start && d <= postDocs[r - 1])) throw new RangeError('lexical snapshot: postings out of order');
      fwdCount[d]++;
    }
  }
  if (s.termIds.size !== nTerms) throw new RangeError('lexical snapshot: duplicate terms');
  return { pooled, fwdCount };
}

/** Places each term's postings (pool or own arrays) and fills the forward lists. */
function restorePostings(s: LexicalStore, snap: LexicalSnapshot): void {
  const nTerms = snap.terms.length;
  const { postStart, postDocs, postTfs } = snap;
  const { tOff, tLen, tCap, tDf, fwd, poolDocs, poolTfs } = s;
  const fill = s.fwdStart.slice(0, snap.ids.length);
  let used = s.poolUsed;
  for (let t = 0; t < nTerms; t++) {
    const start = postStart[t];
    const end = postStart[t + 1];
    const len = end - start;
    tLen[t] = len;
    tDf[t] = len;
    for (let r = start; r < end; r++) fwd[fill[postDocs[r]]++] = t;
    if (len === 0) {
      tOff[t] = NO_STORAGE;
      tCap[t] = 0;
    } else if (len <= POOL_MAX_CAP) {
      tOff[t] = used;
      tCap[t] = len;
      poolDocs.set(postDocs.subarray(start, end), used);
      poolTfs.set(postTfs.subarray(start, end), used);
      used += len;
    } else {
      // Views, not copies (most postings are in long lists): full, so the first posting added
      // moves the list to arrays of its own, like every other full list.
      s.ownDocs[t] = postDocs.subarray(start, end);
      s.ownTfs[t] = postTfs.subarray(start, end);
      tOff[t] = OWN_ARRAYS;
      tCap[t] = len;
    }
  }
  s.poolUsed = used;
}
