// Slack redelivers an event it thinks we missed (X-Slack-Retry-Num) and Bolt runs the handler
// again; two replicas may also both receive it. One Redis SET NX per event_id makes exactly one
// of them answer.
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

export interface Deduper {
  /** True the first time an event id is seen (within the TTL), false for every repeat. */
  claim(eventId: string): Promise<boolean>;
}

export function createDeduper(redis: Redis, prefix: string, opts: { ttlSeconds?: number; log?: Logger } = {}): Deduper {
  const ttl = opts.ttlSeconds ?? 3600;
  return {
    async claim(eventId) {
      try {
        const ok = await redis.set(`${prefix}slack:event:${eventId}`, String(Date.now()), 'EX', ttl, 'NX');
        return ok === 'OK';
      } catch (err) {
        // Redis down: a possible duplicate answer beats a certain silence.
        opts.log?.warn({ err: (err as Error).message, eventId }, 'event dedupe unavailable; answering anyway');
        return true;
      }
    },
  };
}
