// Slack redelivers an event it thinks we missed (X-Slack-Retry-Num) and Bolt runs the handler
// again; two replicas may also both receive it. One Redis SET NX per event_id makes exactly one
// of them answer. A channel message that mentions labbot also arrives twice under two event ids
// (app_mention and message.channels, in no fixed order), so answers also claim the message itself
// (channel + ts).
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

export interface Deduper {
  /** True the first time an event id is seen (within the TTL), false for every repeat. */
  claim(eventId: string): Promise<boolean>;
  /** True the first time a message (channel + ts) is claimed for an answer, false afterwards. */
  claimMessage(channel: string, ts: string): Promise<boolean>;
}

export function createDeduper(redis: Redis, prefix: string, opts: { ttlSeconds?: number; log?: Logger } = {}): Deduper {
  const ttl = opts.ttlSeconds ?? 3600;
  const setOnce = async (key: string, what: Record<string, string>) => {
    try {
      const ok = await redis.set(`${prefix}${key}`, String(Date.now()), 'EX', ttl, 'NX');
      return ok === 'OK';
    } catch (err) {
      // Redis down: a possible duplicate answer beats a certain silence.
      opts.log?.warn({ err: (err as Error).message, ...what }, 'event dedupe unavailable; answering anyway');
      return true;
    }
  };
  return {
    claim: (eventId) => setOnce(`slack:event:${eventId}`, { eventId }),
    claimMessage: (channel, ts) => setOnce(`slack:msg:${channel}:${ts}`, { channel, ts }),
  };
}
