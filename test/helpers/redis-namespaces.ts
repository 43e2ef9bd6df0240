// Every Redis key prefix a test creates is recorded here and its keys are deleted when the test
// file ends (test/setup/redis-cleanup.ts), so a run leaves nothing behind in the shared Redis.
import { Redis } from 'ioredis';

// The Redis the suite uses: REDIS_URL when set (two suites on one machine, each on its own
// database), else the default of src/config.ts. Test apps get it unless a test sets another.
export const TEST_REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

const tracked = new Map<string, Set<string>>();

/** Records `prefix` (it must end with its separator, e.g. "labbot:t-1-abc-2:") for deletion. */
export function trackRedisPrefix(prefix: string, url = TEST_REDIS_URL): string {
  if (!prefix.endsWith(':'))
    throw new Error(`a tracked Redis prefix must end with ":" (got ${prefix}), or it would also match longer names`);
  let set = tracked.get(url);
  if (!set) tracked.set(url, (set = new Set()));
  set.add(prefix);
  return prefix;
}

/** Prefixes recorded so far, per Redis URL. */
export function trackedPrefixes(): Map<string, Set<string>> {
  return tracked;
}

const escapeGlob = (s: string) => s.replace(/[*?[\]\\]/g, '\\$&');

/** Deletes every key under `prefix`; returns how many were deleted. */
export async function deleteKeysUnder(redis: Redis, prefix: string): Promise<number> {
  let deleted = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${escapeGlob(prefix)}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) deleted += await redis.unlink(...keys);
  } while (cursor !== '0');
  return deleted;
}

/** Deletes the keys of every tracked prefix and forgets them. A Redis that is not answering
 *  (a test pointed an app at a closed port) holds none of our keys and is skipped. */
export async function removeTrackedKeys(): Promise<void> {
  for (const [url, prefixes] of tracked) {
    const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null, connectTimeout: 2000 });
    redis.on('error', () => {});
    try {
      await redis.connect();
    } catch {
      redis.disconnect();
      continue;
    }
    try {
      for (const p of prefixes) await deleteKeysUnder(redis, p);
      prefixes.clear();
    } finally {
      await redis.quit().catch(() => redis.disconnect());
    }
  }
}
