// `npx tsx bench/restart.ts [--chunks 100000] [--runs 3]`
// Restart to first answer: a real `labbot serve` process (Redis records, Chroma, no Slack, no
// worker) is started on an index of --chunks chunks and /api/ask is polled until it answers.
// Two ways, interleaved run by run so machine load hits both alike: without a lexical snapshot
// (the catalog is rebuilt from Chroma, as before snapshots existed) and with the snapshot the
// previous run left. Reports the median and range of each, and the process's peak RSS (VmHWM).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { startChromaServer } from '../src/store/chroma-server.ts';
import { closeRedis, connectRedis } from '../src/store/redis.ts';
import { loadSentences, writeCorpus } from './corpus.ts';

const { values } = parseArgs({
  options: {
    chunks: { type: 'string', default: '100000' },
    runs: { type: 'string', default: '3' },
    pubmedqa: { type: 'string', default: 'datasets/pubmedqa' },
    redis: { type: 'string', default: 'redis://127.0.0.1:6379' },
  },
});
const target = Number(values.chunks);
const runs = Number(values.runs);

const work = mkdtempSync(path.join(os.tmpdir(), 'labbot-restart-'));
const chroma = await startChromaServer(path.join(work, 'chroma'));
const collection = `restart-${Date.now().toString(36)}`;
const configFile = path.join(work, 'labbot.config.json');
writeFileSync(configFile, JSON.stringify({ sources: [] }));
const env = {
  CHROMA_URL: chroma.url,
  LABBOT_COLLECTION: collection,
  LABBOT_CONFIG: configFile,
  LABBOT_DATA_DIR: path.join(work, 'data'),
  REDIS_URL: values.redis,
  LABBOT_WORKER: 'off',
  // info: the serve log says where the lexical index came from.
  LOG_LEVEL: 'info',
  EMBEDDINGS: 'hash',
  LLM: 'none',
};
const redis = connectRedis(values.redis);

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });

/** Starts `labbot serve`, polls /api/ask until it answers, returns ms and the peak RSS. */
async function restartToFirstAnswer(): Promise<{ ms: number; rssMb: number; from: string }> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve'], {
    env: { ...process.env, ...env, LABBOT_PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`serve exited: ${stderr.slice(-500)}`);
      const res = await fetch(`http://127.0.0.1:${port}/api/ask`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ question: 'What was the mortality in the intervention group?' }),
      }).catch(() => undefined);
      if (res?.ok) {
        const body = (await res.json()) as { citations?: unknown[] };
        if (body.citations?.length) break;
      }
      await new Promise((r) => setTimeout(r, 25));
    }
    const ms = performance.now() - t0;
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    const hwm = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
    const from = /"from":"([^"]+)"/.exec(stderr)?.[1] ?? '?';
    return { ms, rssMb: Math.round(hwm / 1024), from };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const range = (xs: number[]) => `${Math.round(Math.min(...xs))}–${Math.round(Math.max(...xs))}`;

try {
  // Build the index once, through the same app code a CLI ingest uses (records in Redis).
  const app = await openApp(loadConfig({ ...env, LOG_LEVEL: 'warn' }), createLogger('warn'), { loadCatalog: false, redis });
  const sentences = loadSentences(path.resolve(values.pubmedqa));
  const perDoc = Math.ceil(7000 / Math.max(100, app.config.chunking.size - app.config.chunking.overlap));
  const dir = path.join(work, 'corpus');
  writeCorpus(dir, sentences, { count: Math.ceil(target / perDoc), chars: 7000, seed: 1, prefix: 'r' });
  const s = await app.ingest({ sourceId: 'bench', root: dir }, (e) => {
    if (e.phase === 'file' && (e.done % 500 === 0 || e.done === e.total)) process.stderr.write(`\r  ingest ${e.done}/${e.total} files   `);
  });
  process.stderr.write('\n');
  await app.close();
  const chunks = s.chunks.written;

  const snapshotDir = path.join(env.LABBOT_DATA_DIR, 'lexical');
  const cold: { ms: number; rssMb: number }[] = [];
  const warm: { ms: number; rssMb: number }[] = [];
  for (let i = 0; i < runs; i++) {
    rmSync(snapshotDir, { recursive: true, force: true });
    const c = await restartToFirstAnswer();
    cold.push(c);
    // The cold run saved a snapshot: the next start uses it.
    const w = await restartToFirstAnswer();
    warm.push(w);
    console.error(`  run ${i + 1}: from Chroma ${Math.round(c.ms)} ms (${c.rssMb} MB), from snapshot ${Math.round(w.ms)} ms (${w.rssMb} MB, ${w.from})`);
  }
  const row = (name: string, xs: { ms: number; rssMb: number }[]) =>
    `| ${name} | ${Math.round(median(xs.map((x) => x.ms)))} (${range(xs.map((x) => x.ms))}) | ${median(xs.map((x) => x.rssMb))} (${range(xs.map((x) => x.rssMb))}) |`;
  console.log(
    [
      `${chunks} chunks, ${runs} interleaved runs each, median (range):`,
      '',
      '| restart of `labbot serve` | to first answer, ms | peak RSS, MB |',
      '|---|---|---|',
      row('lexical index rebuilt from Chroma', cold),
      row('lexical index from its snapshot', warm),
    ].join('\n'),
  );
} finally {
  const keys = await redis.keys(`labbot:${collection}:*`);
  if (keys.length) await redis.del(...keys);
  await closeRedis(redis);
  await chroma.stop();
  rmSync(work, { recursive: true, force: true });
}
