// The state of one lexical index (one access-group partition of chunks), as one mutable record
// that the modules beside this one read and update: documents, the term dictionary and the
// postings storage. A record rather than closures so each part can live in its own module; the
// search paths copy the arrays they need into locals once per query, not per posting.
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

type TypedArray = Int32Array | Uint16Array | Uint8Array | Float32Array;

/** A new array of `size` entries holding the first `used` entries of `a` (growth by copying). */
export function resized<T extends TypedArray>(a: T, size: number, used: number): T {
  const out = new (a.constructor as new (n: number) => T)(size);
  out.set(a.subarray(0, used));
  return out;
}

// Terms whose postings fit in this many entries share the pool.
export const POOL_MAX_CAP = 32;
/** tOff of a term that has no postings storage yet. */
export const NO_STORAGE = -2;
/** tOff of a term whose postings are in ownDocs/ownTfs. */
export const OWN_ARRAYS = -1;

export interface LexicalStore {
  readonly k1: number;
  readonly b: number;
  readonly compactDeadFraction: number;

  // Documents, by ordinal.
  docCap: number;
  ordCount: number;
  liveDocs: number;
  deadDocs: number;
  totalLen: number;
  docLen: Float32Array;
  alive: Uint8Array;
  ordToId: string[];
  readonly idToOrd: Map<string, number>;

  // Forward lists: distinct term ids of document o are fwd[fwdStart[o] .. fwdStart[o + 1]).
  fwd: Int32Array;
  fwdStart: Int32Array;

  // Vocabulary, by term id.
  readonly termIds: Map<string, number>;
  termCap: number;
  termCount: number;
  /** Pool offset, OWN_ARRAYS, or NO_STORAGE. */
  tOff: Int32Array;
  /** Postings stored, dead ones included. */
  tLen: Int32Array;
  tCap: Int32Array;
  /** Live documents containing the term. */
  tDf: Int32Array;
  /** Max BM25 tf-part over the term's postings at boundAvg, valid while tBoundEpoch equals boundEpoch. */
  tBound: Float64Array;
  tBoundEpoch: Int32Array;
  /** Per-term tf counter used while one document is added; all zero between adds. */
  scratchTf: Int32Array;
  readonly ownDocs: (Int32Array | undefined)[];
  readonly ownTfs: (Uint16Array | undefined)[];

  // Shared pool for small postings lists. Growing a list moves it to the end of the pool; the old
  // block is garbage until the pool is rebuilt.
  poolDocs: Int32Array;
  poolTfs: Uint16Array;
  poolUsed: number;
  poolGarbage: number;

  boundAvg: number;
  boundEpoch: number;
}

export function createStore(k1: number, b: number, compactDeadFraction: number): LexicalStore {
  const docCap = 1024;
  const termCap = 1024;
  return {
    k1,
    b,
    compactDeadFraction,
    docCap,
    ordCount: 0,
    liveDocs: 0,
    deadDocs: 0,
    totalLen: 0,
    docLen: new Float32Array(docCap),
    alive: new Uint8Array(docCap),
    ordToId: [],
    idToOrd: new Map(),
    fwd: new Int32Array(1 << 16),
    fwdStart: new Int32Array(docCap + 1),
    termIds: new Map(),
    termCap,
    termCount: 0,
    tOff: new Int32Array(termCap),
    tLen: new Int32Array(termCap),
    tCap: new Int32Array(termCap),
    tDf: new Int32Array(termCap),
    tBound: new Float64Array(termCap),
    tBoundEpoch: new Int32Array(termCap).fill(-1),
    scratchTf: new Int32Array(termCap),
    ownDocs: [],
    ownTfs: [],
    poolDocs: new Int32Array(1 << 16),
    poolTfs: new Uint16Array(1 << 16),
    poolUsed: 0,
    poolGarbage: 0,
    boundAvg: 0,
    boundEpoch: 0,
  };
}

/** Where term t's postings live (the shared pool or its own arrays), as entries [start, end). */
export function postingsOf(s: LexicalStore, t: number): { docs: Int32Array; tfs: Uint16Array; start: number; end: number } {
  const off = s.tOff[t];
  return off >= 0
    ? { docs: s.poolDocs, tfs: s.poolTfs, start: off, end: off + s.tLen[t] }
    : { docs: s.ownDocs[t]!, tfs: s.ownTfs[t]!, start: 0, end: s.tLen[t] };
}

export function growDocs(s: LexicalStore, need: number): void {
  if (need <= s.docCap) return;
  let cap = s.docCap;
  while (cap < need) cap *= 2;
  s.docLen = resized(s.docLen, cap, s.ordCount);
  s.alive = resized(s.alive, cap, s.ordCount);
  s.fwdStart = resized(s.fwdStart, cap + 1, s.ordCount + 1);
  s.docCap = cap;
}

export function growTerms(s: LexicalStore, need: number): void {
  if (need <= s.termCap) return;
  let cap = s.termCap;
  while (cap < need) cap *= 2;
  const used = s.termCount;
  const grow32 = (a: Int32Array, fill = 0) => {
    const n = new Int32Array(cap);
    if (fill !== 0) n.fill(fill);
    n.set(a.subarray(0, used));
    return n;
  };
  s.tOff = grow32(s.tOff);
  s.tLen = grow32(s.tLen);
  s.tCap = grow32(s.tCap);
  s.tDf = grow32(s.tDf);
  s.tBoundEpoch = grow32(s.tBoundEpoch, -1);
  s.scratchTf = grow32(s.scratchTf);
  const nb = new Float64Array(cap);
  nb.set(s.tBound.subarray(0, used));
  s.tBound = nb;
  s.termCap = cap;
}

/** The id of a term, given a new one (without storage) when it is not in the dictionary yet. */
export function termId(s: LexicalStore, term: string): number {
  let t = s.termIds.get(term);
  if (t === undefined) {
    t = s.termCount++;
    growTerms(s, s.termCount);
    s.termIds.set(term, t);
    s.tOff[t] = NO_STORAGE;
  }
  return t;
}
