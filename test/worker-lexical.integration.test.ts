// A queue worker answers nothing, so it holds no lexical index: not of what it indexes, and not
// of an index it rebuilds and switches to. The serving process learns both from index events.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openLabbot, type Labbot } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { enqueueRebuild, requestSync } from '../src/queue/jobs.ts';
import { followSync } from '../src/queue/progress.ts';
import { startQueueRuntime } from '../src/queue/runtime.ts';
import { liveBase } from '../src/store/records.ts';
import { closeRedis, connectRedis } from '../src/store/redis.ts';
import { testEnv } from './helpers/app.ts';
import { TEST_REDIS_URL } from './helpers/redis-namespaces.ts';
import { waitFor } from './helpers/wait.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
});

async function open(env: Record<string, string>, loadCatalog: boolean): Promise<Labbot> {
  const redis = connectRedis(TEST_REDIS_URL);
  const app = await openLabbot(loadConfig(env), createLogger('silent'), { redis, loadCatalog });
  cleanups.push(async () => {
    await app.close();
    await closeRedis(redis);
  });
  return app;
}

describe('a queue worker', () => {
  it('holds no lexical index after indexing and after a rebuild, while the bot answers from what it wrote', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-worker-lex-'));
    for (let i = 1; i <= 8; i++)
      writeFileSync(
        path.join(dir, `note-${i}.md`),
        `# Note ${i}\n\n## Storage\nReagent WLEX${i}Q is kept at minus twenty.\n\n## Disposal\nWaste WLEX${i}Z goes in the yellow bin.\n`,
      );
    const env = testEnv({
      fileConfig: { sources: [{ id: 'notes', type: 'folder', path: dir }], access: { default: 'public', channels: {} } },
    });
    const bot = await open(env, true);
    const worker = await open(env, false);
    const runtime = await startQueueRuntime(worker, { worker: true });
    cleanups.push(() => runtime.close());

    const ticket = await requestSync(runtime.queue, { source: 'notes', reason: 'test' });
    const outcome = await followSync(runtime.queue, ticket, 'notes', undefined, { pollMs: 50, timeoutMs: 60_000 });
    expect(outcome).toMatchObject({ total: 8, done: 8, failed: [] });
    expect(await worker.records!.count()).toBe(8);
    expect(worker.catalog.chunkCount).toBe(0);
    expect(worker.catalog.stats().documents).toBe(0);
    await waitFor(async () => bot.catalog.stats().documents === 8, 15_000, 'bot applied the events');
    expect((await bot.ask('Where is reagent WLEX5Q kept?')).citations[0]?.doc_id).toBe('notes:note-5.md');

    const jobId = await enqueueRebuild(runtime.queue, { reason: 'test' });
    await waitFor(
      async () => ['completed', 'failed'].includes(await (await runtime.queue.getJob(jobId))!.getState()),
      60_000,
      'rebuild finished',
    );
    const job = (await runtime.queue.getJob(jobId))!;
    expect(await job.getState(), job.failedReason).toBe('completed');
    expect(job.returnvalue).toMatchObject({ documents: 8, chunks: 16 });
    const live = await liveBase(worker.redis!, worker.ns);
    expect(worker.base).toBe(live);
    expect(worker.catalog.chunkCount).toBe(0);
    await waitFor(async () => bot.base === live && bot.catalog.stats().documents === 8, 15_000, 'bot switched');
    expect((await bot.ask('Where does waste WLEX3Z go?')).citations[0]?.doc_id).toBe('notes:note-3.md');
  }, 120_000);
});
