// `npm run eval -- <dataset dir> [--k N] [--json] [--keep]`
// Ingests <dir>/docs into a fresh collection, runs the retrieval evaluation on
// <dir>/questions.jsonl exactly as `labbot eval` does, prints the metrics and writes
// bench/out/eval-<name>.json. The collection is dropped afterwards unless --keep.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { parseQuestions, scoreQuestion, summarize, type QuestionScore } from '../src/search/evaluate.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { k: { type: 'string', default: '10' }, json: { type: 'boolean' }, keep: { type: 'boolean' } },
});
const dir = positionals[0];
if (!dir) {
  console.error('usage: npm run eval -- <dataset dir with docs/ and questions.jsonl> [--k N] [--json] [--keep]');
  process.exit(2);
}
const name = path.basename(path.resolve(dir)).replace(/[^A-Za-z0-9_-]/g, '-');
const k = Number(values.k);

const base = loadConfig();
const config = {
  ...base,
  collection: `eval-${name}-${Date.now().toString(36)}`,
  dataDir: base.chromaUrl ? base.dataDir : mkdtempSync(path.join(os.tmpdir(), 'labbot-eval-')),
  sources: [],
};
const log = createLogger('warn');
const app = await openApp(config, log, { loadCatalog: false });
try {
  const t0 = performance.now();
  const summary = await app.ingest({ sourceId: name, root: path.resolve(dir, 'docs') });
  const ingestS = (performance.now() - t0) / 1000;
  const { questions, errors } = parseQuestions(readFileSync(path.join(dir, 'questions.jsonl'), 'utf8'));
  for (const e of errors) console.error(`skipped question ${e}`);

  const groups = [app.config.access.default];
  const scores: QuestionScore[] = [];
  const results = [];
  const latencies: number[] = [];
  for (const q of questions) {
    const r = await app.retrieve(q.question, groups, k);
    latencies.push(r.timings.totalMs);
    const passages = r.passages.map((p) => ({ doc_id: p.docId, chunk_id: p.chunkId, section: p.section, text: p.text, score: p.score }));
    results.push({ id: q.id, passages });
    scores.push(scoreQuestion(q, passages, app.config.retrieval.contextChars));
  }
  const metrics = summarize(scores);
  latencies.sort((a, b) => a - b);
  const pctl = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0;
  const report = {
    dataset: name,
    documents: summary.documents.indexed,
    chunks: summary.chunks.written,
    failed: summary.failed.length,
    ingest_seconds: Number(ingestS.toFixed(1)),
    retrieval_ms: { p50: Number(pctl(0.5).toFixed(1)), p95: Number(pctl(0.95).toFixed(1)) },
    settings: { k, fusion: app.config.retrieval.fusion, chunking: app.config.chunking, embeddings: app.versionDescription },
    metrics,
  };
  mkdirSync('bench/out', { recursive: true });
  writeFileSync(`bench/out/eval-${name}.json`, JSON.stringify({ ...report, results }, null, 1));
  if (values.json) console.log(JSON.stringify(report, null, 2));
  else {
    const pct = (v: number | undefined) => (v === undefined ? '-' : `${(v * 100).toFixed(1)}%`);
    console.log(`dataset ${name}: ${report.documents} documents, ${report.chunks} chunks, ${report.failed} failed, ingest ${report.ingest_seconds}s`);
    console.log(`questions ${metrics.questions}  retrieval p50 ${report.retrieval_ms.p50} ms  p95 ${report.retrieval_ms.p95} ms`);
    console.log(`doc recall@1 ${pct(metrics.doc_recall_at_1)}  @5 ${pct(metrics.doc_recall_at_5)}  @10 ${pct(metrics.doc_recall_at_10)}  MRR@10 ${metrics.mrr_at_10.toFixed(3)}`);
    console.log(`answer recall@5 ${pct(metrics.answer_recall_at_5)}  answer-in-context ${pct(metrics.answer_in_context)}`);
  }
} finally {
  if (!values.keep) await app.reset();
  await app.close();
}
