// ioredis connections. BullMQ workers need maxRetriesPerRequest: null (blocking commands); other
// callers get a bounded retry so a Redis outage fails a request instead of hanging it.
import { Redis } from 'ioredis';

export type { Redis };

export function connectRedis(url: string, opts: { blocking?: boolean; name?: string } = {}): Redis {
  return new Redis(url, {
    connectionName: opts.name ?? 'labbot',
    maxRetriesPerRequest: opts.blocking ? null : 2,
    enableOfflineQueue: true,
    // Reconnect forever with a capped delay: Redis restarts must heal by themselves.
    retryStrategy: (times) => Math.min(times * 200, 2000),
    lazyConnect: false,
  });
}

/** Closes a connection we created (BullMQ never closes connections it was given). */
export async function closeRedis(redis: Redis): Promise<void> {
  try {
    await redis.quit();
  } catch {
    redis.disconnect();
  }
}
