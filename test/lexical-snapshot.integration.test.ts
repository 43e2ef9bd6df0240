// The lexical snapshot on a real Chroma and Redis: a restart loads it instead of scanning Chroma,
// patches what changed while the bot was down, and is never trusted when it disagrees with the
// records or with Chroma.
import { existsSync, mkdtempSync, readdirSync, rmSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLabbot, type Labbot } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { closeRedis, connectRedis, type Redis } from '../src/store/redis.ts';
import { testEnv } from './helpers/app.ts';
import { TEST_REDIS_URL } from './helpers/redis-namespaces.ts';

const doc = (id: string, title: string, body: string) => `---\nid: ${id}\ntitle: ${title}\n---\n\n# ${title}\n\n${body}\n`;

describe('lexical snapshot', () => {
  let redis: Redis;
  let env: Record<string, string>;
  let root: string;
  const opened: Labbot[] = [];
  const open = async (o: { loadCatalog?: boolean; withRedis?: boolean } = {}) => {
    const app = await openLabbot(loadConfig(env), createLogger('silent'), {
      loadCatalog: o.loadCatalog,
      redis: o.withRedis === false ? undefined : redis,
    });
    opened.push(app);
    return app;
  };
  // Lexical hits only: hashed dense vectors find something for any query.
  const top = async (app: Labbot, q: string) => [
    ...new Set(app.catalog.lexicalSearch(['public'], q, 3).map((h) => app.catalog.chunk(h.id)!.docId)),
  ];
  const snapshotDir = () => path.join(env.LABBOT_DATA_DIR, 'lexical');
  /** A queue worker (no lexical index of its own) changes the folder and indexes it while the bot is down. */
  const editWhileDown = async (edit: () => void) => {
    const worker = await open({ loadCatalog: false });
    edit();
    await worker.ingest({ sourceId: 'lab', root });
    await worker.close();
  };

  beforeAll(() => {
    redis = connectRedis(TEST_REDIS_URL);
    env = testEnv();
    root = mkdtempSync(path.join(os.tmpdir(), 'labbot-snap-'));
    writeFileSync(
      path.join(root, 'blot.md'),
      doc('blot', 'Western blot', 'Block the PVDF membrane in 5% milk for one hour, then add ab32389 at 1:1000.'),
    );
    writeFileSync(
      path.join(root, 'pcr.md'),
      doc('pcr', 'qPCR setup', 'Use SYBR Green master mix and 40 cycles with an annealing step at 60 degrees.'),
    );
    writeFileSync(
      path.join(root, 'cells.md'),
      doc('cells', 'Cell culture', 'HEK293T cells are split 1:10 twice a week in DMEM with 10% FBS.'),
    );
  });
  afterAll(async () => {
    for (const a of opened) await a.close().catch(() => undefined);
    await redis.del(...(await redis.keys(`labbot:${env.LABBOT_COLLECTION}:*`)), 'labbot:none');
    await closeRedis(redis);
    rmSync(root, { recursive: true, force: true });
  });

  it('a restart loads the saved snapshot and answers exactly as before', async () => {
    const first = await open();
    expect(first.lexical?.from).toBe('chroma');
    await first.ingest({ sourceId: 'lab', root });
    const before = await top(first, 'PVDF membrane milk');
    expect(before[0]).toBe('blot');
    await first.close();
    expect(readdirSync(snapshotDir()).filter((f) => f.endsWith('.lexical'))).toHaveLength(1);

    const second = await open();
    expect(second.lexical?.from).toBe('snapshot');
    // The save at shutdown compared the catalog with the records and noted their revision: no
    // record changed since, so this start compares none.
    expect(second.lexical?.recordsCheck).toBe('revision');
    expect(second.catalog.stats().chunks).toBe(first.catalog.stats().chunks);
    expect(await top(second, 'PVDF membrane milk')).toEqual(before);
    expect(await top(second, 'SYBR Green cycles')).toEqual(['pcr']);
    await second.close();
  });

  it('changes made while the bot was down are patched in from Chroma', async () => {
    // One page edited, another deleted.
    await editWhileDown(() => {
      writeFileSync(
        path.join(root, 'pcr.md'),
        doc('pcr', 'qPCR setup', 'Use TaqMan probes and 45 cycles with an annealing step at 58 degrees.'),
      );
      rmSync(path.join(root, 'cells.md'));
    });

    const bot = await open();
    expect(bot.lexical?.from).toBe('snapshot+patch');
    expect(bot.lexical?.recordsCheck).toBe('full');
    expect(await top(bot, 'TaqMan probes')).toEqual(['pcr']);
    expect(await top(bot, 'SYBR Green')).toEqual([]);
    expect(await top(bot, 'HEK293T DMEM')).toEqual([]);
    await bot.close();
    // The patched catalog was saved: the next start needs no patch, nor a record-by-record check.
    const again = await open();
    expect(again.lexical?.from).toBe('snapshot');
    expect(again.lexical?.recordsCheck).toBe('revision');
    await again.close();

    // An edit that keeps every chunk count (Chroma's counts cannot tell): the records' revision moved.
    await editWhileDown(() =>
      writeFileSync(
        path.join(root, 'pcr.md'),
        doc('pcr', 'qPCR setup', 'Use EvaGreen dye and 42 cycles with an annealing step at 62 degrees.'),
      ),
    );
    const edited = await open();
    expect(edited.lexical?.from).toBe('snapshot+patch');
    expect(edited.lexical?.recordsCheck).toBe('full');
    expect(await top(edited, 'EvaGreen dye')).toEqual(['pcr']);
    expect(await top(edited, 'TaqMan probes')).toEqual([]);
    await edited.close();

    // A note beside the snapshot from another snapshot (or a damaged one) is not believed.
    const note = readdirSync(snapshotDir()).find((f) => f.endsWith('.lexical.checked'))!;
    expect(note).toBeDefined();
    writeFileSync(path.join(snapshotDir(), note), '{"createdAt":"2020-01-01T00:00:00.000Z","chunks":3,"recordsRevision":"x"}');
    const doubted = await open();
    expect(doubted.lexical?.from).toBe('snapshot');
    expect(doubted.lexical?.recordsCheck).toBe('full');
    await doubted.close();
    // That full check found the snapshot equal to the records and noted it again.
    const trusted = await open();
    expect(trusted.lexical?.recordsCheck).toBe('revision');
    await trusted.close();
    // A snapshot of an index switched away from is removed when the live one is saved.
    const stale = path.join(snapshotDir(), 'labbot-old-index.lexical');
    writeFileSync(stale, 'old');
    // Half-written snapshots: one a process left two hours ago, one another process is writing now.
    const deadWrite = path.join(snapshotDir(), 'x.lexical.999999.1.tmp');
    const liveWrite = path.join(snapshotDir(), 'x.lexical.999998.1.tmp');
    writeFileSync(deadWrite, 'half');
    writeFileSync(liveWrite, 'half');
    const twoHoursAgo = Date.now() / 1000 - 7200;
    utimesSync(deadWrite, twoHoursAgo, twoHoursAgo);
    const third = await open();
    await third.reset();
    await third.close();
    expect(readdirSync(snapshotDir()).filter((f) => f.endsWith('.lexical'))).toHaveLength(1);
    expect(existsSync(deadWrite)).toBe(false);
    expect(existsSync(liveWrite)).toBe(true);
    rmSync(liveWrite);
    expect(readdirSync(snapshotDir()).filter((f) => f.endsWith('.checked'))).toHaveLength(1);
    const restored = await open({ loadCatalog: false });
    await restored.ingest({ sourceId: 'lab', root });
    await restored.close();
  });

  it('a corrupt snapshot is ignored and rewritten', async () => {
    const file = path.join(snapshotDir(), readdirSync(snapshotDir()).find((f) => f.endsWith('.lexical'))!);
    truncateSync(file, 100);
    const bot = await open();
    expect(bot.lexical?.from).toBe('chroma');
    expect(await top(bot, 'EvaGreen dye')).toEqual(['pcr']);
    await bot.close();
    const again = await open();
    expect(again.lexical?.from).toBe('snapshot');
    await again.close();
  });

  it('is not trusted when Chroma no longer holds what it describes', async () => {
    // Another process empties Chroma (a wiped Chroma volume); without Redis records to compare,
    // the chunk counts still tell the snapshot is stale.
    const other = await open({ loadCatalog: false, withRedis: false });
    await other.store.dropAll();
    await other.close();
    const bot = await open({ withRedis: false });
    expect(bot.lexical?.from).toBe('chroma');
    expect(bot.catalog.stats().chunks).toBe(0);
    await bot.close();
  });
});
