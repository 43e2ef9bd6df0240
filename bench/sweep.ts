// `npx tsx bench/sweep.ts <dataset dir> [--size 900 --overlap 150] [--limit N] [--split dev|test]`
// Retrieval settings sweep on one dataset: ingests once into a kept collection named by the
// dataset and chunking (reused on the next run), then evaluates fusion variants in-process.
// For measuring general changes across several datasets, not for tuning to one. Scores only the
// dev split by default (questions about dev documents, src/eval/split.ts): settings are chosen
// there and reported with `npm run eval -- <dir> --split test`, which tuning never saw.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openLabbot } from '../src/app.ts';
import { loadConfig, type Config } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { inSplit, SPLITS, type Split } from '../src/eval/split.ts';
import { percentile } from '../src/eval/stats.ts';
import { parseQuestions, scoreQuestion, summarize } from '../src/eval/score.ts';
import { createOfflineReranker, DEFAULT_OFFLINE_WEIGHTS, type OfflineRerankWeights } from '../src/search/rerank.ts';
import { retrieve } from '../src/search/retrieve.ts';
import { indexVersion } from '../src/index/version.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    size: { type: 'string', default: '500' },
    overlap: { type: 'string', default: '80' },
    limit: { type: 'string', default: '100000' },
    split: { type: 'string', default: 'dev' },
    variants: { type: 'string', default: 'default' },
    // Extra offline-reranker variants: "|"-separated lists of space-separated key=value over the defaults,
    // e.g. --weights "coverage=0.6|denseWeight=0.25 proximity=0.2"
    weights: { type: 'string', default: '' },
  },
});
const dir = path.resolve(positionals[0]);
const name = path.basename(dir).replace(/[^A-Za-z0-9_-]/g, '-');
const base = loadConfig();
const chunking = { size: Number(values.size), overlap: Number(values.overlap) };
const config: Config = {
  ...base,
  // Named by the index version too: a chunker change gets a fresh collection, not a refusal.
  collection: `sweep-${name}-${indexVersion({
    embeddingProvider: base.embeddings.provider,
    embeddingModel: base.embeddings.model,
    dimensions: base.embeddings.dimensions ?? 384,
    chunking,
  })}`,
  chunking,
  sources: [],
  dataDir: base.chromaUrl ? base.dataDir : path.join(os.tmpdir(), 'labbot-sweep'),
};
const app = await openLabbot(config, createLogger('warn'));
const s = await app.ingest({ sourceId: name, root: path.join(dir, 'docs') });
console.error(
  `${name}: ${app.catalog.stats().documents} docs, ${app.catalog.stats().chunks} chunks (${s.documents.indexed} newly indexed)`,
);
const { questions } = parseQuestions(readFileSync(path.join(dir, 'questions.jsonl'), 'utf8'));
if (!SPLITS.includes(values.split as Split)) throw new Error(`--split must be one of ${SPLITS.join(', ')}`);
const qs = inSplit(questions, values.split as Split, (q) => q.doc_id).slice(0, Number(values.limit));
console.error(`${qs.length} questions on the ${values.split} split`);

type Variant = { name: string; retrieval: Partial<Config['retrieval']>; rerank?: boolean | 'plain' | OfflineRerankWeights };
const variants: Variant[] = [
  { name: 'default', retrieval: {} },
  { name: 'lexical only', retrieval: { denseWeight: 0 }, rerank: false },
  { name: 'dense only', retrieval: { lexicalWeight: 0 }, rerank: false },
  { name: 'weighted 0.35, no rerank', retrieval: {}, rerank: false },
  { name: 'weighted 0.2', retrieval: { denseWeight: 0.2 } },
  { name: 'weighted 0.5', retrieval: { denseWeight: 0.5 } },
  { name: 'rrf 1:1', retrieval: { fusion: 'rrf', denseWeight: 1, lexicalWeight: 1 } },
  { name: 'rrf 0.5:1', retrieval: { fusion: 'rrf', denseWeight: 0.5, lexicalWeight: 1 } },
  { name: 'no expand', retrieval: { expandTop: 0 } },
  { name: 'rerank without idf', retrieval: {}, rerank: 'plain' },
  { name: 'rerank strong', retrieval: {}, rerank: { fused: 1, coverage: 0.5, proximity: 0.3, phrase: 0.2 } },
  { name: 'rerank coverage', retrieval: {}, rerank: { fused: 1, coverage: 0.5, proximity: 0.15, phrase: 0.1 } },
  { name: 'rerank proximity', retrieval: {}, rerank: { fused: 1, coverage: 0.25, proximity: 0.4, phrase: 0.1 } },
  { name: 'rerank depth 50', retrieval: { rerankDepth: 50 } },
  { name: 'rerank coverage 0.25', retrieval: {}, rerank: { fused: 1, coverage: 0.25, proximity: 0.15, phrase: 0.1 } },
  { name: 'rerank no coverage', retrieval: {}, rerank: { fused: 1, coverage: 0, proximity: 0.15, phrase: 0.1 } },
  { name: 'expand 2', retrieval: { expandTop: 2 } },
];
const chosen =
  values.variants === 'all' ? variants : variants.filter((v) => v.name === 'default' || values.variants.split(',').includes(v.name));
for (const spec of values.weights.split('|').filter(Boolean)) {
  const w: OfflineRerankWeights = { ...DEFAULT_OFFLINE_WEIGHTS };
  const retrieval: Partial<Config['retrieval']> = {};
  for (const kv of spec.trim().split(/\s+/)) {
    const [k, v] = kv.split('=');
    if (k === 'denseWeight' || k === 'rerankDepth' || k === 'candidates') retrieval[k] = Number(v);
    else if (k === 'fused' || k === 'coverage' || k === 'proximity' || k === 'phrase') w[k] = Number(v);
    else throw new Error(`unknown weight ${k}`);
  }
  chosen.push({ name: spec.trim().slice(0, 28), retrieval, rerank: w });
}
const pct = (v: number | undefined) => (v === undefined ? '   -  ' : `${(v * 100).toFixed(1).padStart(5)}%`);
const k = config.retrieval.k;
console.log(`variant                      R@1     R@5     R@${String(k).padEnd(4)}  MRR    ans@5   in-ctx   p95ms`);
for (const v of chosen) {
  const settings = { ...config.retrieval, ...v.retrieval };
  const scores = [];
  const lat: number[] = [];
  for (const q of qs) {
    const r = await retrieve(
      q.question,
      ['public'],
      settings,
      {
        catalog: app.catalog,
        dense: (g, vec, n) => app.store.query(g, vec, n),
        embedQuery: (t) => app.embeddings.embedQuery(t),
        reranker:
          v.rerank === false
            ? undefined
            : v.rerank === 'plain'
              ? createOfflineReranker()
              : typeof v.rerank === 'object'
                ? createOfflineReranker({ weights: v.rerank, idf: (t) => app.catalog.idf(t) })
                : app.reranker,
      },
      k,
    );
    lat.push(r.timings.totalMs);
    scores.push(
      scoreQuestion(
        q,
        r.passages.map((p) => ({ doc_id: p.docId, chunk_id: p.chunkId, section: p.section, text: p.text, score: p.score })),
        { k, contextChars: settings.contextChars },
      ),
    );
  }
  const m = summarize(scores, k);
  console.log(
    `${v.name.padEnd(28)} ${pct(m.doc_recall_at_1)} ${pct(m.doc_recall_at_5)} ${pct(m.doc_recall_at_k)}  ` +
      `${m.mrr_at_k.toFixed(3)} ${pct(m.answer_recall_at_5)} ${pct(m.answer_in_context)}  ${percentile(lat, 0.95).toFixed(1)}`,
  );
}
await app.close();
