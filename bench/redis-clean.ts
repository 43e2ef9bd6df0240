// Benches that run `serve` leave its queue, records, cache and activity under labbot:<collection>
// in Redis; this removes that namespace afterwards so a bench run leaves nothing behind.
import { Redis } from 'ioredis';

export async function clearNamespace(redisUrl: string, collection: string): Promise<void> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `labbot:${collection}:*`, 'COUNT', 1000);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } catch {
    // No Redis: nothing was written there.
  } finally {
    redis.disconnect();
  }
}
