// `npx tsx bench/ask-latency.ts [--rounds N] [--out FILE]`
// What translation costs a question: p50/p95 of a whole ask (askAs over app.ask, the path
// `labbot ask` takes, in-process; hash embeddings, extractive answers, offline reranker) on the
// sample lab (examples/lab), with examples/questions.jsonl and each question's translation into
// the other language (Spanish and English questions alike), three ways: translation off, the
// `apertium` script per question, and Apertium's stages kept running (the default). Each round
// opens a fresh app per way (the translator's answer cache starts empty), asks two warm-up
// questions that are not measured (the warm pipeline starts on the first), then every question
// once; the ways run interleaved, in a rotated order each round, after one unmeasured pass. Reports per-way medians over
// the rounds with their range, and p95 against translation off; writes bench/ask-latency.md
// (or --out) and prints the same. Needs Apertium (scripts/test-deps.sh) and Chroma (started here
// unless CHROMA_URL is set).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type Labbot, openLabbot } from '../src/app.ts';
import { askAs } from '../src/ask.ts';
import { type Config, loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { detectLanguage } from '../src/search/tokenize.ts';
import { startChromaServer } from '../src/store/chroma-server.ts';
import { closeRedis, tryConnectRedis } from '../src/store/redis.ts';
import { clearNamespace } from './redis-clean.ts';
import { createApertiumTranslator } from '../src/translate/apertium.ts';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '5' }, out: { type: 'string', default: 'bench/ask-latency.md' } },
});
const rounds = Math.max(3, Number(values.rounds));
const WAYS = ['off', 'per-call', 'warm'] as const;
type Way = (typeof WAYS)[number];

const log = createLogger('warn');
const work = mkdtempSync(path.join(os.tmpdir(), 'labbot-ask-latency-'));
const base = loadConfig();
const server = base.chromaUrl ? undefined : await startChromaServer(path.join(work, 'chroma'));
const redis = await tryConnectRedis(base.redisUrl, 1000);
const commit = (() => {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim() || 'unknown';
  const dirty = spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).stdout.trim();
  return dirty ? `${head} (with uncommitted changes)` : head;
})();

const configFor = (way: Way): Config => ({
  ...base,
  chromaUrl: base.chromaUrl ?? server!.url,
  collection: `ask-latency-${Date.now().toString(36)}`,
  dataDir: path.join(work, 'data'),
  sources: [{ id: 'lab', type: 'folder', path: path.resolve('examples/lab') }] as Config['sources'],
  embeddings: { provider: 'hash', model: 'hash-v1', dimensions: undefined },
  llm: { provider: 'none', model: base.llm.model },
  rerank: undefined,
  enrich: undefined,
  translation: { ...base.translation, provider: way === 'off' ? 'off' : 'apertium', warm: way === 'warm' },
});
const collection = configFor('off').collection;
const open = (way: Way) => openLabbot({ ...configFor(way), collection }, log, { redis });

// The questions, and each one's translation into the other language.
const pairs = base.translation.pairs;
const script = createApertiumTranslator({ binary: base.translation.binary, pairs, timeoutMs: 30_000, warm: false });
if (!script.status().available) throw new Error(`Apertium is needed: ${script.status().detail}`);
const originals = readFileSync('examples/questions.jsonl', 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => (JSON.parse(l) as { question: string }).question);
const questions = [...originals];
for (const q of originals) {
  const pair = pairs.find((p) => p.from === detectLanguage(q));
  const t = pair && (await script.translate(q, pair));
  if (t && !questions.includes(t)) questions.push(t);
}
await script.close();
const spanish = questions.filter((q) => detectLanguage(q) === 'es').length;
const WARMUP = ['¿Dónde está el congelador de -80 °C?', 'Who books the confocal microscope?'];

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
const median = (xs: number[]) => percentile(xs, 50);

async function askAll(app: Labbot, qs: readonly string[]): Promise<number[]> {
  const ms: number[] = [];
  for (const question of qs) {
    const t0 = performance.now();
    const outcome = await askAs(
      { ask: app.ask, chunkCount: () => app.catalog.chunkCount, config: app.config, log: app.log },
      { question, facts: { surface: 'cli', admin: true } },
    );
    ms.push(performance.now() - t0);
    if (outcome.kind !== 'answered') throw new Error(`"${question}": ${outcome.kind}`);
  }
  return ms;
}

{
  const app = await open('off');
  const r = await app.ingestSource(app.config.sources[0]);
  if (r.failed.length) throw new Error(`ingest failed: ${JSON.stringify(r.failed)}`);
  // Every question once, unmeasured: the first app of the process would otherwise also pay for
  // compiling the ask path, and whichever way came first in a round would look slower.
  await askAll(app, questions);
  await app.close();
}

const results = new Map<Way, { p50: number[]; p95: number[] }>(WAYS.map((w) => [w, { p50: [], p95: [] }]));
for (let round = 0; round < rounds; round++) {
  const order = WAYS.map((_, i) => WAYS[(i + round) % WAYS.length]);
  for (const way of order) {
    const app = await open(way);
    try {
      if (app.catalog.chunkCount === 0) throw new Error('the sample lab is not in the index');
      if (way !== 'off' && !app.translation.available) throw new Error(`translation unavailable: ${app.translation.detail}`);
      await askAll(app, WARMUP);
      const ms = await askAll(app, questions);
      results.get(way)!.p50.push(percentile(ms, 50));
      results.get(way)!.p95.push(percentile(ms, 95));
      console.error(
        `round ${round + 1}/${rounds} ${way}: p50 ${percentile(ms, 50).toFixed(1)} ms, p95 ${percentile(ms, 95).toFixed(1)} ms`,
      );
    } finally {
      await app.close();
    }
  }
}

const fmt = (xs: number[]) => `${median(xs).toFixed(1)} (${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)})`;
// Each round's p95 against the same round's p95 without translation: the rounds share whatever
// else the machine was doing, so the ratio within a round is steadier than a ratio of medians.
const offP95 = results.get('off')!.p95;
const rows = WAYS.map((w) => {
  const r = results.get(w)!;
  const ratios = r.p95.map((p, i) => p / offP95[i]);
  const ratio = `${median(ratios).toFixed(2)}× (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`;
  return [w, fmt(r.p50), fmt(r.p95), ratio];
});
/** A markdown table padded as the repo's formatter lays one out (the .md is checked by lint). */
const table = (header: string[], body: string[][]) => {
  const widths = header.map((h, i) => Math.max(3, h.length, ...body.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), line(widths.map((n) => '-'.repeat(n))), ...body.map(line)];
};
const report = [
  '# Ask latency with and without translation',
  '',
  `\`npx tsx bench/ask-latency.ts --rounds ${rounds}\` at ${commit}, ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ` +
    `${os.cpus().length} cores (${os.cpus()[0]?.model.trim()}).`,
  '',
  `A whole ask (askAs over app.ask, as \`labbot ask\` runs it, in-process) on examples/lab: ${questions.length} questions ` +
    `(${spanish} Spanish, ${questions.length - spanish} English: examples/questions.jsonl and each one's Apertium translation), ` +
    'hash embeddings, extractive answers, offline reranker, local Chroma. Per round and way a fresh app (empty translation cache), ' +
    'two unmeasured warm-up questions, then each question once; ways interleaved in a rotated order. ' +
    `Milliseconds: median over ${rounds} rounds (min–max of the rounds).`,
  '',
  ...table(['translation', 'p50 ms', 'p95 ms', 'p95 / off, same round'], rows),
  '',
  'per-call: the `apertium` script per question and pair (`apertium -u <mode> <file>`); warm: the mode stages kept running ' +
    '(src/translate/apertium-pipeline.ts). Target: p95 with translation at most 1.5× without. ' +
    'The machine may be shared (other processes on the same cores): the ranges say how much.',
  '',
].join('\n');
writeFileSync(values.out, report);
{
  // The collection goes with the run, as eval-dataset.ts drops its own (it matters with CHROMA_URL).
  const app = await open('off');
  await app.reset();
  await app.close();
}
console.log(report);

if (redis) {
  await closeRedis(redis);
  await clearNamespace(base.redisUrl, collection);
}
await server?.stop();
