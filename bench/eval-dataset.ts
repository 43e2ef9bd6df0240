// `npm run eval -- <dataset dir> [--questions F] [--k N] [--answers] [--unanswerable F] [--split dev|test] [--json] [--keep]`
// Ingests the dataset's documents (<dir>/docs, or <dir> itself when it has no docs/ folder) into
// a fresh collection and runs the same evaluation as `labbot eval` on <dir>/questions.jsonl (or
// --questions): retrieval figures, and with --answers the whole ask path with whatever model the
// environment configures (extractive without one). Prints the report and writes it, with every
// question's passages and answer, to bench/out/eval-<name>[-<split>].json. The collection is
// dropped afterwards unless --keep.
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openLabbot } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { formatReport } from '../src/eval/report.ts';
import { runEval } from '../src/eval/run.ts';
import { loadQuestionSets } from '../src/eval/files.ts';
import { SPLITS, type Split } from '../src/eval/split.ts';
import { createLogger } from '../src/log.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    questions: { type: 'string' },
    k: { type: 'string' },
    answers: { type: 'boolean' },
    unanswerable: { type: 'string' },
    split: { type: 'string' },
    json: { type: 'boolean' },
    keep: { type: 'boolean' },
  },
});
const dir = positionals[0];
const usage =
  'usage: npm run eval -- <dataset dir> [--questions F] [--k N] [--answers] [--unanswerable F] [--split dev|test] [--json] [--keep]';
if (!dir) {
  console.error(usage);
  process.exit(2);
}
const split = values.split as Split | undefined;
if (split !== undefined && !SPLITS.includes(split)) {
  console.error(`--split must be one of ${SPLITS.join(', ')}\n${usage}`);
  process.exit(2);
}
const docsDir = existsSync(path.join(dir, 'docs')) ? path.resolve(dir, 'docs') : path.resolve(dir);
const questionsFile = values.questions ?? path.join(dir, 'questions.jsonl');
const name = path.basename(path.resolve(dir)).replace(/[^A-Za-z0-9_-]/g, '-');

const { questions, offCorpus } = loadQuestionSets(
  { questions: existsSync(questionsFile) ? questionsFile : undefined, unanswerable: values.unanswerable, split },
  console.error,
);
if (questions.length === 0 && !offCorpus) {
  console.error(`no questions: ${questionsFile} is missing or empty, and no --unanswerable file\n${usage}`);
  process.exit(2);
}

const base = loadConfig();
const config = {
  ...base,
  collection: `eval-${name}-${Date.now().toString(36)}`,
  dataDir: base.chromaUrl ? base.dataDir : mkdtempSync(path.join(os.tmpdir(), 'labbot-eval-')),
  sources: [],
};
const app = await openLabbot(config, createLogger('warn'), { loadCatalog: false });
try {
  const t0 = performance.now();
  const summary = await app.ingest({ sourceId: name, root: docsDir });
  const ingestS = (performance.now() - t0) / 1000;
  const report = await runEval(app, questions, {
    k: values.k ? Number(values.k) : app.config.retrieval.k,
    groups: [app.config.access.default],
    answers: Boolean(values.answers),
    offCorpus,
    split,
  });
  const dataset = {
    name,
    documents: summary.documents.indexed,
    chunks: summary.chunks.written,
    failed: summary.failed.length,
    ingest_seconds: Number(ingestS.toFixed(1)),
    embeddings: app.versionDescription,
    questions_file: questionsFile,
    unanswerable_file: values.unanswerable ?? null,
  };
  mkdirSync('bench/out', { recursive: true });
  writeFileSync(`bench/out/eval-${name}${split ? `-${split}` : ''}.json`, JSON.stringify({ dataset, ...report }, null, 1));
  const { results: _results, ...summaryOnly } = report;
  if (values.json) console.log(JSON.stringify({ dataset, ...summaryOnly }, null, 2));
  else {
    console.log(
      `dataset ${name}: ${dataset.documents} documents, ${dataset.chunks} chunks, ${dataset.failed} ` +
        `failed, ingest ${dataset.ingest_seconds}s (${dataset.embeddings})`,
    );
    console.log(formatReport(report));
  }
} finally {
  if (!values.keep) await app.reset();
  await app.close();
}
