// In-memory BM25 index for one access-group partition of chunks.
//
// Why not an off-the-shelf library: at 100k chunks LangChain's BM25Retriever rescans every chunk
// (p95 3.5 s) and MiniSearch holds postings in objects (p95 1.5 s, 2.2 GB peak). This index keeps
// postings in typed arrays and answers top-k with MaxScore pruning, which returns exactly the
// results of exhaustive BM25 scoring (same scores, same order, same tie-breaks).
//
// The parts, in src/search/bm25/: store.ts (the state and its layout), postings.ts (postings
// lists storage), documents.ts (add, remove, compact), scoring.ts (idf, bounds, query terms),
// maxscore.ts and exhaustive.ts (top-k search), top-k.ts (the heap), snapshot.ts (the persisted
// form), memory.ts (memory stats). This module composes them.
import { addDocument, compact, countWithTerm, idsWithTerm, removeDocument } from './bm25/documents.ts';
import { searchExhaustive } from './bm25/exhaustive.ts';
import { createMaxScoreScratch, MAX_PRUNED_TERMS, searchMaxScore } from './bm25/maxscore.ts';
import { memoryStats } from './bm25/memory.ts';
import { idfOf, queryTerms } from './bm25/scoring.ts';
import { encodeSnapshot, restoreSnapshot } from './bm25/snapshot.ts';
import { createStore } from './bm25/store.ts';
import type { LexicalHit, LexicalIndex, LexicalIndexOptions, LexicalSearchOptions, LexicalSnapshot } from './bm25/types.ts';

export type {
  LexicalHit,
  LexicalIndex,
  LexicalIndexOptions,
  LexicalMemoryStats,
  LexicalSearchOptions,
  LexicalSnapshot,
} from './bm25/types.ts';

/**
 * A new index, or one holding a snapshot's content. Search results of a restored index are
 * identical to the original's (same postings, same ordinals, same k1/b). The index takes the
 * snapshot's postings arrays as its own storage: restore each snapshot once.
 */
export function createLexicalIndex(opts: LexicalIndexOptions = {}, from?: LexicalSnapshot): LexicalIndex {
  const k1 = from?.k1 ?? opts.k1 ?? 1.2;
  const b = from?.b ?? opts.b ?? 0.75;
  // Outside these ranges a term's contribution can be zero or negative, which the pruning and
  // the "touched" test in the MaxScore window rely on never happening.
  if (!(k1 >= 0) || !(b >= 0 && b <= 1)) throw new RangeError(`BM25 needs k1 >= 0 and 0 <= b <= 1 (got k1=${k1}, b=${b})`);
  const s = createStore(k1, b, opts.compactDeadFraction ?? 0.25);
  const scratch = createMaxScoreScratch(Math.max(1, Math.floor(opts.pruningWindow ?? 4096)));
  if (from) restoreSnapshot(s, from);

  function search(query: string, k: number, sopts: LexicalSearchOptions = {}): LexicalHit[] {
    if (!(k >= 1) || s.liveDocs === 0) return [];
    const qs = queryTerms(s, query);
    if (qs.length === 0) return [];
    const kk = Math.min(Math.floor(k), s.liveDocs);
    // A pasted page as a query: the window scratch grows with the term count, and with that many
    // terms few lists are skippable anyway.
    const exhaustive = sopts.exhaustive || qs.length > MAX_PRUNED_TERMS;
    return exhaustive ? searchExhaustive(s, qs, kk, sopts.filter) : searchMaxScore(s, scratch, qs, kk, sopts.filter);
  }

  return {
    add: (id, text) => addDocument(s, id, text),
    remove: (id) => removeDocument(s, id),
    has: (id) => s.idToOrd.has(id),
    snapshot: () => encodeSnapshot(s),
    search,
    idsWithTerm: (term, limit) => idsWithTerm(s, term, limit),
    countWithTerm: (term, limit) => countWithTerm(s, term, limit),
    idf(term) {
      const t = s.termIds.get(term);
      return t === undefined || s.tDf[t] === 0 ? 0 : idfOf(s, t);
    },
    compact: () => compact(s),
    get size() {
      return s.liveDocs;
    },
    memoryStats: () => memoryStats(s),
  };
}
