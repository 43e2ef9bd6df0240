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

/** BullMQ connection options from a redis:// URL (BullMQ opens and closes its own connections). */
export function bullConnection(url: string): {
  host: string;
  port: number;
  username?: string;
  password?: string;
  db?: number;
  tls?: object;
  maxRetriesPerRequest: null;
} {
  const u = new URL(url);
  return {
    host: u.hostname || '127.0.0.1',
    port: Number(u.port || 6379),
    username: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    db: u.pathname.length > 1 ? Number(u.pathname.slice(1)) : undefined,
    tls: u.protocol === 'rediss:' ? {} : undefined,
    maxRetriesPerRequest: null,
  };
}

/** A connection if Redis answers within the timeout, else undefined (callers degrade and say so). */
export async function tryConnectRedis(url: string, timeoutMs = 2000): Promise<Redis | undefined> {
  const redis = connectRedis(url);
  redis.on('error', () => undefined);
  const ok = await Promise.race([
    redis.ping().then(
      () => true,
      () => false,
    ),
    new Promise<boolean>((r) => setTimeout(() => r(false), timeoutMs).unref()),
  ]);
  if (ok) return redis;
  redis.disconnect();
  return undefined;
}

/**
 * Runs a MULTI (or pipeline) and throws when any of its commands failed or the transaction was
 * discarded. ioredis resolves `exec()` with per-command errors inside the result instead of
 * rejecting, and a transaction cut by a Redis restart can come back that way: an unchecked exec
 * then reports success for writes that never happened (a record lost while its job "completed").
 */
export async function execChecked(tx: { exec(): Promise<[Error | null, unknown][] | null> }, what: string): Promise<unknown[]> {
  const replies = await tx.exec();
  if (!replies) throw new Error(`${what}: the Redis transaction was discarded`);
  const failed = replies.find(([err]) => err);
  if (failed) throw new Error(`${what}: ${failed[0]!.message}`);
  return replies.map(([, v]) => v);
}
