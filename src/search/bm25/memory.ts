// What an index holds and roughly how much memory it takes (for the dashboard and benchmarks).
import { type LexicalStore, NO_STORAGE, OWN_ARRAYS } from './store.ts';
import type { LexicalMemoryStats } from './types.ts';

export function memoryStats(s: LexicalStore): LexicalMemoryStats {
  const { termCount, tOff, tLen, ownDocs, ownTfs } = s;
  let postings = 0;
  let own = 0;
  for (let t = 0; t < termCount; t++) {
    if (tOff[t] !== NO_STORAGE) postings += tLen[t];
    if (tOff[t] === OWN_ARRAYS) own += ownDocs[t]!.byteLength + ownTfs[t]!.byteLength;
  }
  const bytes = {
    postings: own + s.poolDocs.byteLength + s.poolTfs.byteLength,
    docs: s.docLen.byteLength + s.alive.byteLength + s.fwdStart.byteLength,
    forward: s.fwd.byteLength,
    terms:
      tOff.byteLength +
      tLen.byteLength +
      s.tCap.byteLength +
      s.tDf.byteLength +
      s.tBound.byteLength +
      s.tBoundEpoch.byteLength +
      s.scratchTf.byteLength,
  };
  // Rough V8 costs: a Map entry ~40 bytes, a string ~20 bytes + 1-2 bytes per character, an
  // own-arrays term ~200 bytes for its two typed-array objects.
  let idChars = 0;
  for (const id of s.idToOrd.keys()) idChars += id.length;
  let termChars = 0;
  for (const term of s.termIds.keys()) termChars += term.length;
  const estimated =
    s.idToOrd.size * 68 +
    idChars * 2 +
    s.ordToId.length * 8 +
    s.termIds.size * 60 +
    termChars +
    ownDocs.length * 8 +
    (own > 0 ? ownDocs.filter(Boolean).length * 200 : 0);
  return {
    docs: s.liveDocs,
    deadDocs: s.deadDocs,
    terms: termCount,
    postings,
    bytes,
    approxBytes: bytes.postings + bytes.docs + bytes.forward + bytes.terms + estimated,
  };
}
