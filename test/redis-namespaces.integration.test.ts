// The test helpers' Redis cleanup: what a test app writes is gone after removeTrackedKeys, and
// nothing outside the tracked prefixes is touched.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLabbot } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { closeRedis, connectRedis, type Redis } from '../src/store/redis.ts';
import { testEnv } from './helpers/app.ts';
import { deleteKeysUnder, removeTrackedKeys, TEST_REDIS_URL, trackedPrefixes, trackRedisPrefix } from './helpers/redis-namespaces.ts';

let redis: Redis;
const count = async (prefix: string) => (await redis.keys(`${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`)).length;

beforeAll(() => {
  redis = connectRedis(TEST_REDIS_URL, { name: 'labbot-cleanup-test' });
});
afterAll(() => closeRedis(redis));

describe('test Redis namespaces', () => {
  it("removes every key a test app wrote (records, embedding cache) and keeps others' keys", async () => {
    const app = await openLabbot(loadConfig(testEnv()), createLogger('silent'), { redis });
    const prefix = `${app.ns}:`;
    expect(trackedPrefixes().get(TEST_REDIS_URL)?.has(prefix)).toBe(true);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-cleanup-'));
    writeFileSync(path.join(dir, 'a.md'), '# Blocking\n\nBlock the membrane for one hour in 5% milk.\n');
    await app.ingest({ sourceId: 'lab', root: dir });
    await app.close();
    // A sibling namespace whose name starts with this one's must survive.
    const sibling = `${app.ns}0:kept`;
    await redis.set(sibling, '1');
    try {
      expect(await count(prefix)).toBeGreaterThan(0);
      await removeTrackedKeys();
      expect(await count(prefix)).toBe(0);
      expect(await redis.get(sibling)).toBe('1');
    } finally {
      await redis.del(sibling);
    }
  });

  it('deletes by literal prefix, glob characters included, in several SCAN pages', async () => {
    const prefix = trackRedisPrefix(`labbot-test-glob-${process.pid}-[a]*?:`);
    const lookalike = `labbot-test-glob-${process.pid}-a-x:k`;
    const keys = Array.from({ length: 2500 }, (_, i) => `${prefix}k${i}`);
    await redis.mset(...keys.flatMap((k) => [k, '1']), lookalike, '1');
    try {
      expect(await deleteKeysUnder(redis, prefix)).toBe(2500);
      expect(await redis.exists(...keys.slice(0, 10))).toBe(0);
      expect(await redis.get(lookalike)).toBe('1');
    } finally {
      await redis.del(lookalike);
    }
  });

  it('refuses a prefix without its separator, which would also match longer names', () => {
    expect(() => trackRedisPrefix('labbot:t-1-abc-1')).toThrow(/must end with ":"/);
  });
});
