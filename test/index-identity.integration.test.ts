// Redis records are tied to the physical index they describe: when records and Chroma disagree
// (a fresh Chroma data dir under an old Redis, Redis records lost under an intact Chroma, Chroma
// emptied while a process runs), labbot repairs from what Chroma holds and logs the repair.
// Real Chroma servers, real Redis, the real OpenAI client against a local fake endpoint.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ChromaClient } from 'chromadb';
import { afterEach, describe, expect, it } from 'vitest';
import type { Labbot } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { startQueueRuntime } from '../src/queue/runtime.ts';
import type { SyncResult } from '../src/queue/sync-source.ts';
import { startServe } from '../src/serve.ts';
import { startChromaServer } from '../src/store/chroma-server.ts';
import { closeRedis, connectRedis, type Redis } from '../src/store/redis.ts';
import { openAppOwnRedis, testEnv, uniqueCollection } from './helpers/app.ts';
import { startFakeOpenAI } from './helpers/fake-openai.ts';
import { captureLog } from './helpers/log-capture.ts';
import { waitFor } from './helpers/wait.ts';
import type { Logger } from 'pino';
import { TEST_REDIS_URL } from './helpers/redis-namespaces.ts';

const LAB = path.resolve('examples/lab');
const fileConfig = { sources: [{ id: 'lab', type: 'folder', path: LAB }], access: { default: 'public', channels: { CPI: ['pi-only'] } } };

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
});

async function open(env: Record<string, string>, log: Logger = createLogger('silent')): Promise<Labbot> {
  const opened = await openAppOwnRedis(env, { log });
  cleanups.push(opened.close);
  return Object.assign(opened.app, { close: opened.close });
}

/** Deletes every Redis key of one installation (the shared Redis also serves other tests). */
async function flushNamespace(ns: string): Promise<number> {
  const redis: Redis = connectRedis(TEST_REDIS_URL);
  let n = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${ns}:*`, 'COUNT', 500);
    cursor = next;
    if (keys.length) n += await redis.del(...keys);
  } while (cursor !== '0');
  await closeRedis(redis);
  return n;
}

describe('index identity and repair', () => {
  it('a fresh Chroma data dir under an old Redis: the missing documents are indexed again, and the repair is logged', async () => {
    const env = testEnv({ collection: uniqueCollection('ident'), fileConfig });
    const first = await open(env);
    const s1 = await first.ingestSource(first.config.sources[0]);
    const n = s1.documents.indexed;
    expect(n).toBeGreaterThan(5);
    await first.close();

    // A second clone on the same machine: same Redis, a Chroma started on an empty data dir.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-fresh-chroma-'));
    const fresh = await startChromaServer(dir);
    cleanups.push(() => fresh.stop());
    const cap = captureLog();
    const second = await open({ ...env, CHROMA_URL: fresh.url }, cap.log);
    const repaired = cap.find('index repaired');
    expect(repaired).toHaveLength(1);
    expect(repaired[0].dropped).toBe(n);

    const s2 = await second.ingestSource(second.config.sources[0]);
    expect(s2.documents).toEqual({ indexed: n, unchanged: 0, removed: 0 });
    expect(second.catalog.stats().documents).toBe(n);
    expect(await second.records!.count()).toBe(n);
    const r = await second.ask('How long do we block the membrane?');
    expect(r.refused).toBe(false);
    // Repaired once: a later start finds the stores in agreement.
    await second.close();
    const cap3 = captureLog();
    const third = await open({ ...env, CHROMA_URL: fresh.url }, cap3.log);
    expect(cap3.find('index repaired')).toHaveLength(0);
    expect((await third.ingestSource(third.config.sources[0])).documents).toEqual({ indexed: 0, unchanged: n, removed: 0 });
  });

  it('rm -rf data && labbot serve under the same Redis: serve indexes everything again and answers', async () => {
    const env = testEnv({ collection: uniqueCollection('ident'), fileConfig, env: { LABBOT_PORT: '0', LABBOT_WORKER: 'off' } });
    delete env.CHROMA_URL; // serve starts its own Chroma under the data dir
    const first = await startServe(loadConfig(env), createLogger('silent'));
    const n = first.app.catalog.stats().documents;
    expect(n).toBeGreaterThan(5);
    await first.close();
    rmSync(env.LABBOT_DATA_DIR, { recursive: true, force: true });

    const cap = captureLog();
    const second = await startServe(loadConfig(env), cap.log);
    cleanups.push(() => second.close());
    expect(cap.find('index repaired')[0]?.dropped).toBe(n);
    expect(second.app.catalog.stats().documents).toBe(n);
    const res = await fetch(`${second.url}/api/ask`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'How long do we block the membrane?' }),
    });
    expect(((await res.json()) as { refused: boolean }).refused).toBe(false);
  }, 90_000);

  it('Redis records lost under an intact Chroma: records are restored from Chroma and nothing is embedded again', async () => {
    const fake = await startFakeOpenAI();
    cleanups.push(() => fake.close());
    const env = testEnv({
      collection: uniqueCollection('ident'),
      fileConfig,
      env: { OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'sk-test', EMBEDDING_MODEL: 'fake-embed', LLM: 'none' },
    });
    const first = await open(env);
    const s1 = await first.ingestSource(first.config.sources[0]);
    const n = s1.documents.indexed;
    expect(n).toBeGreaterThan(5);
    expect(fake.embeddedDocuments.length).toBeGreaterThan(0);
    await first.close();

    // Redis lost everything of this installation: records, identity and the embedding cache.
    expect(await flushNamespace(`labbot:${env.LABBOT_COLLECTION}`)).toBeGreaterThan(0);
    const embeddedBefore = fake.embeddedDocuments.length;
    const cap = captureLog();
    const second = await open(env, cap.log);
    const repaired = cap.find('index repaired');
    expect(repaired).toHaveLength(1);
    expect(repaired[0].restored).toBe(n);
    expect(await second.records!.count()).toBe(n);

    const s2 = await second.ingestSource(second.config.sources[0]);
    expect(s2.documents).toEqual({ indexed: 0, unchanged: n, removed: 0 });
    expect(fake.embeddedDocuments.length).toBe(embeddedBefore);
    const r = await second.retrieve('How long do we block the membrane?', ['public'], 3);
    expect(r.passages.some((p) => p.debug.denseRank !== undefined)).toBe(true);
  });

  it('Chroma restored from an older backup (same index id, a document missing): a new process indexes it again', async () => {
    const env = testEnv({ collection: uniqueCollection('ident'), fileConfig });
    const first = await open(env);
    const n = (await first.ingestSource(first.config.sources[0])).documents.indexed;
    const gone = [...first.catalog.docs()].find((d) => d.access === 'public')!;
    await first.store.delete(gone.access, gone.chunkIds);
    await first.close();

    const cap = captureLog();
    const second = await open(env, cap.log);
    const repaired = cap.find('index repaired');
    expect(repaired).toHaveLength(1);
    expect(repaired[0].droppedPaths).toEqual([`${gone.source}:${gone.path}`]);
    expect((await second.ingestSource(second.config.sources[0])).documents).toEqual({ indexed: 1, unchanged: n - 1, removed: 0 });
    expect(second.catalog.doc(gone.id)?.chunkIds).toEqual(gone.chunkIds);
  });

  it('a document Chroma holds only in part: its remaining chunks are deleted and it is indexed again whole', async () => {
    const env = testEnv({ collection: uniqueCollection('ident'), fileConfig });
    const first = await open(env);
    const n = (await first.ingestSource(first.config.sources[0])).documents.indexed;
    const doc = [...first.catalog.docs()].find((d) => d.chunkIds.length >= 3)!;
    await first.store.delete(doc.access, [doc.chunkIds[1]]);
    await first.close();

    const cap = captureLog();
    const second = await open(env, cap.log);
    expect(cap.find('index repaired')[0]?.partial).toBe(1);
    expect(second.catalog.doc(doc.id)).toBeUndefined();
    expect((await second.ingestSource(second.config.sources[0])).documents).toEqual({ indexed: 1, unchanged: n - 1, removed: 0 });
    expect(second.catalog.doc(doc.id)?.chunkIds).toEqual(doc.chunkIds);
    expect(await second.store.count(doc.access)).toBe(first.catalog.stats().byGroup[doc.access].chunks);
  });

  it('an index built before index ids: the id is recorded once, nothing is dropped or re-embedded', async () => {
    const env = testEnv({ collection: uniqueCollection('ident'), fileConfig });
    const first = await open(env);
    const n = (await first.ingestSource(first.config.sources[0])).documents.indexed;
    const base = first.base;
    await first.close();
    // What an older labbot left behind: collections without the id, records without identity.
    const client = new ChromaClient({ host: '127.0.0.1', port: Number(new URL(env.CHROMA_URL).port), ssl: false });
    for (const c of await client.listCollections()) {
      if (!c.name.startsWith(`${base}--`)) continue;
      const { labbot_index_id: _id, ...rest } = c.metadata ?? {};
      await c.modify({ metadata: rest });
    }
    const redis = connectRedis(TEST_REDIS_URL);
    await redis.del(`labbot:${env.LABBOT_COLLECTION}:idx:${base}:identity`);
    await closeRedis(redis);

    const cap = captureLog();
    const second = await open(env, cap.log);
    expect(cap.find('index repaired')).toHaveLength(0);
    expect(cap.find('index identity recorded')).toHaveLength(1);
    expect((await second.ingestSource(second.config.sources[0])).documents).toEqual({ indexed: 0, unchanged: n, removed: 0 });
  });

  it('Chroma emptied under a running process: its next ingest checks before skipping anything', async () => {
    const env = testEnv({ collection: uniqueCollection('ident'), fileConfig });
    const cap = captureLog();
    const app = await open(env, cap.log);
    const n = (await app.ingestSource(app.config.sources[0])).documents.indexed;
    // Someone else empties the Chroma collections (a restored backup, a wiped volume).
    const other = await open(env);
    await other.store.dropAll();
    const s = await app.ingestSource(app.config.sources[0]);
    expect(s.documents).toEqual({ indexed: n, unchanged: 0, removed: 0 });
    expect(cap.find('index repaired')).toHaveLength(1);
    expect(await app.store.count('public')).toBeGreaterThan(0);
  });

  it('Chroma emptied under a running queue worker: the next sync indexes every document again', async () => {
    const folder = mkdtempSync(path.join(os.tmpdir(), 'labbot-ident-sync-'));
    for (let i = 1; i <= 4; i++)
      writeFileSync(path.join(folder, `page-${i}.md`), `# Page ${i}\n\nThe OSPREY${i} sample is in drawer ${i}.\n`);
    const env = testEnv({ collection: uniqueCollection('ident'), fileConfig: { sources: [{ id: 'docs', type: 'folder', path: folder }] } });
    const cap = captureLog();
    const app = await open(env, cap.log);
    const q = await startQueueRuntime(app, { worker: true, lockDurationMs: 2000, stalledIntervalMs: 1000 });
    cleanups.push(() => q.close());
    const sync = async () => {
      const job = await q.queue.add('sync-source', { source: 'docs', reason: 'test' });
      await waitFor(async () => ['completed', 'failed'].includes(await job.getState()), 30_000, 'sync');
      await waitFor(
        async () => Object.values(await q.queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized')).every((v) => v === 0),
        30_000,
        'jobs done',
      );
      return { result: (await q.queue.getJob(job.id!))!.returnvalue as SyncResult };
    };
    expect((await sync()).result.index).toBe(4);
    expect(await app.store.count('public')).toBeGreaterThan(0);

    const other = await open(env);
    await other.store.dropAll();
    const again = await sync();
    expect(again.result.index).toBe(4);
    expect(cap.find('index repaired')).toHaveLength(1);
    expect(await app.store.count('public')).toBe(4);
  });
});
