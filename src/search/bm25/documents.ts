// Adding, removing, compacting and listing documents (see the layout in store.ts).
import { normalizeIdentifier, tokenize } from '../tokenize.ts';
import { appendPosting, rebuildPool } from './postings.ts';
import { growDocs, type LexicalStore, NO_STORAGE, POOL_MAX_CAP, postingsOf, resized, termId } from './store.ts';
import { tfPart } from './scoring.ts';

const MAX_TF = 65535;

/** Indexes a document under a new ordinal; an existing id is removed first. */
export function addDocument(s: LexicalStore, id: string, text: string): void {
  if (s.idToOrd.has(id)) removeDocument(s, id);
  const terms = tokenize(text);
  const ord = s.ordCount;
  growDocs(s, ord + 1);
  const touched: number[] = [];
  for (const term of terms) {
    const t = termId(s, term);
    if (s.scratchTf[t]++ === 0) touched.push(t);
  }
  const dl = terms.length;
  const fStart = s.fwdStart[ord];
  if (fStart + touched.length > s.fwd.length) {
    let size = s.fwd.length * 2;
    while (fStart + touched.length > size) size *= 2;
    s.fwd = resized(s.fwd, size, fStart);
  }
  const { scratchTf, tDf, fwd, tBound, tBoundEpoch, boundEpoch, boundAvg, k1, b } = s;
  for (let i = 0; i < touched.length; i++) {
    const t = touched[i];
    const tf = Math.min(scratchTf[t], MAX_TF);
    scratchTf[t] = 0;
    appendPosting(s, t, ord, tf);
    tDf[t]++;
    fwd[fStart + i] = t;
    // A valid bound must stay one: raise it to this posting's tf part.
    if (tBoundEpoch[t] === boundEpoch) {
      const g = tfPart(tf, dl, boundAvg, k1, b);
      if (g > tBound[t]) tBound[t] = g;
    }
  }
  s.fwdStart[ord + 1] = fStart + touched.length;
  s.docLen[ord] = dl;
  s.alive[ord] = 1;
  s.ordToId[ord] = id;
  s.idToOrd.set(id, ord);
  s.ordCount++;
  s.liveDocs++;
  s.totalLen += dl;
}

/** Tombstones a document; its postings stay until compaction, its term frequencies go at once. */
export function removeDocument(s: LexicalStore, id: string): boolean {
  const ord = s.idToOrd.get(id);
  if (ord === undefined) return false;
  s.idToOrd.delete(id);
  s.alive[ord] = 0;
  s.ordToId[ord] = '';
  const { fwd, fwdStart, tDf } = s;
  for (let i = fwdStart[ord]; i < fwdStart[ord + 1]; i++) tDf[fwd[i]]--;
  s.totalLen -= s.docLen[ord];
  s.liveDocs--;
  s.deadDocs++;
  if (s.deadDocs >= 64 && s.deadDocs > s.compactDeadFraction * s.ordCount) compact(s);
  return true;
}

/** Drops tombstones: renumbers the survivors in order and removes their dead postings. */
export function compact(s: LexicalStore): void {
  if (s.deadDocs === 0) return;
  const { ordCount, alive } = s;
  // Survivors keep their relative order, so every postings list stays sorted after remapping.
  const remap = new Int32Array(ordCount).fill(-1);
  let n = 0;
  for (let o = 0; o < ordCount; o++) if (alive[o]) remap[o] = n++;
  compactPostings(s, remap);
  rebuildPool(s);

  const { fwd, fwdStart, docLen, ordToId, idToOrd } = s;
  let fw = 0;
  for (let o = 0; o < ordCount; o++) {
    const m = remap[o];
    if (m < 0) continue;
    const st = fwdStart[o];
    const e = fwdStart[o + 1];
    fwdStart[m] = fw;
    fwd.copyWithin(fw, st, e);
    fw += e - st;
    docLen[m] = docLen[o];
    alive[m] = 1;
    const id = ordToId[o];
    ordToId[m] = id;
    idToOrd.set(id, m);
  }
  fwdStart[n] = fw;
  alive.fill(0, n, ordCount);
  ordToId.length = n;
  s.ordToId = ordToId.slice();
  s.ordCount = n;
  s.deadDocs = 0;
  // Bounds were maxima over dead postings too; recompute them (tighter) on demand.
  s.boundEpoch++;
}

/** Rewrites every postings list through remap (old ordinal -> new, or -1 for a dead one). */
function compactPostings(s: LexicalStore, remap: Int32Array): void {
  const { tOff, tLen, tCap, termCount } = s;
  for (let t = 0; t < termCount; t++) {
    const off = tOff[t];
    if (off === NO_STORAGE) continue;
    const { docs, tfs, start: base, end } = postingsOf(s, t);
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
      s.ownDocs[t] = s.ownDocs[t]!.slice(0, cap);
      s.ownTfs[t] = s.ownTfs[t]!.slice(0, cap);
      tCap[t] = cap;
    }
  }
}

/** The term id a raw term is looked up by: as given, as an identifier, or analysed when it is one word. */
function lookupTerm(s: LexicalStore, term: string): number | undefined {
  const { termIds } = s;
  let t = termIds.get(term);
  if (t === undefined) t = termIds.get(normalizeIdentifier(term));
  if (t === undefined) {
    const analysed = tokenize(term);
    if (analysed.length === 1) t = termIds.get(analysed[0]);
  }
  return t;
}

/** How many live documents hold a term, at most `limit`: its document frequency counts exactly those. */
export function countWithTerm(s: LexicalStore, term: string, limit = Infinity): number {
  const t = lookupTerm(s, term);
  return t === undefined || s.tOff[t] === NO_STORAGE ? 0 : Math.min(s.tDf[t], limit);
}

/** Ids of the live documents with a term, in ordinal order (see LexicalIndex.idsWithTerm). */
export function idsWithTerm(s: LexicalStore, term: string, limit = Infinity): string[] {
  const t = lookupTerm(s, term);
  const out: string[] = [];
  if (t === undefined || s.tOff[t] === NO_STORAGE) return out;
  const { alive, ordToId } = s;
  const { docs, start, end } = postingsOf(s, t);
  for (let r = start; r < end && out.length < limit; r++) {
    if (alive[docs[r]]) out.push(ordToId[docs[r]]);
  }
  return out;
}
