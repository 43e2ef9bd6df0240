// `labbot backup` of a running installation and `labbot restore` into a fresh one, as a lab runs
// them: a real `labbot serve` (its own Chroma under its data dir, the suite's Redis) answering
// questions, the backup taken beside it, restored into a new data dir and another Redis
// database, and a second `serve` there asked the same questions. Then the pause that makes the
// copy consistent, on a real BullMQ queue and worker.
import { chmodSync, cpSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Queue, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { namespaceOf } from '../src/app.ts';
import { MANIFEST_FILE, manifestSchema, type Manifest } from '../src/ops/backup-format.ts';
import { BackupBusyError, leaseKey, pauseIndexing, pausedKey } from '../src/ops/quiesce.ts';
import { freePort } from '../src/store/chroma-server.ts';
import { bullConnection } from '../src/store/redis.ts';
import { uniqueCollection } from './helpers/app.ts';
import { TEST_REDIS_URL, trackRedisPrefix } from './helpers/redis-namespaces.ts';
import { startLabbot, type LabbotProcess } from './helpers/serve-process.ts';

const LAB = path.resolve('examples/lab');
const TOKEN = 'backup-test-admin-token-0123456789';

/** Another database of the same Redis server: "a fresh Redis" for the restore. */
function otherDb(url: string): string {
  const u = new URL(url);
  const db = u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0;
  u.pathname = `/${(db + 1) % 16}`;
  return u.toString();
}

const QUESTIONS: { question: string; channel?: string }[] = [
  { question: 'Where are the anti-p53 antibody aliquots stored?' },
  { question: 'How do I passage HEK293T cells?' },
  { question: 'What is the transfer time in the western blot protocol?' },
  { question: 'What is the renewal code word?' },
  { question: 'What is the renewal code word?', channel: 'CPI' },
];

async function askAll(url: string) {
  const out = [];
  for (const q of QUESTIONS) {
    const res = await fetch(`${url}/api/ask`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify(q),
    });
    expect(res.status, `${q.question} (${q.channel ?? 'public'})`).toBe(200);
    out.push(await res.json());
  }
  return out;
}

/** Runs a labbot command to its end. */
async function runLabbot(args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const p = startLabbot(args, env);
  let stdout = '';
  p.child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  const { code } = await p.exited;
  return { code, stderr: p.stderr(), stdout };
}

async function serve(env: Record<string, string>): Promise<{ p: LabbotProcess; url: string }> {
  const p = startLabbot(['serve'], env);
  const line = await p.waitForLog(/labbot is serving/, 120_000).catch((err: Error) => {
    throw new Error(`${err.message}\n${p.stderr().slice(-3000)}`);
  });
  return { p, url: String(line.url) };
}

async function stop(p: LabbotProcess | undefined): Promise<void> {
  if (!p || p.child.exitCode !== null) return;
  p.child.kill('SIGTERM');
  await p.exited;
}

describe('labbot backup / restore on a running installation', () => {
  const collection = uniqueCollection('bk');
  const ns = namespaceOf(collection);
  const sourceRedis = TEST_REDIS_URL;
  const targetRedis = otherDb(TEST_REDIS_URL);
  const root = mkdtempSync(path.join(os.tmpdir(), 'labbot-backup-'));
  const configFile = path.join(root, 'labbot.config.json');
  const backupDir = path.join(root, 'backup-1');
  let envA: Record<string, string>;
  let envB: Record<string, string>;
  let a: { p: LabbotProcess; url: string } | undefined;
  let b: { p: LabbotProcess; url: string } | undefined;
  let before: unknown[];
  let manifest: Manifest;
  let backupRun: { code: number | null; stderr: string; stdout: string };
  const redisA = new Redis(sourceRedis);
  const redisB = new Redis(targetRedis);

  beforeAll(async () => {
    trackRedisPrefix(`${ns}:`, sourceRedis);
    trackRedisPrefix(`${ns}:`, targetRedis);
    writeFileSync(
      configFile,
      JSON.stringify({
        sources: [{ id: 'lab', type: 'folder', path: LAB }],
        access: { default: 'public', channels: { CPI: ['pi-only'] } },
      }),
    );
    const common = { LABBOT_COLLECTION: collection, LABBOT_ADMIN_TOKEN: TOKEN, LOG_LEVEL: 'info', LABBOT_ASK_RATE: 'off', CHROMA_URL: '' };
    envA = {
      ...common,
      LABBOT_DATA_DIR: path.join(root, 'data-a'),
      LABBOT_CONFIG: configFile,
      REDIS_URL: sourceRedis,
      LABBOT_PORT: String(await freePort()),
    };
    // The restored installation runs with the backup's own copy of the config.
    envB = {
      ...common,
      LABBOT_DATA_DIR: path.join(root, 'data-b'),
      LABBOT_CONFIG: path.join(backupDir, 'labbot.config.json'),
      REDIS_URL: targetRedis,
      LABBOT_PORT: String(await freePort()),
    };
    // First start indexes the lab; a restart loads it from the lexical snapshot the first one
    // saved on its way out: the running installation a lab has.
    a = await serve(envA);
    await stop(a.p);
    a = await serve(envA);
    before = await askAll(a.url);
    // The backup runs beside the live bot, on the same data dir (it shares the bot's Chroma).
    backupRun = await runLabbot(['backup', backupDir], envA);
    manifest = manifestSchema.parse(JSON.parse(readFileSync(path.join(backupDir, MANIFEST_FILE), 'utf8')));
  }, 300_000);

  afterAll(async () => {
    await stop(a?.p);
    await stop(b?.p);
    redisA.disconnect();
    redisB.disconnect();
  });

  it('writes a backup of the live index, the Redis state, the config and the lexical snapshot while serve runs, readable by its owner only', async () => {
    expect(backupRun.code, backupRun.stderr).toBe(0);
    expect(backupRun.stdout).toMatch(/backup written to/);
    expect(manifest.collection).toBe(collection);
    expect(manifest.chroma.collections.map((c) => c.group).sort()).toEqual(['pi-only', 'public']);
    expect(manifest.chroma.collections.every((c) => c.records > 0)).toBe(true);
    expect(manifest.redis.keys).toBeGreaterThan(10);
    expect(manifest.snapshot).toMatch(/^lexical\/.+\.lexical$/);
    expect(manifest.config).toBe('labbot.config.json');
    expect(readFileSync(path.join(backupDir, 'labbot.config.json'), 'utf8')).toBe(readFileSync(configFile, 'utf8'));
    expect(statSync(backupDir).mode & 0o777).toBe(0o700);
    for (const f of [MANIFEST_FILE, ...Object.keys(manifest.files)]) expect(statSync(path.join(backupDir, f)).mode & 0o777, f).toBe(0o600);
    // The bot kept answering and its queue is running again.
    expect((await fetch(`${a!.url}/readyz`)).status).toBe(200);
    const queue = new Queue('labbot-index', { connection: bullConnection(sourceRedis), prefix: `${ns}:bull` });
    try {
      expect(manifest.redis.queuePausedByBackup).toBe(true);
      expect(await queue.isPaused()).toBe(false);
    } finally {
      await queue.close();
    }
    expect(await redisA.exists(leaseKey(ns), pausedKey(ns))).toBe(0);
  });

  it('restores into a fresh data dir and another Redis database, and the restored bot gives the same answers, from its restored snapshot', async () => {
    const r = await runLabbot(['restore', backupDir], envB);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/restored the backup/);
    b = await serve(envB);
    const loaded = b.p.logs().find((l) => l.msg === 'lexical index loaded');
    expect(loaded?.from, 'the restored snapshot, checked against the restored records, is what the bot loads').toBe('snapshot');
    expect(loaded?.recordsCheck).toBe('full');
    expect(b.p.logs().filter((l) => /index repaired/.test(String(l.msg)))).toEqual([]);
    const after = await askAll(b.url);
    // Chroma keeps cosine vectors normalised, and normalises again what the restore adds: scores
    // move in the eighth digit. Everything else, the ranking included, is the same.
    const rounded = (v: unknown) =>
      JSON.parse(JSON.stringify(v, (k, x) => (k === 'score' && typeof x === 'number' ? Number(x.toPrecision(6)) : x)));
    expect(rounded(after)).toEqual(rounded(before));
    expect(JSON.stringify(after)).toMatch(/"score"/);
    // The restricted document is still restricted: public asks are refused, the PI channel is answered.
    const [, , , publicCode, piCode] = after as { refused: boolean; answer: string }[];
    expect(publicCode.answer).not.toMatch(/NIGHTJAR/);
    expect(piCode.answer).toMatch(/NIGHTJAR/);
    // What the dashboard shows came along: the questions asked before the backup.
    const asked = await redisB.llen(`${ns}:activity:questions`);
    expect(asked).toBeGreaterThanOrEqual(QUESTIONS.length);
    const queue = new Queue('labbot-index', { connection: bullConnection(targetRedis), prefix: `${ns}:bull` });
    try {
      expect(await queue.isPaused(), 'the backup paused the queue it copied; the restored one runs').toBe(false);
    } finally {
      await queue.close();
    }
  });

  it('refuses to restore over an installation that holds data, and a backup whose files do not match the manifest', async () => {
    const again = await runLabbot(['restore', backupDir], envB);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/already holds keys of this installation/);

    const damaged = path.join(root, 'backup-damaged');
    cpSync(backupDir, damaged, { recursive: true });
    const file = path.join(damaged, manifest.chroma.collections[0].file);
    const bytes = readFileSync(file);
    bytes[bytes.length >> 1] ^= 0xff;
    chmodSync(file, 0o600);
    writeFileSync(file, bytes);
    const fresh = { ...envB, LABBOT_DATA_DIR: path.join(root, 'data-c') };
    const r = await runLabbot(['restore', damaged], fresh);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/damaged or was changed/);

    const incomplete = await runLabbot(['restore', path.join(root, 'no-such-backup')], fresh);
    expect(incomplete.code).not.toBe(0);
    expect(incomplete.stderr).toMatch(/not a labbot backup/);
  });

  it('refuses to write a backup into a directory that holds files', async () => {
    const r = await runLabbot(['backup', backupDir], envA);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/not empty/);
  });
});

describe('the pause that makes a backup consistent (a real BullMQ queue and worker)', () => {
  const ns = namespaceOf(uniqueCollection('bkq'));
  const connection = bullConnection(TEST_REDIS_URL);
  const redis = new Redis(TEST_REDIS_URL);
  let queue: Queue;
  let worker: Worker;
  const processed: string[] = [];
  const gates = new Map<string, () => void>();
  const started = new Set<string>();

  beforeAll(async () => {
    trackRedisPrefix(`${ns}:`);
    queue = new Queue('labbot-index', { connection, prefix: `${ns}:bull` });
    worker = new Worker(
      'labbot-index',
      async (job: Job) => {
        started.add(job.name);
        await new Promise<void>((r) => gates.set(job.name, r));
        processed.push(job.name);
      },
      { connection, prefix: `${ns}:bull`, concurrency: 2 },
    );
  });
  afterAll(async () => {
    for (const open of gates.values()) open();
    await worker.close();
    await queue.close();
    redis.disconnect();
  });

  const waitUntil = async (cond: () => boolean | Promise<boolean>) => {
    while (!(await cond())) await new Promise((r) => setTimeout(r, 20));
  };

  it('waits for a running job, keeps new jobs waiting while it holds, and lets them run once released', async () => {
    await queue.add('first', {});
    await waitUntil(() => started.has('first'));
    let settled = false;
    const pausing = pauseIndexing(queue, redis, ns, { timeoutMs: 60_000, pollMs: 20 }).finally(() => (settled = true));
    await waitUntil(() => queue.isPaused());
    expect(settled, 'the pause holds until the running job is done').toBe(false);
    gates.get('first')!();
    const pause = await pausing;
    expect(pause).toMatchObject({ pausedByUs: true, waitedFor: 1 });
    await queue.add('second', {});
    expect(await queue.getWaitingCount()).toBe(1);
    expect(await queue.getActiveCount()).toBe(0);
    await pause.release();
    expect(await queue.isPaused()).toBe(false);
    await waitUntil(() => started.has('second'));
    gates.get('second')!();
    await waitUntil(() => processed.includes('second'));
    expect(await redis.exists(leaseKey(ns), pausedKey(ns))).toBe(0);
  });

  it('one backup at a time: a second one is refused while the first holds the lease', async () => {
    const first = await pauseIndexing(queue, redis, ns, { timeoutMs: 1000 });
    try {
      await expect(pauseIndexing(queue, redis, ns, { timeoutMs: 1000 })).rejects.toThrow(BackupBusyError);
      expect(await queue.isPaused()).toBe(true);
    } finally {
      await first.release();
    }
    expect(await queue.isPaused()).toBe(false);
  });

  it('gives up and resumes the queue when a job runs longer than it may wait', async () => {
    await queue.add('long', {});
    await waitUntil(() => started.has('long'));
    await expect(pauseIndexing(queue, redis, ns, { timeoutMs: 0, pollMs: 10 })).rejects.toThrow(/still running/);
    expect(await queue.isPaused()).toBe(false);
    expect(await redis.exists(leaseKey(ns))).toBe(0);
    gates.get('long')!();
    await waitUntil(() => processed.includes('long'));
  });

  it('resumes a pause left by a backup that was killed, and leaves a pause an admin made', async () => {
    // A backup killed after pausing: its note is in Redis, its lease has expired.
    await redis.set(pausedKey(ns), '{"pid":1}');
    await queue.pause();
    const taken = await pauseIndexing(queue, redis, ns, { timeoutMs: 1000 });
    expect(taken.pausedByUs).toBe(true);
    await taken.release();
    expect(await queue.isPaused()).toBe(false);

    await queue.pause();
    const admins = await pauseIndexing(queue, redis, ns, { timeoutMs: 1000 });
    expect(admins.pausedByUs).toBe(false);
    await admins.release();
    expect(await queue.isPaused(), "an admin's pause stays").toBe(true);
    await queue.resume();
  });
});
