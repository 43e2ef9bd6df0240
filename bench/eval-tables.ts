// `npx tsx bench/eval-tables.ts --pubmedqa <dir> --covidqa <dir> [--xquad <dir>] [--write README.md]`
// Writes the README's evaluation tables, so none of them is edited by hand: every corpus is
// ingested once into a fresh collection (the product's settings: whatever the environment
// configures, offline hash embeddings and extractive answers without it), then `runEval` (the
// code behind `labbot eval --answers --unanswerable`) scores its dev and test halves. Each
// corpus's out-of-corpus set is the other corpora's questions plus bench/datasets/off-corpus.jsonl
// (what bench/datasets/cross-corpus.ts writes to a file). The cross-lingual rows score the
// hand-written sets of bench/datasets/cross-lingual/ beside their same-language twins, and the
// baselines row comes from bench/baselines.ts on the test halves. With --write, the tables
// replace what stands between the README's eval-tables markers; otherwise they are printed.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openLabbot, type Labbot } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { crossCorpusQuestions } from '../src/eval/cross-corpus.ts';
import { runEval, type EvalReport } from '../src/eval/run.ts';
import { parseOffCorpus, parseQuestions, type EvalQuestion, type OffCorpusQuestion } from '../src/eval/score.ts';
import { inSplit, offCorpusInSplit, SPLITS, type Split } from '../src/eval/split.ts';
import { createLogger } from '../src/log.ts';

const { values } = parseArgs({
  options: { pubmedqa: { type: 'string' }, covidqa: { type: 'string' }, xquad: { type: 'string' }, write: { type: 'string' } },
});
if (!values.pubmedqa || !values.covidqa) {
  console.error('usage: npx tsx bench/eval-tables.ts --pubmedqa <dir> --covidqa <dir> [--xquad <dir>] [--write README.md]');
  process.exit(2);
}

interface CrossLingual {
  name: string;
  cross: string;
  same: string;
  /** Only the questions on this side (a set written over one half of a corpus). */
  split?: Split;
}
interface Corpus {
  name: string;
  docs: string;
  questions: string;
  /** Corpora whose questions are not out of this one's corpus (XQuAD's two languages share articles). */
  related?: string[];
  crossLingual: CrossLingual[];
}

const XL = 'bench/datasets/cross-lingual';
const xl = (name: string, file: string, split?: Split): CrossLingual[] =>
  existsSync(path.join(XL, `${file}.cross.jsonl`))
    ? [{ name, cross: path.join(XL, `${file}.cross.jsonl`), same: path.join(XL, `${file}.same.jsonl`), split }]
    : [];
const corpora: Corpus[] = [
  {
    name: 'PubMedQA',
    docs: path.join(values.pubmedqa, 'docs'),
    questions: path.join(values.pubmedqa, 'questions.jsonl'),
    crossLingual: xl('PubMedQA, Spanish questions (dev)', 'pubmedqa-dev', 'dev'),
  },
  { name: 'COVID-QA', docs: path.join(values.covidqa, 'docs'), questions: path.join(values.covidqa, 'questions.jsonl'), crossLingual: [] },
  {
    name: 'sample lab',
    docs: 'examples/lab',
    questions: 'examples/questions.jsonl',
    crossLingual: xl('sample lab, both directions', 'lab'),
  },
];
if (values.xquad) {
  const x = values.xquad;
  const xquadPair = (lang: string, other: string, name: string, otherName: string): Corpus => ({
    name,
    docs: path.join(x, lang, 'docs'),
    questions: path.join(x, lang, 'questions.jsonl'),
    related: [otherName],
    crossLingual: SPLITS.map((split) => ({
      name: `${name}, ${other === 'es' ? 'Spanish' : 'English'} questions (${split})`,
      cross: path.join(x, lang, `questions-${other}.jsonl`),
      same: path.join(x, lang, 'questions.jsonl'),
      split,
    })),
  });
  corpora.push(xquadPair('en', 'es', 'XQuAD en', 'XQuAD es'), xquadPair('es', 'en', 'XQuAD es', 'XQuAD en'));
}

// The code measured is the code at the start (a commit made while this runs is not in its figures).
const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim();

const readQuestions = (file: string): EvalQuestion[] => parseQuestions(readFileSync(file, 'utf8')).questions;
const offCorpusFile = parseOffCorpus(readFileSync('bench/datasets/off-corpus.jsonl', 'utf8')).questions;
const outOfCorpus = (c: Corpus): OffCorpusQuestion[] =>
  crossCorpusQuestions([
    ...corpora.filter((o) => o !== c && !c.related?.includes(o.name)).map((o) => ({ name: o.name, questions: readQuestions(o.questions) })),
    { name: 'off', questions: offCorpusFile },
  ]);

interface HalfRow {
  corpus: string;
  split: Split;
  report: EvalReport;
}
interface CrossRow {
  name: string;
  cross: EvalReport;
  same: EvalReport;
}

const halves: HalfRow[] = [];
const crossRows: CrossRow[] = [];
let translation = '';

async function evaluateCorpus(c: Corpus, halves: HalfRow[], crossRows: CrossRow[]): Promise<void> {
  const base = loadConfig();
  const app: Labbot = await openLabbot(
    {
      ...base,
      collection: `evaltables-${c.name.replace(/\W+/g, '-').toLowerCase()}-${Date.now().toString(36)}`,
      dataDir: base.chromaUrl ? base.dataDir : mkdtempSync(path.join(os.tmpdir(), 'labbot-evaltables-')),
      sources: [],
    },
    createLogger('warn'),
    { loadCatalog: false },
  );
  try {
    const t = app.translation;
    translation = t.available ? `questions translated by ${t.provider} (${t.detail})` : `no translation (${t.detail})`;
    // The source id `npm run eval` gives (the dataset folder's name): ids of documents without
    // one of their own derive from it, and the question files name those ids.
    const root = path.basename(c.docs) === 'docs' ? path.dirname(c.docs) : c.docs;
    await app.ingest({ sourceId: path.basename(path.resolve(root)).replace(/[^A-Za-z0-9_-]/g, '-'), root: c.docs });
    const groups = [app.config.access.default];
    const opts = { k: app.config.retrieval.k, groups, answers: true };
    const questions = readQuestions(c.questions);
    const unans = outOfCorpus(c);
    for (const split of SPLITS) {
      const qs = inSplit(questions, split, (q) => q.doc_id);
      halves.push({ corpus: c.name, split, report: await runEval(app, qs, { ...opts, split, offCorpus: offCorpusInSplit(unans, split) }) });
      console.error(`${c.name} ${split}: done`);
    }
    for (const x of c.crossLingual) {
      const of = (file: string) => inSplit(readQuestions(file), x.split, (q) => q.doc_id);
      crossRows.push({ name: x.name, cross: await runEval(app, of(x.cross), opts), same: await runEval(app, of(x.same), opts) });
    }
  } finally {
    await app.reset();
    await app.close();
  }
}

const pct = (v: number | null | undefined): string => (v === undefined || v === null ? 'n/a' : `${(v * 100).toFixed(1)}%`);

function halvesTable(rows: HalfRow[]): string[] {
  const out = [
    '| corpus, half | questions | doc R@1 / @5 / @8 | gold doc / span in context (span when the doc is first) | refusals ' +
      '| answers with a gold span | answers citing the gold doc | false answers (out of corpus) |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const { corpus, split, report: r } of rows) {
    const m = r.metrics;
    const a = r.answers;
    const u = r.unanswerable;
    out.push(
      `| ${corpus}, ${split} | ${m.questions} | ${pct(m.doc_recall_at_1)} / ${pct(m.doc_recall_at_5)} / ${pct(m.doc_recall_at_k)} ` +
        `| ${pct(m.doc_in_context)} / ${m.with_answers ? `${pct(m.answer_in_context)} (${pct(m.answer_in_context_at_doc_1)})` : 'n/a'} ` +
        `| ${pct(a?.refusal_rate)} ` +
        `| ${pct(a?.answer_has_span)} | ${pct(a?.cites_gold_doc)} | ${pct(u?.false_answer_rate)} (${u?.questions ?? 0}) |`,
    );
  }
  return out;
}

function crossTable(rows: CrossRow[]): string[] {
  const both = (f: (r: EvalReport) => number | null | undefined, row: CrossRow) => `${pct(f(row.cross))} (${pct(f(row.same))})`;
  const out = [
    '| set (same-language twin in brackets) | questions | doc R@1 | gold span in context | refusals | answers with a gold span |',
    '|---|---|---|---|---|---|',
  ];
  for (const row of rows)
    out.push(
      `| ${row.name} | ${row.cross.metrics.questions} | ${both((r) => r.metrics.doc_recall_at_1, row)} ` +
        `| ${both((r) => (r.metrics.with_answers ? r.metrics.answer_in_context : null), row)} | ${both((r) => r.answers?.refusal_rate, row)} ` +
        `| ${both((r) => r.answers?.answer_has_span, row)} |`,
    );
  return out;
}

interface BaselineRow {
  name: string;
  metrics: { doc_recall_at_1: number; doc_recall_at_k: number; answer_in_context?: number; with_answers: number };
}
function baselinesTable(): string[] {
  const runs = [corpora[0], corpora[1]].map((c) => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'bench/baselines.ts', path.dirname(c.docs), '--split', 'test', '--json'], {
      encoding: 'utf8',
      maxBuffer: 1 << 26,
    });
    if (r.status !== 0) throw new Error(`bench/baselines.ts ${c.name} failed: ${r.stderr.trim().split('\n').slice(-3).join(' ')}`);
    return { corpus: c.name, rows: (JSON.parse(r.stdout) as { rows: BaselineRow[] }).rows };
  });
  const out = [
    `| test half | ${runs.map((r) => `${r.corpus} doc R@1 | R@8 | answer in context`).join(' | ')} |`,
    `|---|${runs.map(() => '---|---|---').join('|')}|`,
  ];
  for (const [i, row] of runs[0].rows.entries()) {
    const cells = runs.map(({ rows }) => {
      const m = rows[i].metrics;
      return `${pct(m.doc_recall_at_1)} | ${pct(m.doc_recall_at_k)} | ${m.with_answers ? pct(m.answer_in_context) : 'n/a'}`;
    });
    out.push(`| ${row.name.replace(/ \(hash.*\)$/, ' (hash embeddings)')} | ${cells.join(' | ')} |`);
  }
  return out;
}

for (const c of corpora) await evaluateCorpus(c, halves, crossRows);
const cmd = `npx tsx bench/eval-tables.ts --pubmedqa <dir> --covidqa <dir>${values.xquad ? ' --xquad <dir>' : ''} --write README.md`;
const tables = [
  `Written by \`${cmd}\` at commit ${commit}, ${translation}; each figure is one deterministic run ` +
    "(only Chroma's HNSW graph varies, built anew per run: COVID-QA test doc R@1 moved 0.6 points between two runs with no retrieval change).",
  '',
  'Dev and test halves (`labbot eval --answers --split dev|test --unanswerable <out-of-corpus set>`):',
  '',
  ...halvesTable(halves),
  '',
  "Questions in the other language than their documents, beside the same questions in the documents' language:",
  '',
  ...crossTable(crossRows),
  '',
  'Against naive pipelines on the test halves (`npx tsx bench/baselines.ts <dir> --split test`):',
  '',
  ...baselinesTable(),
].join('\n');

if (values.write) {
  const readme = readFileSync(values.write, 'utf8');
  const start = '<!-- eval-tables:start -->';
  const end = '<!-- eval-tables:end -->';
  const a = readme.indexOf(start);
  const b = readme.indexOf(end);
  if (a < 0 || b < a) throw new Error(`${values.write} has no ${start} … ${end} markers`);
  writeFileSync(values.write, `${readme.slice(0, a + start.length)}\n${tables}\n${readme.slice(b)}`);
  console.error(`tables written to ${values.write}`);
} else console.log(tables);
