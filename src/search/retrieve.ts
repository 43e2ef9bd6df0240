// Hybrid retrieval: dense (Chroma, one collection per allowed group) + BM25 (one partition per
// allowed group) -> fusion -> exact-match boost -> rerank of the head -> top k passages.
// Access is decided here, before anything is scored: only the allowed groups are ever searched.
import type { Config } from '../config.ts';
import type { Chunk, Passage, PassagePart } from '../types.ts';
import { chunkOrdinal, type Catalog } from './catalog.ts';
import { type FusedHit, fuseRrf, fuseWeighted, type Ranked } from './fuse.ts';
import { exactMatchFraction, exactMatchers, extractExactTerms } from './identifiers.ts';
import type { Reranker } from './rerank.ts';
import { readNamedSource, type NamedSource } from './source-query.ts';
import { type Token, tokenize, tokenizeWithPositions } from './tokenize.ts';

export type RetrievalSettings = Config['retrieval'];

export interface RetrieveDeps {
  catalog: Catalog;
  dense: (group: string, vector: number[], n: number) => Promise<Ranked[]>;
  embedQuery: (text: string) => Promise<number[]>;
  reranker?: Reranker;
  onDenseError?: (err: Error) => void;
}

export interface PassageDebug {
  denseRank?: number;
  lexicalRank?: number;
  fused: number;
  exact: number;
  rerank?: number;
}

export interface RetrievedPassage extends Passage {
  debug: PassageDebug;
}

export interface RetrievalResult {
  passages: RetrievedPassage[];
  /** How the question's source names were read ("in the Okafor 2023 paper"), if it names one. */
  source?: NamedSource;
  /** The question's translations that were searched too (see src/translate/), for the answer step to read with. */
  alternates?: string[];
  /**
   * The other senses of the translations' words, when the translator gives them (set by the
   * Asker, which waits for them only after the search), for the answer step to read with. Not
   * searched: on XQuAD's dev half that won Spanish questions 0.3 points of R@1 and lost English
   * questions over Spanish articles 0.9.
   */
  senses?: string[][];
  timings: { embedMs: number; denseMs: number; lexicalMs: number; fuseMs: number; rerankMs: number; totalMs: number };
  /**
   * Term statistics of the groups searched (chunks holding a term, counting stops at DF_LIMIT; the
   * index's size), so the answer step weighs question terms by the same index on every path.
   */
  terms?: { df: (term: string) => number; chunks: number };
}

/** Document frequencies past a few thousand chunks all mean "common": counting stops there. */
const DF_LIMIT = 5000;

/** How much an exact identifier/phrase match lifts a passage, relative to the best fused score. */
const EXACT_BOOST = 1;
/** Candidates searched when the question names its source, before keeping that source's passages. */
const NAMED_POOL = 1000;
/** Ids found only through an exact identifier lookup, at most. */
const EXACT_LOOKUP_LIMIT = 200;

/** A hit as ranked: its fused score with the exact-match lift, and its reranker score once reranked. */
type OrderedHit = FusedHit & { exact: number; rerank: number | undefined };

export async function retrieve(
  question: string,
  groups: string[],
  settings: RetrievalSettings,
  deps: RetrieveDeps,
  k: number = settings.k,
  translations: readonly string[] | Promise<readonly string[]> = [],
): Promise<RetrievalResult> {
  const t0 = performance.now();
  const termStats = { df: (term: string) => deps.catalog.countWithTerm(groups, term, DF_LIMIT), chunks: deps.catalog.chunkCount };
  const named = readNamedSource(question, groups, deps.catalog);
  if (named?.restricts && named.documents === 0) {
    // The question names a source the index does not have (to this channel): nothing else answers it.
    return {
      passages: [],
      source: named,
      terms: termStats,
      timings: { embedMs: 0, denseMs: 0, lexicalMs: 0, fuseMs: 0, rerankMs: 0, totalMs: performance.now() - t0 },
    };
  }
  // A named source's passages must be found even when other documents outrank them: search deeper.
  const n = named?.restricts || named?.lifted.size ? Math.max(settings.candidates, k, NAMED_POOL) : Math.max(settings.candidates, k);

  // Every hit, whatever list it comes from, must belong to a group being searched: a collection
  // or partition holding a chunk of another group (a drift, a moved document) must not leak it.
  const searched = new Set(groups);
  const allowed = (id: string) => {
    const g = deps.catalog.groupOf(id);
    return g !== undefined && searched.has(g);
  };
  // The dense search (embedding, then one Chroma query per group) is started first and the
  // lexical search, synchronous CPU work, runs while its requests are in flight.
  const denseP = denseSearch(question, groups, n, deps);
  // One turn of the event loop: an embedding already computed (a local model) has its queries
  // sent before the lexical search takes the thread.
  await new Promise<void>((resolve) => setImmediate(resolve));
  // The translations may still be on their way: the dense queries (of the question alone) do not wait for them.
  const alternates = await translations;
  const lexicalStart = performance.now();
  // The question and its translations are searched lexically alike; each chunk keeps its best
  // score over them (scores of one index are comparable across queries), so a translation that
  // matches nothing in a one-language corpus adds nothing, where a list of its own would be
  // normalised up.
  const texts = [question, ...alternates];
  const idf = (term: string) => deps.catalog.idf(term, groups);
  const lexicalLists = texts.map((t) => deps.catalog.lexicalSearch(groups, t, n));
  const lexical = bestOf(lexicalLists)
    .filter((h) => allowed(h.id))
    .slice(0, n);
  // The reranker reads the text whose words the index matches best: the question, or for a
  // question in the other language than the documents, its translation.
  const topOf = (list: Ranked[]) => list.reduce((m, h) => Math.max(m, h.score), 0);
  const lead = texts[lexicalLists.reduce((best, list, i) => (topOf(list) > topOf(lexicalLists[best]) ? i : best), 0)];
  const lexicalMs = performance.now() - lexicalStart;
  // Still waiting on the dense queries: the lexical head, most of what will be reranked, is
  // analysed for the reranker now rather than after them.
  const analysed = new Map<string, Token[]>();
  if (deps.reranker?.readsTokens && settings.rerankDepth > 1)
    for (const h of lexical.slice(0, settings.rerankDepth)) analysed.set(h.id, tokenizeWithPositions(deps.catalog.searchText(h.id) ?? ''));
  const denseResult = await denseP;
  if ('error' in denseResult) throw denseResult.error;
  const { embedMs, denseMs } = denseResult;
  const dense = denseResult.hits.filter((h) => allowed(h.id)).slice(0, n);

  const tFuse = performance.now();
  const weights = [settings.denseWeight, settings.lexicalWeight];
  const fused = settings.fusion === 'rrf' ? fuseRrf([dense, lexical], weights, settings.rrfK) : fuseWeighted([dense, lexical], weights);
  const scored = exactBoosted(question, fused, named, groups, deps.catalog, allowed);
  const fuseMs = performance.now() - tFuse;

  const tRerank = performance.now();
  const liftedFirst = <T extends { id: string }>(list: T[]): T[] => {
    if (!named?.lifted.size) return list;
    const lifted = (id: string) => named.lifted.has(deps.catalog.chunkInfo(id)?.docId ?? '');
    return [...list.filter((h) => lifted(h.id)), ...list.filter((h) => !lifted(h.id))];
  };
  const depth = Math.min(settings.rerankDepth, scored.length);
  let ordered = liftedFirst(scored).map((h) => ({ ...h, rerank: undefined as number | undefined }));
  if (deps.reranker && depth > 1) ordered = await rerankHead(lead, ordered, depth, deps.reranker, deps.catalog, idf, analysed);
  if (named?.kinds.length) {
    // "According to our Western blot protocol": passages of the named kind go first, each group in
    // the order ranking gave it (a kind word alone does not exclude the others).
    // Only the head is reordered: a kind word lifts what ranking already found, it does not pull in
    // weak passages of that kind (kinds are detected, and detection can be wrong).
    const fits = (id: string) => named.kinds.includes(deps.catalog.doc(deps.catalog.chunkInfo(id)?.docId ?? '')?.kind ?? 'note');
    const head = ordered.slice(0, 2 * k);
    ordered = [...head.filter((h) => fits(h.id)), ...head.filter((h) => !fits(h.id)), ...ordered.slice(2 * k)];
  }
  // A name the document carries outweighs a kind word (kinds are detected, and can be wrong).
  ordered = liftedFirst(ordered);
  const rerankMs = performance.now() - tRerank;

  return {
    passages: topPassages(ordered, k, settings.expandTop, deps.catalog, allowed),
    ...(named ? { source: named } : {}),
    ...(alternates.length ? { alternates: [...alternates] } : {}),
    terms: termStats,
    timings: { embedMs, denseMs, lexicalMs, fuseMs, rerankMs, totalMs: performance.now() - t0 },
  };
}

/**
 * The fused hits, widened and lifted by the question's exact terms (and narrowed to a source it
 * names), best first.
 */
function exactBoosted(
  question: string,
  fused: FusedHit[],
  named: NamedSource | undefined,
  groups: string[],
  catalog: Catalog,
  allowed: (id: string) => boolean,
): (FusedHit & { exact: number })[] {
  // Exact terms: make sure every chunk containing a rare identifier is a candidate, then lift
  // the candidates that contain the terms literally.
  const terms = extractExactTerms(question);
  const matchers = exactMatchers(terms);
  const candidates = new Map(fused.map((h) => [h.id, { ...h }]));
  // Matchers are phrases first, then identifiers (see exactMatchers). An identifier common in
  // the corpus (a cell line every protocol names) says little about which passage answers, so
  // its boost shrinks with its idf; a rare catalogue number keeps the full boost.
  const exactWeights = [...terms.phrases.map(() => 1), ...terms.identifiers.map((id) => identifierWeight(id, catalog, groups))];
  if (matchers.length) {
    for (const id of terms.identifiers) {
      for (const term of new Set(tokenize(id))) {
        for (const cid of catalog.idsWithTerm(groups, term, EXACT_LOOKUP_LIMIT)) {
          if (!candidates.has(cid) && allowed(cid)) candidates.set(cid, { id: cid, score: 0, ranks: [undefined, undefined] });
        }
      }
    }
  }
  if (named?.restricts) {
    for (const id of [...candidates.keys()]) if (!named.docIds.has(catalog.chunkInfo(id)?.docId ?? '')) candidates.delete(id);
    for (const cid of named.chunkIds) if (!candidates.has(cid)) candidates.set(cid, { id: cid, score: 0, ranks: [undefined, undefined] });
  }
  // Documents that carry an unmatched name on their first page or in their file name compete with
  // all their chunks, and go first (see liftedFirst in retrieve).
  for (const cid of named?.liftedChunkIds ?? [])
    if (!candidates.has(cid) && allowed(cid)) candidates.set(cid, { id: cid, score: 0, ranks: [undefined, undefined] });
  const top = fused[0]?.score ?? 1;
  const scored = [...candidates.values()].map((h) => {
    const exact = exactMatchFraction(catalog.searchText(h.id) ?? '', matchers, exactWeights);
    return { ...h, exact, score: h.score + EXACT_BOOST * top * exact };
  });
  scored.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
  return scored;
}

/** Wall times of the dense half: embedding the question, then its queries (they overlap the lexical search). */
type DenseResult = { hits: Ranked[]; embedMs: number; denseMs: number } | { error: unknown };

/**
 * The question's dense hits over every group, best first. A failing embedding degrades to no dense
 * hits (lexical-only retrieval) instead of no answer; a failing query is returned as an error, not
 * thrown, because this runs unawaited while the lexical search holds the thread.
 */
async function denseSearch(question: string, groups: string[], n: number, deps: RetrieveDeps): Promise<DenseResult> {
  const t0 = performance.now();
  // Only the question is embedded: one call to a remote endpoint per question, and a
  // multilingual embedding model needs no translation.
  const vector = await deps.embedQuery(question).catch((err: Error) => {
    deps.onDenseError?.(err);
    return undefined;
  });
  const t1 = performance.now();
  if (!vector) return { hits: [], embedMs: t1 - t0, denseMs: 0 };
  try {
    const perGroup = await Promise.all(groups.map((g) => deps.dense(g, vector, n)));
    return { hits: bestOf(perGroup), embedMs: t1 - t0, denseMs: performance.now() - t1 };
  } catch (error) {
    return { error };
  }
}

/** The first `depth` hits in the reranker's order (any it drops keep their place after it), then the rest. */
async function rerankHead(
  question: string,
  ordered: OrderedHit[],
  depth: number,
  reranker: Reranker,
  catalog: Catalog,
  idf: (term: string) => number,
  analysed: ReadonlyMap<string, Token[]>,
): Promise<OrderedHit[]> {
  const head = ordered.slice(0, depth);
  const reranked = await reranker.rerank(
    question,
    head.map((h) => {
      const tokens = analysed.get(h.id);
      return { id: h.id, text: catalog.searchText(h.id) ?? '', score: h.score, ...(tokens ? { tokens } : {}) };
    }),
    { idf },
  );
  const byId = new Map(head.map((h) => [h.id, h]));
  const newHead = reranked.filter((r) => byId.has(r.id)).map((r) => ({ ...byId.get(r.id)!, rerank: r.score }));
  const missing = head.filter((h) => !newHead.some((x) => x.id === h.id));
  return [...newHead, ...missing, ...ordered.slice(depth)];
}

/**
 * The first k readable hits as passages; the best `expandTop` carry their neighbouring chunks,
 * which are then not repeated.
 */
function topPassages(
  ordered: OrderedHit[],
  k: number,
  expandTop: number,
  catalog: Catalog,
  allowed: (id: string) => boolean,
): RetrievedPassage[] {
  const passages: RetrievedPassage[] = [];
  const used = new Set<string>();
  for (const h of ordered) {
    if (passages.length >= k) break;
    if (used.has(h.id) || !allowed(h.id)) continue;
    const p = catalog.passage(h.id, h.rerank ?? h.score);
    if (!p) continue;
    used.add(h.id);
    // Small-to-big: the best hits carry their neighbouring chunks, so an answer that straddles a
    // chunk boundary still reaches the model; neighbours shown this way are not repeated later.
    if (passages.length < expandTop) {
      const { text, ids, parts } = withNeighbours(h.id, catalog);
      p.text = text;
      if (parts.length > 1) p.parts = parts;
      for (const id of ids) used.add(id);
    }
    passages.push({
      ...p,
      debug: { denseRank: h.ranks[0], lexicalRank: h.ranks[1], fused: h.score, exact: h.exact, rerank: h.rerank },
    });
  }
  return passages;
}

/** An identifier's weight: its idf relative to that of a term found in a single chunk, both over the searched groups. */
function identifierWeight(identifier: string, catalog: Catalog, groups: string[]): number {
  const idfs = tokenize(identifier).map((t) => catalog.idf(t, groups));
  const idf = idfs.length ? Math.max(...idfs) : 0;
  const n = catalog.chunkCountIn(groups);
  const rarest = Math.log(1 + (n - 0.5) / 1.5);
  return rarest > 0 ? Math.min(1, idf / rarest) : 1;
}

/**
 * A chunk's text with the bodies of its previous and next chunks, overlaps removed, and each
 * chunk's piece of it (so each can be cited by its own step, slide, section or page).
 */
function withNeighbours(chunkId: string, catalog: Catalog): { text: string; ids: string[]; parts: PassagePart[] } {
  const chunk = catalog.chunk(chunkId)!;
  const n = chunkOrdinal(chunkId);
  // A neighbour may be one the hit before already brought (hits two chunks apart): it is repeated,
  // so each hit is read with the text on both its sides.
  const prev = catalog.chunk(`${chunk.docId}#${n - 1}`);
  const next = catalog.chunk(`${chunk.docId}#${n + 1}`);
  const split = (c: Chunk) => {
    const at = c.text.indexOf('\n');
    return at < 0 ? { header: c.text, body: '' } : { header: c.text.slice(0, at), body: c.text.slice(at + 1) };
  };
  const part = (c: Chunk, body: string, sep: PassagePart['sep']): PassagePart => {
    const p: PassagePart = { chunkId: c.id, section: c.section, header: split(c).header, body, sep };
    if (c.step !== undefined) p.step = c.step;
    if (c.slide !== undefined) p.slide = c.slide;
    if (c.page !== undefined) p.page = c.page;
    return p;
  };
  const parts: PassagePart[] = [];
  let text = '';
  for (const c of [prev, chunk, next]) {
    if (!c) continue;
    const body = split(c).body;
    if (parts.length === 0) {
      parts.push(part(c, body, ''));
      text = body;
      continue;
    }
    const k = overlap(text, body);
    const piece = k > 0 ? body.slice(k) : body;
    parts.push(part(c, piece, k > 0 ? '' : '\n'));
    text = k > 0 ? text + piece : `${text}\n${piece}`;
  }
  return { text: `${split(chunk).header}\n${text}`, ids: [prev?.id, next?.id].filter((x): x is string => Boolean(x)), parts };
}

/** How many characters the second text repeats of the end of the first (chunk overlap), or 0. */
function overlap(a: string, b: string): number {
  for (let k = Math.min(a.length, b.length, 600); k >= 20; k--) {
    if (a.endsWith(b.slice(0, k))) return k;
  }
  return 0;
}

/** Hits of several lists as one, each id with its best score, best first. */
function bestOf(lists: Ranked[][]): Ranked[] {
  if (lists.length === 1) return [...lists[0]].sort((a, b) => b.score - a.score);
  const best = new Map<string, number>();
  for (const list of lists) for (const h of list) if ((best.get(h.id) ?? -Infinity) < h.score) best.set(h.id, h.score);
  return [...best].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
}
