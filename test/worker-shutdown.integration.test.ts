// Graceful shutdown: `labbot worker` given SIGTERM in the middle of a job stops taking new jobs,
// lets the running one finish, closes its connections and exits 0 within the bound.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openLabbot, type Labbot } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { enqueueDoc } from '../src/queue/jobs.ts';
import { startQueueRuntime, type QueueRuntime } from '../src/queue/runtime.ts';
import { closeRedis, connectRedis } from '../src/store/redis.ts';
import { testEnv } from './helpers/app.ts';
import { startFakeOpenAI, type FakeOpenAI } from './helpers/fake-openai.ts';
import { waitFor } from './helpers/wait.ts';
import { TEST_REDIS_URL } from './helpers/redis-namespaces.ts';

describe('worker shutdown', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
  });

  it('SIGTERM mid-job: the job completes, no new job is taken, exit 0 within 20 s', async () => {
    const folder = mkdtempSync(path.join(os.tmpdir(), 'labbot-shutdown-'));
    writeFileSync(path.join(folder, 'one.md'), '# One\n\nThe first page names code ONE111.\n');
    writeFileSync(path.join(folder, 'two.md'), '# Two\n\nThe second page names code TWO222.\n');
    const fake: FakeOpenAI = await startFakeOpenAI({ dimensions: 32 });
    cleanups.push(() => fake.close());
    const env = testEnv({
      env: { EMBEDDINGS: 'openai', LLM: 'none', OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'test', LOG_LEVEL: 'info' },
      fileConfig: { sources: [{ id: 'docs', type: 'folder', path: folder }], queue: { concurrency: 1 } },
    });
    const redis = connectRedis(TEST_REDIS_URL);
    const app: Labbot = await openLabbot(loadConfig(env), createLogger('silent'), { redis });
    const q: QueueRuntime = await startQueueRuntime(app, { worker: false });
    cleanups.push(async () => {
      await q.close();
      await app.close();
      await closeRedis(redis);
    });

    const child = spawn(process.execPath, [path.resolve('bin/labbot.js'), 'worker'], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    cleanups.push(async () => void child.kill('SIGKILL'));
    let log = '';
    child.stderr.on('data', (b: Buffer) => (log += b.toString()));
    await waitFor(async () => log.includes('worker started'), 20_000, 'worker started');

    fake.embedDelayMs = 2000;
    const first = await enqueueDoc(q.queue, 'index-doc', { source: 'docs', path: 'one.md', hash: 'a' });
    await waitFor(async () => fake.requests.some((r) => r.path.endsWith('/embeddings')), 20_000, 'first job embedding');
    const second = await enqueueDoc(q.queue, 'index-doc', { source: 'docs', path: 'two.md', hash: 'b' });
    const t0 = Date.now();
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    expect(code).toBe(0);
    expect(Date.now() - t0).toBeLessThan(20_000);
    expect(await (await q.queue.getJob(first))!.getState()).toBe('completed');
    expect(await (await q.queue.getJob(second))!.getState()).toBe('waiting');
    expect(log).toMatch(/shutting down/);
  }, 60_000);
});
