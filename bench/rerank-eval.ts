// Offline retrieval check on the PubMedQA abstracts: BM25, hash embeddings, their weighted fusion,
// and the offline reranker on top, measured as doc recall@1 and MRR@10 of the gold abstract.
//   npx tsx bench/rerank-eval.ts
// Only a sanity check for defaults: abstracts are short and BM25 alone is already strong here.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { HASH_EMBEDDING_MODEL, hashEmbed } from '../src/models/hash-embeddings.ts';
import { createLexicalIndex } from '../src/search/bm25.ts';
import { createOfflineReranker, type OfflineRerankWeights } from '../src/search/rerank.ts';

const DATA = 'datasets/pubmedqa';
const DEPTH = 30;

// Paragraphs greedily merged to <= 900 characters (a stand-in for the real chunker).
const chunks: { id: string; doc: string; text: string }[] = [];
for (const f of readdirSync(path.join(DATA, 'docs'))) {
  const doc = f.replace(/\.md$/, '');
  const body = readFileSync(path.join(DATA, 'docs', f), 'utf8').replace(/^---[\s\S]*?---/, '');
  const paras = body.split(/\n+/).filter((p) => p.trim() && !p.startsWith('#'));
  let cur = '';
  let n = 0;
  for (const p of paras) {
    if (cur && cur.length + p.length > 900) {
      chunks.push({ id: `${doc}#${n++}`, doc, text: cur });
      cur = '';
    }
    cur = cur ? `${cur}\n${p}` : p;
  }
  if (cur) chunks.push({ id: `${doc}#${n++}`, doc, text: cur });
}
const byId = new Map(chunks.map((c) => [c.id, c]));
const questions = readFileSync(path.join(DATA, 'questions.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as { question: string; doc_id: string });

const index = createLexicalIndex();
for (const c of chunks) index.add(c.id, c.text);
const t0 = performance.now();
const vecs = chunks.map((c) => hashEmbed(c.text));
const embedMs = performance.now() - t0;
console.log(
  `${chunks.length} chunks from ${new Set(chunks.map((c) => c.doc)).size} ` +
    `abstracts, ${questions.length} questions; hash embedding (${HASH_EMBEDDING_MODEL}) ${embedMs.toFixed(0)} ` +
    `ms, ${((embedMs / chunks.length) * 1000).toFixed(0)} ms per 1000 chunks (cold)`,
);

const dot = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};

type Ranked = { id: string; score: number }[];
function bm25(q: string): Ranked {
  return index.search(q, DEPTH);
}
function dense(q: string): Ranked {
  const v = hashEmbed(q);
  return chunks
    .map((c, i) => ({ id: c.id, score: dot(v, vecs[i]) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, DEPTH);
}
// Weighted fusion of max-normalised scores (what docs/architecture.md reports as best offline).
function fused(q: string, alpha = 0.3): Ranked {
  const a = bm25(q);
  const b = dense(q);
  const amax = a[0]?.score || 1;
  const bmax = b[0]?.score || 1;
  const s = new Map<string, number>();
  for (const h of a) s.set(h.id, (s.get(h.id) ?? 0) + h.score / amax);
  for (const h of b) s.set(h.id, (s.get(h.id) ?? 0) + (alpha * h.score) / bmax);
  return [...s]
    .map(([id, score]) => ({ id, score }))
    .sort((x, y) => y.score - x.score)
    .slice(0, DEPTH);
}

function metrics(ranked: Ranked[], label: string) {
  let r1 = 0;
  let mrr = 0;
  ranked.forEach((r, qi) => {
    const gold = questions[qi].doc_id;
    const docs: string[] = [];
    for (const h of r) {
      const d = byId.get(h.id)!.doc;
      if (!docs.includes(d)) docs.push(d);
    }
    const rank = docs.indexOf(gold);
    if (rank === 0) r1++;
    if (rank >= 0 && rank < 10) mrr += 1 / (rank + 1);
  });
  console.log(`${label.padEnd(44)} recall@1 ${((100 * r1) / ranked.length).toFixed(1)}  MRR@10 ${(mrr / ranked.length).toFixed(3)}`);
}

async function rerankAll(base: Ranked[], weights?: Partial<OfflineRerankWeights>): Promise<Ranked[]> {
  const rr = createOfflineReranker({ weights, idf: (t) => index.idf(t) });
  return Promise.all(
    base.map((r, qi) =>
      rr.rerank(
        questions[qi].question,
        r.map((h) => ({ ...h, text: byId.get(h.id)!.text })),
      ),
    ),
  );
}

const qs = questions.map((q) => q.question);
const B = qs.map(bm25);
const D = qs.map((q) => dense(q));
const F = qs.map((q) => fused(q));
metrics(B, 'bm25');
metrics(D, 'hash embeddings');
metrics(F, 'bm25 + 0.3 hash (weighted)');
for (const [label, base] of [
  ['bm25', B],
  ['fused', F],
] as const) {
  metrics(await rerankAll(base), `${label} + offline rerank (defaults)`);
  metrics(await rerankAll(base, { coverage: 0, phrase: 0 }), `${label} + proximity only`);
  metrics(await rerankAll(base, { proximity: 0, phrase: 0 }), `${label} + coverage only`);
  metrics(await rerankAll(base, { coverage: 0, proximity: 0 }), `${label} + phrase only`);
  metrics(await rerankAll(base, { coverage: 0.5, proximity: 0.3, phrase: 0.2 }), `${label} + rerank x2 weights`);
}
