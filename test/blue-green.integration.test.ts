// Blue/green stays blue/green: each physical index is queried with the embedding settings it was
// built with (so a bot configured with the new model gets vector results from the old index, and
// a bot with the old model from the new one); the old collections are dropped only once every live
// process has switched; HNSW settings are applied or change the index version, never ignored.
// Real Chroma, real Redis, the real rebuild code.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Labbot } from '../src/app.ts';
import { rebuildIndex, retiredKey } from '../src/queue/rebuild.ts';
import { IndexVersionError } from '../src/store/chroma-store.ts';
import { liveBase } from '../src/store/records.ts';
import type { Redis } from '../src/store/redis.ts';
import { openAppOwnRedis, testEnv, uniqueCollection } from './helpers/app.ts';
import { waitFor } from './helpers/wait.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
});

async function open(
  env: Record<string, string>,
  opts: { loadCatalog?: boolean } = {},
): Promise<{ app: Labbot; redis: Redis; close: () => Promise<void> }> {
  const opened = await openAppOwnRedis(env, opts);
  cleanups.push(opened.close);
  return opened;
}

function makeFolder(n: number): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-bluegreen-'));
  for (let i = 1; i <= n; i++) {
    writeFileSync(
      path.join(dir, `doc-${i}.md`),
      `# Reagent ${i}\n\nThe DELTA reagent number ${i} is kept on shelf ${i} of the cold room, code DELTA${i}X.\n`,
    );
  }
  return dir;
}

const hasDense = (r: Awaited<ReturnType<Labbot['retrieve']>>) => r.passages.some((p) => p.debug.denseRank !== undefined);

describe('blue/green rebuild', () => {
  it('a bot configured with the new model gets vector results before and after the switch; the ' +
    'old index is dropped only after every live process switched', async () => {
    const folder = makeFolder(5);
    const env = testEnv({
      collection: uniqueCollection('bg'),
      fileConfig: { sources: [{ id: 'docs', type: 'folder', path: folder }], queue: { switchGraceMs: 120_000 } },
    });
    const newModel = { ...env, EMBEDDING_DIMENSIONS: '256' };
    const oldBot = await open(env);
    await oldBot.app.ingestSource(oldBot.app.config.sources[0]);
    const oldBase = oldBot.app.base;
    const q = 'Where is the DELTA reagent number 3 kept?';

    // A bot already running the new settings while the old index is live.
    const newBot = await open(newModel);
    expect(newBot.app.version).not.toBe(oldBot.app.version);
    expect(newBot.app.base).toBe(oldBase);
    expect(hasDense(await newBot.app.retrieve(q, ['public'], 3))).toBe(true);

    // A live process that has not switched yet (its switch event not applied): stands for a bot
    // still loading the new catalog.
    const slow = await open(env);
    await slow.app.events!.close();

    const worker = await open(newModel, { loadCatalog: false });
    const rebuilt = rebuildIndex(worker.app, { reason: 'test: 384 -> 256 dimensions' });
    const newBase = await waitFor(
      async () => {
        const b = await liveBase(worker.redis, worker.app.ns);
        return b && b !== oldBase ? b : undefined;
      },
      60_000,
      'the alias switch',
    );

    // Both bots follow the switch and query the new index with the model it was built with.
    await waitFor(async () => newBot.app.base === newBase && oldBot.app.base === newBase, 30_000, 'bots switched');
    expect(hasDense(await newBot.app.retrieve(q, ['public'], 3))).toBe(true);
    expect(hasDense(await oldBot.app.retrieve(q, ['public'], 3))).toBe(true);

    // The slow process still uses the old index: it must still be there, vectors and all.
    expect(slow.app.base).toBe(oldBase);
    expect(await slow.app.store.count('public')).toBe(5);
    expect(hasDense(await slow.app.retrieve(q, ['public'], 3))).toBe(true);

    // Once it is gone, nothing holds the old index and the rebuild drops it.
    await slow.close();
    const result = await rebuilt;
    expect(result.switchAcknowledged).toBe(true);
    expect(await oldBot.app.openIndex(oldBase).then((i) => i.store.groups())).toEqual([]);
    expect(await newBot.app.store.count('public')).toBe(5);
  }, 120_000);

  it('a process that never switches holds the old index only for the grace period', async () => {
    const folder = makeFolder(2);
    const env = testEnv({
      collection: uniqueCollection('bg'),
      fileConfig: { sources: [{ id: 'docs', type: 'folder', path: folder }], queue: { switchGraceMs: 1000 } },
    });
    const bot = await open(env);
    await bot.app.ingestSource(bot.app.config.sources[0]);
    const oldBase = bot.app.base;
    await bot.app.events!.close();
    const worker = await open({ ...env, EMBEDDING_DIMENSIONS: '256' }, { loadCatalog: false });
    const result = await rebuildIndex(worker.app, { reason: 'test' });
    expect(result.switchAcknowledged).toBe(false);
    expect(await worker.app.openIndex(oldBase).then((i) => i.store.groups())).toEqual([]);
  }, 60_000);

  it('HNSW settings: a changed ef_search is applied to the index, a changed graph setting changes the index version', async () => {
    const folder = makeFolder(2);
    const collection = uniqueCollection('hnsw');
    const fileConfig = (retrieval: Record<string, number>) => ({ sources: [{ id: 'docs', type: 'folder', path: folder }], retrieval });
    const first = await open(testEnv({ collection, fileConfig: fileConfig({ hnswEfSearch: 100 }) }));
    await first.app.ingestSource(first.app.config.sources[0]);
    expect((await first.app.store.describe())[0].efSearch).toBe(100);

    const second = await open(testEnv({ collection, fileConfig: fileConfig({ hnswEfSearch: 300 }) }));
    expect((await second.app.store.describe()).map((c) => c.efSearch)).toEqual([300]);
    expect(second.app.version).toBe(first.app.version);

    const third = await open(testEnv({ collection, fileConfig: fileConfig({ hnswEfSearch: 300, hnswM: 32 }) }));
    expect(third.app.version).not.toBe(first.app.version);
    expect(third.app.versionDescription).toMatch(/m=32/);
    await expect(third.app.ingestSource(third.app.config.sources[0])).rejects.toBeInstanceOf(IndexVersionError);
  }, 60_000);

  it('an old index left behind by a rebuild that stopped while waiting is dropped by the next rebuild, once no process uses it', async () => {
    const folder = makeFolder(2);
    const env = testEnv({ collection: uniqueCollection('bg'), fileConfig: { sources: [{ id: 'docs', type: 'folder', path: folder }] } });
    const bot = await open(env);
    await bot.app.ingestSource(bot.app.config.sources[0]);
    // What such a rebuild leaves: an index beside the live one, marked retired.
    const leftover = await bot.app.openIndex(`${env.LABBOT_COLLECTION}-vleft`);
    const [vector] = await bot.app.embeddings.embedDocuments(['left over']);
    await leftover.store.upsert('public', [
      {
        id: 'x#0',
        text: 'left over',
        embedding: vector,
        metadata: {
          doc_id: 'x',
          source: 'docs',
          path: 'x.md',
          kind: 'note',
          title: 'x',
          authors: '',
          access: 'public',
          doc_hash: 'h',
          chunk_hash: 'c',
          chunk_index: 0,
          section: '',
        },
      },
    ]);
    await bot.redis.sadd(retiredKey(bot.app.ns), leftover.base);

    const worker = await open(env, { loadCatalog: false });
    await rebuildIndex(worker.app, { reason: 'test' });
    expect(await leftover.store.groups()).toEqual([]);
    expect(await bot.redis.sismember(retiredKey(bot.app.ns), leftover.base)).toBe(0);
    // The index it replaced was retired and dropped the same way; the live one is untouched.
    expect(await bot.redis.smembers(retiredKey(bot.app.ns))).toEqual([]);
    expect(await worker.app.store.count('public')).toBe(2);
  }, 60_000);
});
