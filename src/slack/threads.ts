// Threads labbot has answered in: a plain reply there (no @mention) is a follow-up and gets an
// answer; every other channel message is none of labbot's business. Kept in Redis so replicas
// and restarts agree.
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

export interface ThreadTracker {
  remember(channel: string, threadTs: string): Promise<void>;
  answered(channel: string, threadTs: string): Promise<boolean>;
  /** Assistant threads (assistant_thread_started): a status shows labbot at work, no placeholder message. */
  rememberAssistant(channel: string, threadTs: string): Promise<void>;
  isAssistant(channel: string, threadTs: string): Promise<boolean>;
}

/** A conversation goes quiet after a while; a reply weeks later deserves a fresh @mention. */
const DEFAULT_TTL_SECONDS = 14 * 24 * 3600;

export function createThreadTracker(redis: Redis, prefix: string, opts: { ttlSeconds?: number; log?: Logger } = {}): ThreadTracker {
  const ttl = opts.ttlSeconds ?? DEFAULT_TTL_SECONDS;
  const key = (channel: string, threadTs: string) => `${prefix}slack:thread:${channel}:${threadTs}`;
  const assistantKey = (channel: string, threadTs: string) => `${prefix}slack:assistant:${channel}:${threadTs}`;
  return {
    async rememberAssistant(channel, threadTs) {
      try {
        await redis.set(assistantKey(channel, threadTs), '1', 'EX', ttl);
      } catch (err) {
        opts.log?.warn({ err: (err as Error).message, channel, threadTs }, 'could not remember the assistant thread');
      }
    },
    async isAssistant(channel, threadTs) {
      try {
        return (await redis.exists(assistantKey(channel, threadTs))) === 1;
      } catch {
        return false;
      }
    },
    async remember(channel, threadTs) {
      try {
        await redis.set(key(channel, threadTs), '1', 'EX', ttl);
      } catch (err) {
        opts.log?.warn({ err: (err as Error).message, channel, threadTs }, 'could not remember the thread; follow-ups there need a mention');
      }
    },
    async answered(channel, threadTs) {
      try {
        return (await redis.exists(key(channel, threadTs))) === 1;
      } catch (err) {
        opts.log?.warn({ err: (err as Error).message, channel, threadTs }, 'thread lookup failed; treating the reply as not for labbot');
        return false;
      }
    },
  };
}
