// The per-client ask limit: shared through Redis by every bot process, per process without it.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRateLimiter } from '../src/admin/rate-limit.ts';
import { closeRedis, connectRedis, type Redis } from '../src/store/redis.ts';
import { TEST_REDIS_URL } from './helpers/redis-namespaces.ts';

describe('ask rate limiter', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = connectRedis(TEST_REDIS_URL);
  });
  afterAll(async () => {
    await closeRedis(redis);
  });

  it('shares one count per client between processes through Redis, and sets an expiry', async () => {
    const prefix = `labbot:test-${randomUUID()}:ratelimit:ask`;
    let now = 1_000_000;
    const a = createRateLimiter({ max: 2, windowMs: 60_000 }, { redis, prefix, now: () => now });
    const b = createRateLimiter({ max: 2, windowMs: 60_000 }, { redis, prefix, now: () => now });
    expect((await a('10.0.0.1')).allowed).toBe(true);
    expect((await b('10.0.0.1')).allowed).toBe(true);
    const third = await a('10.0.0.1');
    expect(third.allowed).toBe(false);
    expect(third.retryAfterS).toBe(Math.ceil((60_000 - (now % 60_000)) / 1000));
    expect((await b('10.0.0.2')).allowed).toBe(true);
    const keys = await redis.keys(`${prefix}:*`);
    expect(keys.length).toBe(2);
    for (const k of keys) expect(await redis.pttl(k)).toBeGreaterThan(0);
    // The next window starts afresh.
    now += 60_000;
    expect((await a('10.0.0.1')).allowed).toBe(true);
    await redis.del(...(await redis.keys(`${prefix}:*`)));
  });

  it('keeps limiting in memory without Redis', async () => {
    let now = 0;
    const limit = createRateLimiter({ max: 1, windowMs: 1000 }, { prefix: 'x', now: () => now });
    expect((await limit('c')).allowed).toBe(true);
    expect((await limit('c')).allowed).toBe(false);
    expect((await limit('d')).allowed).toBe(true);
    now = 1000;
    expect((await limit('c')).allowed).toBe(true);
  });
});
