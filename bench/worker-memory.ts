// `npx tsx bench/worker-memory.ts [--chunks 100000] [--runs 3] [--baseline <labbot tree>]`
// The resident memory of a real `labbot worker` process (bin/labbot.js worker, hash embeddings,
// real Redis and Chroma) after it indexed a folder of about --chunks chunks through the queue,
// and again after it rebuilt the index and switched to it. A worker answers no questions, so what
// it holds beyond its start-up is what indexing leaves behind. With --baseline, the same folder
// goes through another checkout's worker (`git archive <commit> | tar -x -C /tmp/base && ln -s
// $PWD/node_modules /tmp/base/`), run by run. Medians of --runs with their range; VmRSS from
// /proc. Writes bench/out/worker-memory.json and prints a Markdown table.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Queue } from 'bullmq';
import { enqueueRebuild, enqueueSync } from '../src/queue/jobs.ts';
import { startChromaServer } from '../src/store/chroma-server.ts';
import { clearNamespace } from './redis-clean.ts';

const { values } = parseArgs({
  options: { chunks: { type: 'string', default: '100000' }, runs: { type: 'string', default: '3' }, baseline: { type: 'string' } },
});
const CHUNKS = Number(values.chunks);
const RUNS = Number(values.runs);
const SECTIONS = 20;
const DOCS = Math.ceil(CHUNKS / SECTIONS);
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const here = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const trees = [
  ...(values.baseline ? [{ label: 'baseline', root: path.resolve(values.baseline) }] : []),
  { label: 'this tree', root: here },
];

const folder = mkdtempSync(path.join(os.tmpdir(), 'labbot-workermem-'));
for (let d = 0; d < DOCS; d++) {
  const parts = [`# Protocol note ${d}`];
  for (let s = 0; s < SECTIONS; s++)
    parts.push(
      `## Part ${s}\nStep ${s} of note ${d}: reagent MEM${d}X${s} is diluted ${1 + ((d * 7 + s) % 50)}-fold ` +
        `in buffer and kept on ice for ${5 + (s % 9)} minutes before use.`,
    );
  writeFileSync(path.join(folder, `note-${d}.md`), `${parts.join('\n\n')}\n`);
}

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function idle(queue: Queue, timeoutMs = 3_600_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  await sleep(1000);
  for (;;) {
    const c = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'waiting-children');
    if (Object.values(c).every((n) => n === 0)) return;
    if (Date.now() > until) throw new Error('queue did not drain');
    await sleep(500);
  }
}

/** RSS settles after the last job (GC runs lazily): the lowest of a few readings a second apart. */
async function settledRss(pid: number): Promise<number> {
  let low = Infinity;
  for (let i = 0; i < 5; i++) {
    low = Math.min(low, rssMb(pid));
    await sleep(1000);
  }
  return low;
}

interface Reading {
  startedMb: number;
  indexedMb: number;
  rebuiltMb: number;
  indexS: number;
}

async function round(root: string, chromaUrl: string): Promise<Reading> {
  const collection = `wmem-${Date.now().toString(36)}-${Math.floor(Math.random() * 1e6)}`;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-workermem-data-'));
  const configFile = path.join(dir, 'labbot.config.json');
  writeFileSync(
    configFile,
    JSON.stringify({ sources: [{ id: 'notes', type: 'folder', path: folder }], access: { default: 'public', channels: {} } }),
  );
  const env = {
    ...process.env,
    CHROMA_URL: chromaUrl,
    REDIS_URL,
    LABBOT_COLLECTION: collection,
    LABBOT_DATA_DIR: path.join(dir, 'data'),
    LABBOT_CONFIG: configFile,
    EMBEDDINGS: 'hash',
    LLM: 'none',
    LOG_LEVEL: 'info',
  };
  const child: ChildProcess = spawn(process.execPath, [path.join(root, 'bin/labbot.js'), 'worker'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  // Only the start line is looked for; the rest is dropped so the bench holds no log.
  const keep = (b: Buffer) => {
    if (!/worker started/.test(log)) log = (log + b.toString()).slice(-4000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const queue = new Queue('labbot-index', { connection: { url: REDIS_URL }, prefix: `labbot:${collection}:bull` });
  try {
    const until = Date.now() + 60_000;
    while (!/worker started/.test(log)) {
      if (Date.now() > until || child.exitCode !== null) throw new Error(`worker did not start: ${log.slice(-500)}`);
      await sleep(200);
    }
    const startedMb = await settledRss(child.pid!);
    const t0 = performance.now();
    await enqueueSync(queue, { source: 'notes', reason: 'bench' });
    await idle(queue);
    const indexS = (performance.now() - t0) / 1000;
    const indexedMb = await settledRss(child.pid!);
    await enqueueRebuild(queue, { reason: 'bench' });
    await idle(queue);
    const failed = await queue.getJobCounts('failed');
    if (failed.failed) throw new Error(`${failed.failed} jobs failed`);
    const rebuiltMb = await settledRss(child.pid!);
    return { startedMb, indexedMb, rebuiltMb, indexS };
  } finally {
    await queue.close();
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once('exit', r)));
    await clearNamespace(REDIS_URL, collection);
  }
}

const chroma = await startChromaServer(mkdtempSync(path.join(os.tmpdir(), 'labbot-workermem-chroma-')));
const results: Record<string, Reading[]> = Object.fromEntries(trees.map((t) => [t.label, []]));
try {
  for (let r = 0; r < RUNS; r++) {
    for (const t of trees) {
      const reading = await round(t.root, chroma.url);
      results[t.label].push(reading);
      console.error(`${t.label} · round ${r + 1}: ${JSON.stringify(reading)}`);
    }
  }
} finally {
  await chroma.stop();
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const fmt = (xs: number[], unit: string) =>
  `${median(xs).toFixed(0)} ${unit}${xs.length > 1 ? ` (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})` : ''}`;
const rows: [string, keyof Reading, string][] = [
  ['RSS after start-up', 'startedMb', 'MB'],
  [`RSS after indexing ${DOCS * SECTIONS} chunks`, 'indexedMb', 'MB'],
  ['RSS after a rebuild and switch', 'rebuiltMb', 'MB'],
  ['indexing time', 'indexS', 's'],
];
const lines = [
  `Written by \`npx tsx bench/worker-memory.ts --chunks ${CHUNKS} --runs ${RUNS}${values.baseline ? ' --baseline <tree>' : ''}\`: ` +
    `a \`labbot worker\` process, ${DOCS} Markdown notes of ${SECTIONS} sections, ` +
    `hash embeddings; medians of ${RUNS} (range).`,
  '',
  `| | ${trees.map((t) => t.label).join(' | ')} |`,
  `|---|${trees.map(() => '---').join('|')}|`,
  ...rows.map(
    ([label, key, unit]) =>
      `| ${label} | ${trees
        .map((t) =>
          fmt(
            results[t.label].map((x) => x[key]),
            unit,
          ),
        )
        .join(' | ')} |`,
  ),
];
mkdirSync(path.join(here, 'bench/out'), { recursive: true });
writeFileSync(path.join(here, 'bench/out/worker-memory.json'), JSON.stringify({ chunks: DOCS * SECTIONS, runs: RUNS, results }, null, 2));
console.log(lines.join('\n'));
