// Per-client request limit for the anonymous ask API, so one client cannot flood the activity and
// knowledge-gaps lists (each keeps a bounded window) or hog the answering CPU.
//
// Hand-written: no rate-limit library is among the dependencies, and the rule is a few lines: a
// fixed window counter per client in Redis (INCR + PEXPIRE in one MULTI), shared by every bot
// process behind a load balancer. Without Redis, or when Redis fails, a per-process counter
// keeps the limit rather than dropping it.
import type { Redis } from '../store/redis.ts';

export interface RateLimit {
  /** Requests allowed per client in one window. */
  max: number;
  windowMs: number;
}

export interface RateDecision {
  allowed: boolean;
  /** Seconds until the client's window ends (for Retry-After). */
  retryAfterS: number;
}

export type RateLimiter = (client: string) => Promise<RateDecision>;

// Memory-fallback windows are pruned once this many clients are tracked.
const MAX_TRACKED = 10_000;

export function createRateLimiter(limit: RateLimit, opts: { redis?: Redis; prefix: string; now?: () => number }): RateLimiter {
  const now = opts.now ?? Date.now;
  const memory = new Map<string, { window: number; count: number }>();

  const decide = (count: number, window: number): RateDecision => ({
    allowed: count <= limit.max,
    retryAfterS: Math.max(1, Math.ceil(((window + 1) * limit.windowMs - now()) / 1000)),
  });

  const inMemory = (client: string, window: number): number => {
    if (memory.size >= MAX_TRACKED) for (const [k, v] of memory) if (v.window !== window) memory.delete(k);
    const entry = memory.get(client);
    const count = entry && entry.window === window ? entry.count + 1 : 1;
    memory.set(client, { window, count });
    return count;
  };

  return async (client) => {
    const window = Math.floor(now() / limit.windowMs);
    if (opts.redis) {
      try {
        const key = `${opts.prefix}:${client}:${window}`;
        const replies = await opts.redis.multi().incr(key).pexpire(key, limit.windowMs).exec();
        const count = replies?.[0]?.[1];
        if (typeof count === 'number') return decide(count, window);
      } catch {
        // Redis unavailable: fall through to this process's own counter.
      }
    }
    return decide(inMemory(client, window), window);
  };
}
