// A repair races with writers: the catalog it starts from was scanned before a worker finished
// writing. Every drop and rewrite must be decided on what Chroma holds now, or a record that was
// just written correctly is dropped (its job has completed, so nothing indexes it again).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openLabbot, type Labbot } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { createCatalog } from '../src/search/catalog.ts';
import { repairRecords } from '../src/index/repair.ts';
import { closeRedis, connectRedis } from '../src/store/redis.ts';
import { testEnv } from './helpers/app.ts';
import { TEST_REDIS_URL } from './helpers/redis-namespaces.ts';

const page = (id: string, body: string) => `---\nid: ${id}\ntitle: ${id}\n---\n\n# ${id}\n\n${body}\n`;

describe('index repair against concurrent writers', () => {
  const redis = connectRedis(TEST_REDIS_URL);
  const dirs: string[] = [];
  let app: Labbot | undefined;
  afterAll(async () => {
    await app?.close();
    await closeRedis(redis);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('keeps records of documents written or replaced after its scan, and drops only what Chroma really lacks', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'labbot-race-'));
    dirs.push(root);
    writeFileSync(path.join(root, 'a.md'), page('a', 'Alpha buffer is kept at 4 degrees.'));
    writeFileSync(path.join(root, 'b.md'), page('b', 'Beta buffer is kept at room temperature.'));
    app = await openLabbot(loadConfig(testEnv()), createLogger('silent'), { redis });
    await app.ingest({ sourceId: 'lab', root });

    // The repair's view of Chroma, taken now...
    const stale = createCatalog();
    for (const g of await app.store.groups()) await app.store.scan(g, (r) => stale.load(r, g));
    // ...then a writer adds a page and rewrites another before the repair acts.
    writeFileSync(path.join(root, 'c.md'), page('c', 'Gamma buffer is new.'));
    writeFileSync(
      path.join(root, 'b.md'),
      page('b', `Beta buffer is kept at room temperature. ${'It is filtered before use. '.repeat(150)}`),
    );
    await app.ingest({ sourceId: 'lab', root });
    const before = new Map((await app.records!.all()).map((r) => [r.id, r.chunkIds]));
    expect([...before.keys()].sort()).toEqual(['a', 'b', 'c']);

    const report = await repairRecords(app.store, app.records!, stale);
    expect(report.dropped).toEqual([]);
    const after = new Map((await app.records!.all()).map((r) => [r.id, r.chunkIds]));
    // Nothing dropped, and b's record still names the chunks Chroma holds now, not the scanned ones.
    expect(after).toEqual(before);
    expect(after.get('b')!.length).toBeGreaterThan(stale.doc('b')!.chunkIds.length);

    // A document that really is gone from Chroma loses its record.
    const a = (await app.records!.all()).find((r) => r.id === 'a')!;
    await app.store.delete(a.access, a.chunkIds);
    const fresh = createCatalog();
    for (const g of await app.store.groups()) await app.store.scan(g, (r) => fresh.load(r, g));
    const next = await repairRecords(app.store, app.records!, fresh);
    expect(next.dropped).toEqual([{ source: 'lab', path: 'a.md' }]);
    expect((await app.records!.all()).map((r) => r.id).sort()).toEqual(['b', 'c']);
  });
});
