// Fault suite: Redis restarted in the middle of a 500-document ingest, and Chroma restarted while
// questions are asked. Real services: a Redis of our own (AOF on, as docker-compose runs it) and a
// Chroma of our own, so restarting them disturbs no other test.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openLabbot, type Labbot } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { enqueueSync } from '../src/queue/jobs.ts';
import { startQueueRuntime } from '../src/queue/runtime.ts';
import { startServe } from '../src/serve.ts';
import { freePort, startChromaServer } from '../src/store/chroma-server.ts';
import { closeRedis, connectRedis } from '../src/store/redis.ts';
import { testEnv } from './helpers/app.ts';
import { waitFor } from './helpers/wait.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
});

function startRedis(port: number, dir: string): void {
  execFileSync('redis-server', [
    '--daemonize',
    'yes',
    '--bind',
    '127.0.0.1',
    '--port',
    String(port),
    '--dir',
    dir,
    '--appendonly',
    'yes',
    '--appendfsync',
    'always',
    '--save',
    '',
    '--logfile',
    path.join(dir, 'redis.log'),
  ]);
}
function stopRedis(port: number): void {
  try {
    execFileSync('redis-cli', ['-p', String(port), 'shutdown']);
  } catch {
    // redis-cli reports the dropped connection as an error; the server is down either way.
  }
}
async function redisUp(port: number): Promise<void> {
  await waitFor(
    async () => {
      try {
        return execFileSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' }).includes('PONG');
      } catch {
        return false;
      }
    },
    10_000,
    `redis on ${port}`,
  );
}

describe('fault suite', () => {
  it('Redis restarted in the middle of a 500-document ingest: every document indexed exactly once, none lost, no duplicate chunks', async () => {
    const port = await freePort();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-redis-fault-'));
    startRedis(port, dir);
    await redisUp(port);
    cleanups.push(async () => stopRedis(port));

    const folder = mkdtempSync(path.join(os.tmpdir(), 'labbot-500-'));
    for (let i = 1; i <= 500; i++) {
      writeFileSync(
        path.join(folder, `note-${i}.md`),
        `# Note ${i}\n\n## Summary\nNote ${i} records sample batch B${i} kept ` +
          `in rack ${i % 17}.\n\n## Detail\nSample batch B${i} was thawed once; code ` +
          `NOTE${i}CODE.\n`,
      );
    }
    const env = testEnv({
      env: { REDIS_URL: `redis://127.0.0.1:${port}` },
      fileConfig: {
        sources: [{ id: 'notes', type: 'folder', path: folder }],
        queue: { concurrency: 4, attempts: 10, backoffMs: 200, lockMs: 3000 },
      },
    });
    const redis = connectRedis(`redis://127.0.0.1:${port}`);
    redis.on('error', () => undefined);
    const app: Labbot = await openLabbot(loadConfig(env), createLogger('silent'), { redis });
    const q = await startQueueRuntime(app, { worker: true, lockDurationMs: 3000, stalledIntervalMs: 1000 });
    cleanups.push(async () => {
      await q.close();
      await app.close();
      await closeRedis(redis);
    });

    await enqueueSync(q.queue, { source: 'notes', reason: 'fault test' });
    await waitFor(async () => (await app.records!.count().catch(() => 0)) >= 60, 60_000, '60 documents indexed');
    expect(await app.records!.count()).toBeLessThan(500); // really in the middle
    stopRedis(port);
    await new Promise((r) => setTimeout(r, 1500));
    startRedis(port, dir);
    await redisUp(port);

    await waitFor(
      async () => {
        const n = await app.records!.count().catch(() => 0);
        const c = await q.queue.getJobCounts('waiting', 'active', 'delayed').catch(() => undefined);
        return n === 500 && c !== undefined && c.waiting + c.active + c.delayed === 0;
      },
      180_000,
      'all 500 documents indexed after the restart',
    );
    const records = await app.records!.bySource('notes');
    expect(records).toHaveLength(500);
    expect(new Set(records.map((r) => r.path)).size).toBe(500);
    const chunkIds = records.flatMap((r) => r.chunkIds);
    expect(new Set(chunkIds).size).toBe(chunkIds.length);
    // Chroma holds exactly the recorded chunks: none lost, none duplicated or orphaned.
    expect(await app.store.count('public')).toBe(chunkIds.length);
    expect((await q.queue.getJobs(['failed'])).length).toBe(0);
  }, 240_000);

  it('Chroma restarted while questions are asked: a clear "index unavailable, try again" reply, then answers again', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-chroma-restart-'));
    let chroma = await startChromaServer(dir);
    cleanups.push(() => chroma.stop());
    const folder = mkdtempSync(path.join(os.tmpdir(), 'labbot-q-'));
    writeFileSync(
      path.join(folder, 'freezer.md'),
      '# Freezer\n\nThe minus eighty freezer alarm code is FRZ-42; call the facility if it sounds.\n',
    );
    const running = await startServe(
      loadConfig(
        testEnv({
          env: { CHROMA_URL: chroma.url, LABBOT_PORT: '0' },
          fileConfig: { sources: [{ id: 'f', type: 'folder', path: folder }] },
        }),
      ),
      createLogger('silent'),
    );
    cleanups.push(() => running.close());
    const ask = () =>
      fetch(`${running.url}/api/ask`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ question: 'What is the freezer alarm code?' }),
      });
    expect((await ask()).status).toBe(200);
    await chroma.stop();
    const down = await ask();
    expect(down.status).toBe(503);
    expect(((await down.json()) as { error: string }).error).toMatch(/unavailable.*try again/i);
    const ready = await fetch(`${running.url}/readyz`);
    expect(ready.status).toBe(503);
    chroma = await startChromaServer(dir, { port: chroma.port });
    const back = await waitFor(
      async () => {
        const r = await ask();
        return r.status === 200 ? ((await r.json()) as { answer: string; citations: unknown[] }) : undefined;
      },
      20_000,
      'answers after Chroma is back',
    );
    expect(back.citations.length).toBeGreaterThan(0);
    expect(back.answer).toMatch(/FRZ-42/);
  }, 90_000);
});
