// The queue under failure: a worker killed mid-job, Chroma stopped during a job, and a blue/green
// rebuild while questions keep coming. Real Redis, real Chroma, a real child worker process.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openLabbot, type Labbot } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { enqueueRebuild, enqueueSync } from '../src/queue/jobs.ts';
import { startQueueRuntime, type QueueRuntime } from '../src/queue/runtime.ts';
import { startChromaServer } from '../src/store/chroma-server.ts';
import { liveBase } from '../src/store/records.ts';
import { closeRedis, connectRedis, type Redis } from '../src/store/redis.ts';
import { testEnv } from './helpers/app.ts';
import { startFakeOpenAI } from './helpers/fake-openai.ts';
import { waitFor } from './helpers/wait.ts';
import { TEST_REDIS_URL } from './helpers/redis-namespaces.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

function makeFolder(n: number, word = 'ALPHA'): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-faults-'));
  for (let i = 1; i <= n; i++) {
    writeFileSync(
      path.join(dir, `doc-${i}.md`),
      `# Document ${i}\n\n## Part one\nThe ${word} reagent number ${i} is stored ` +
        `at minus twenty; code ${word}${i}A.\n\n## Part two\nDispose of ${word} ` +
        `waste number ${i} in the yellow bin; code ${word}${i}B.\n`,
    );
  }
  return dir;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
});

async function open(env: Record<string, string>): Promise<{ app: Labbot; redis: Redis }> {
  const redis = connectRedis(TEST_REDIS_URL);
  const app = await openLabbot(loadConfig(env), createLogger('silent'), { redis });
  cleanups.push(async () => {
    await app.close();
    await closeRedis(redis);
  });
  return { app, redis };
}

async function runtime(app: Labbot, worker: boolean): Promise<QueueRuntime> {
  const r = await startQueueRuntime(app, { worker, lockDurationMs: 2000, stalledIntervalMs: 1000 });
  cleanups.push(() => r.close());
  return r;
}

async function allSettled(q: QueueRuntime, timeoutMs = 30_000): Promise<void> {
  await waitFor(
    async () => {
      const c = await q.queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'waiting-children');
      return Object.values(c).every((v) => v === 0);
    },
    timeoutMs,
    'queue drained',
  );
}

describe('queue faults', () => {
  it('a worker killed with SIGKILL mid-job: the job is picked up again and completes, no duplicate chunks', async () => {
    const folder = makeFolder(3);
    const fake = await startFakeOpenAI({ dimensions: 32 });
    cleanups.push(() => fake.close());
    const env = testEnv({
      env: { EMBEDDINGS: 'openai', LLM: 'none', OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'test', LOG_LEVEL: 'info' },
      fileConfig: { sources: [{ id: 'docs', type: 'folder', path: folder }], queue: { lockMs: 2000, attempts: 3, backoffMs: 200 } },
    });
    const { app } = await open(env);
    const q = await runtime(app, false);

    fake.embedDelayMs = 60_000; // the child's first embedding call hangs: it is mid-job when killed
    const child: ChildProcess = spawn(process.execPath, [path.join(ROOT, 'bin/labbot.js'), 'worker'], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    cleanups.push(async () => void child.kill('SIGKILL'));
    let log = '';
    child.stderr?.on('data', (b: Buffer) => (log += b.toString()));
    await waitFor(async () => log.includes('worker started'), 20_000, 'child worker started');

    const syncId = await enqueueSync(q.queue, { source: 'docs', reason: 'test' });
    await waitFor(async () => fake.requests.some((r) => r.path.endsWith('/embeddings')), 20_000, 'child embedding call');
    const active = await q.queue.getJobs(['active']);
    expect(active.length).toBeGreaterThan(0);
    const victim = active.find((j) => j.name === 'index-doc')!;
    expect(victim).toBeDefined();
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));

    fake.embedDelayMs = 0;
    await runtime(app, true);
    await allSettled(q);
    const job = await q.queue.getJob(victim.id!);
    expect(await job!.getState()).toBe('completed');
    expect(await q.queue.getJob(syncId)).toBeDefined();
    const records = await app.records!.bySource('docs');
    expect(records).toHaveLength(3);
    const expectedChunks = records.reduce((n, r) => n + r.chunkIds.length, 0);
    expect(await app.store.count('public')).toBe(expectedChunks);
    expect(new Set(records.flatMap((r) => r.chunkIds)).size).toBe(expectedChunks);
  }, 90_000);

  it('Chroma stopped during a job: the job retries with backoff and succeeds once Chroma is back', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-chroma-fault-'));
    let chroma = await startChromaServer(dir);
    cleanups.push(() => chroma.stop());
    const folder = makeFolder(2, 'BRAVO');
    const env = testEnv({
      env: { CHROMA_URL: chroma.url },
      fileConfig: { sources: [{ id: 'docs', type: 'folder', path: folder }], queue: { attempts: 8, backoffMs: 300, lockMs: 5000 } },
    });
    const { app } = await open(env);
    const q = await runtime(app, true);
    await chroma.stop();
    await enqueueSync(q.queue, { source: 'docs', reason: 'test' });
    // At least one document job fails while Chroma is down and waits for its retry.
    await waitFor(async () => (await q.queue.getJobs(['delayed'])).some((j) => j.attemptsMade >= 1), 20_000, 'a failed attempt');
    chroma = await startChromaServer(dir, { port: chroma.port });
    await allSettled(q, 60_000);
    expect((await q.queue.getJobs(['failed'])).length).toBe(0);
    expect(await app.records!.bySource('docs')).toHaveLength(2);
    const r = await app.retrieve('BRAVO2B yellow bin', ['public'], 3);
    expect(r.passages[0]?.text).toContain('BRAVO2B');
  }, 120_000);

  it('a rebuild with another embedding setting: questions are answered throughout, then the alias names the new collection', async () => {
    const folder = makeFolder(6, 'CHARLIE');
    const env = testEnv({ fileConfig: { sources: [{ id: 'docs', type: 'folder', path: folder }] } });
    const { app: bot, redis } = await open(env);
    await bot.ingestSource(bot.config.sources[0]);
    const oldBase = bot.base;
    expect(await liveBase(redis, bot.ns)).toBeUndefined();

    const { app: worker } = await open({ ...env, EMBEDDING_DIMENSIONS: '256' });
    expect(worker.version).not.toBe(bot.version);
    const q = await runtime(worker, true);
    const jobId = await enqueueRebuild(q.queue, { reason: 'test: dimensions 384 -> 256' });

    let asked = 0;
    let done = false;
    const asking = (async () => {
      while (!done) {
        const r = await bot.ask('Where is CHARLIE4A stored?');
        expect(r.refused).toBe(false);
        expect(r.citations.some((c) => c.doc_id === 'docs:doc-4.md')).toBe(true);
        asked += 1;
        // Yield to timers and I/O: an ask served from memory alone would otherwise starve them.
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    await waitFor(
      async () => ['completed', 'failed'].includes(await (await q.queue.getJob(jobId))!.getState()),
      60_000,
      'rebuild finished',
    );
    done = true;
    await asking;
    const job = await q.queue.getJob(jobId);
    expect(await job!.getState(), job!.failedReason).toBe('completed');
    expect(asked).toBeGreaterThan(0);

    const live = await liveBase(redis, bot.ns);
    expect(live).toBe(worker.base);
    expect(live).not.toBe(oldBase);
    expect(await worker.store.storedVersion()).toBe(worker.version);
    // The bot process follows the switch by itself.
    await waitFor(async () => bot.base === live, 10_000, 'bot switched');
    expect(bot.catalog.stats().documents).toBe(6);
    const after = await worker.ask('Where is CHARLIE4A stored?');
    expect(after.citations.some((c) => c.doc_id === 'docs:doc-4.md')).toBe(true);
  }, 120_000);
});
