// Postings lists storage: the shared pool of small lists and the move of a growing list into
// arrays of its own (see the layout in store.ts).
import { type LexicalStore, NO_STORAGE, OWN_ARRAYS, POOL_MAX_CAP, resized } from './store.ts';

function poolAlloc(s: LexicalStore, cap: number): number {
  if (s.poolUsed + cap > s.poolDocs.length) {
    // Rebuilding reclaims moved-away blocks; only grow when that would not free enough.
    if (s.poolGarbage > s.poolUsed / 2) rebuildPool(s);
    if (s.poolUsed + cap > s.poolDocs.length) {
      let size = s.poolDocs.length;
      while (s.poolUsed + cap > size) size *= 2;
      s.poolDocs = resized(s.poolDocs, size, s.poolUsed);
      s.poolTfs = resized(s.poolTfs, size, s.poolUsed);
    }
  }
  const off = s.poolUsed;
  s.poolUsed += cap;
  return off;
}

/** Packs every pooled list into fresh arrays (capacity = length, or exactly what is live). */
export function rebuildPool(s: LexicalStore): void {
  const { tOff, tLen, tCap, termCount, poolDocs, poolTfs } = s;
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
  s.poolDocs = d;
  s.poolTfs = f;
  s.poolUsed = used;
  s.poolGarbage = 0;
}

/** Makes room for one more posting of term t, whose list is full (or has no storage yet). */
function growList(s: LexicalStore, t: number): void {
  const len = s.tLen[t];
  const off = s.tOff[t];
  if (off === NO_STORAGE) {
    const n = poolAlloc(s, 1);
    s.tOff[t] = n;
    s.tCap[t] = 1;
    return;
  }
  // A list emptied by compaction has capacity 0.
  const cap = len === 0 ? 1 : len * 2;
  if (off >= 0 && cap <= POOL_MAX_CAP) {
    const n = poolAlloc(s, cap);
    // poolAlloc may have rebuilt the pool and moved this list.
    const cur = s.tOff[t];
    s.poolDocs.copyWithin(n, cur, cur + len);
    s.poolTfs.copyWithin(n, cur, cur + len);
    s.poolGarbage += s.tCap[t];
    s.tOff[t] = n;
    s.tCap[t] = cap;
    return;
  }
  const d = new Int32Array(Math.max(cap, POOL_MAX_CAP * 2));
  const f = new Uint16Array(d.length);
  if (off >= 0) {
    d.set(s.poolDocs.subarray(off, off + len));
    f.set(s.poolTfs.subarray(off, off + len));
    s.poolGarbage += s.tCap[t];
    s.tOff[t] = OWN_ARRAYS;
  } else {
    d.set(s.ownDocs[t]!.subarray(0, len));
    f.set(s.ownTfs[t]!.subarray(0, len));
  }
  s.ownDocs[t] = d;
  s.ownTfs[t] = f;
  s.tCap[t] = d.length;
}

/** Appends (ord, tf) to term t's postings; ord is above every ordinal already there. */
export function appendPosting(s: LexicalStore, t: number, ord: number, tf: number): void {
  const len = s.tLen[t];
  if (s.tOff[t] === NO_STORAGE || len === s.tCap[t]) growList(s, t);
  const off = s.tOff[t];
  if (off >= 0) {
    s.poolDocs[off + len] = ord;
    s.poolTfs[off + len] = tf;
  } else {
    s.ownDocs[t]![len] = ord;
    s.ownTfs[t]![len] = tf;
  }
  s.tLen[t] = len + 1;
}
