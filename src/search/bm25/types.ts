// The lexical index's public shapes; src/search/bm25.ts re-exports them.

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
  /** How many ids idsWithTerm would give, read from the term's document frequency instead of listed. */
  countWithTerm(term: string, limit?: number): number;
  /** BM25 idf of an analysed term over live chunks (0 when absent): lets the reranker weight terms. */
  idf(term: string): number;
  /** Drops tombstones now (it also happens on its own when they pile up). */
  compact(): void;
  readonly size: number;
  memoryStats(): LexicalMemoryStats;
  /** Compacts, then copies the content out (see LexicalSnapshot). */
  snapshot(): LexicalSnapshot;
}
