// Webhooks lose nothing and replay nothing: concurrent deliveries for one folder source, deliveries
// while a sync is retrying, the same body without a delivery id, a reused delivery id, and a
// delivery that cannot be queued. Real Redis and BullMQ (the worker runs only where a test starts
// one, so jobs can be made to wait), real Chroma.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { docKey } from '../src/queue/jobs.ts';
import { startQueueRuntime, type QueueRuntime } from '../src/queue/runtime.ts';
import { startServe, type Running } from '../src/serve.ts';
import { testEnv } from './helpers/app.ts';
import { startFakeOpenAI, type FakeOpenAI } from './helpers/fake-openai.ts';
import { genericChange } from './helpers/git-wiki.ts';
import { waitFor } from './helpers/wait.ts';

const SECRET = 'delivery-secret-0123';

describe('webhooks lose nothing and replay nothing', () => {
  let folder: string;
  let fake: FakeOpenAI;
  let running: Running;
  let workers: QueueRuntime[] = [];

  const page = (name: string, word: string) => writeFileSync(path.join(folder, name), `# ${name}\n\nThis page says ${word}.\n`);
  const post = (req: { headers: Record<string, string>; body: string }) =>
    fetch(`${running.url}/hooks/wiki/docs`, { method: 'POST', headers: req.headers, body: req.body });
  const found = (word: string) => running.app.catalog.lexicalSearch(['public'], word, 3).length > 0;
  const allFound = (words: string[], what: string) => waitFor(async () => words.every(found), 20_000, what);
  const startWorker = async () => {
    const w = await startQueueRuntime(running.app, { worker: true, lockDurationMs: 5000, stalledIntervalMs: 2500 });
    workers.push(w);
    return w;
  };
  const stopWorkers = async () => {
    for (const w of workers) await w.close();
    workers = [];
  };
  const idle = () =>
    waitFor(
      async () => {
        const c = await running.queue!.queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
        return Object.values(c).every((n) => n === 0);
      },
      20_000,
      'queue idle',
    );

  beforeAll(async () => {
    folder = mkdtempSync(path.join(os.tmpdir(), 'labbot-deliveries-'));
    page('start.md', 'STARTPAGE');
    fake = await startFakeOpenAI({ dimensions: 32 });
    const env = testEnv({
      env: {
        EMBEDDINGS: 'openai',
        LLM: 'none',
        OPENAI_BASE_URL: fake.baseURL,
        OPENAI_API_KEY: 'test',
        LABBOT_PORT: '0',
        LABBOT_WORKER: 'off',
      },
      fileConfig: {
        sources: [{ id: 'docs', type: 'folder', path: folder, secret: SECRET }],
        queue: { attempts: 6, backoffMs: 300 },
        access: { default: 'public', channels: {} },
      },
    });
    running = await startServe(loadConfig(env), createLogger('silent'));
  }, 120_000);

  afterEach(async () => {
    await idle().catch(() => undefined);
    await stopWorkers();
  });

  afterAll(async () => {
    await stopWorkers();
    await running?.close();
    await fake?.close();
  });

  it('four deliveries for one folder source at once: every page is indexed', async () => {
    for (const p of ['a', 'b', 'c', 'd']) page(`${p}.md`, `PAGE${p.toUpperCase()}FOUR`);
    const responses = await Promise.all(
      ['a', 'b', 'c', 'd'].map((p) => post(genericChange(SECRET, { changed: [`${p}.md`] }, `four-${p}`))),
    );
    expect(responses.map((r) => r.status)).toEqual([202, 202, 202, 202]);
    await startWorker();
    await allFound(['PAGEAFOUR', 'PAGEBFOUR', 'PAGECFOUR', 'PAGEDFOUR'], 'all four pages indexed');
  });

  it('deliveries that arrive while a sync is retrying are not lost', async () => {
    for (const p of ['e', 'f', 'g', 'h']) page(`${p}.md`, `PAGE${p.toUpperCase()}RETRY`);
    // Redis refuses the sync's first document job (a key of the wrong type): the sync fails and retries.
    const client = running.redis!;
    const blocker = running.queue!.queue.toKey(`de:doc-${docKey('docs', 'e.md')}`);
    await client.hset(blocker, 'blocked', '1');
    expect((await post(genericChange(SECRET, { changed: ['e.md'] }, 'retry-e'))).status).toBe(202);
    const w = await startWorker();
    const job = await waitFor(
      async () => (await running.queue!.queue.getJobs(['delayed', 'failed'])).find((j) => j?.name === 'sync-source' && j.attemptsMade > 0),
      20_000,
      'the sync failed once',
    );
    await w.close();
    workers = [];
    expect(job.attemptsMade).toBeGreaterThan(0);
    for (const p of ['f', 'g', 'h']) expect((await post(genericChange(SECRET, { changed: [`${p}.md`] }, `retry-${p}`))).status).toBe(202);
    await client.del(blocker);
    await startWorker();
    await allFound(['PAGEERETRY', 'PAGEFRETRY', 'PAGEGRETRY', 'PAGEHRETRY'], 'all four pages indexed after the retry');
  });

  it('the same page notified twice without a delivery header is indexed twice', async () => {
    await startWorker();
    page('same.md', 'SAMEFIRST');
    const req = genericChange(SECRET, { changed: ['same.md'] });
    expect((await post(req)).status).toBe(202);
    await allFound(['SAMEFIRST'], 'first version');
    page('same.md', 'SAMESECOND');
    const again = await post(req);
    expect(again.status).toBe(202);
    await allFound(['SAMESECOND'], 'second version');
    expect(found('SAMEFIRST')).toBe(false);
  });

  it('deduplication keys on the signed body plus the delivery id', async () => {
    await startWorker();
    page('q.md', 'QPAGEONE');
    page('r.md', 'RPAGEONE');
    const first = genericChange(SECRET, { changed: ['q.md'] }, 'reused-id');
    expect((await post(first)).status).toBe(202);
    // Another body under the same (unsigned) delivery id is another delivery, not a replay.
    expect((await post(genericChange(SECRET, { changed: ['r.md'] }, 'reused-id'))).status).toBe(202);
    await allFound(['QPAGEONE', 'RPAGEONE'], 'both pages indexed');
    const replay = await post(first);
    expect(replay.status).toBe(200);
    expect(((await replay.json()) as { duplicate?: boolean }).duplicate).toBe(true);
  });

  it('a delivery that cannot be queued answers 5xx, and its retry is queued rather than called a duplicate', async () => {
    page('s.md', 'SPAGEQUEUED');
    const client = running.redis!;
    // The queue's job counter made a non-integer: BullMQ's add script fails at its first step.
    const counter = running.queue!.queue.toKey('id');
    const saved = await client.get(counter);
    await client.set(counter, 'not-a-number');
    const req = genericChange(SECRET, { changed: ['s.md'] }, 'unqueued-1');
    const failed = await post(req);
    expect(failed.status).toBeGreaterThanOrEqual(500);
    if (saved === null) await client.del(counter);
    else await client.set(counter, saved);
    const retried = await post(req);
    expect(retried.status).toBe(202);
    await startWorker();
    await allFound(['SPAGEQUEUED'], 'page of the retried delivery indexed');
  });
});
