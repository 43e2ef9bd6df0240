// Follow-up windows of channel threads (see reply-intent.ts): after labbot answers someone in a
// thread, that person's untagged questions there are answered for a short while; the window
// closes when it runs out or when someone else replies. Kept in Redis so replicas and restarts
// agree. (Slack Connect is decided by connect.ts, from Slack itself.)
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { FollowUpWindow } from './reply-intent.ts';

export interface ThreadTracker {
  /** labbot answered `user` in this thread just now: their untagged questions are answered for `windowMs`. */
  openFollowUp(channel: string, threadTs: string, user: string, windowMs: number): Promise<void>;
  /** The open window of a thread, if any. */
  followUp(channel: string, threadTs: string): Promise<FollowUpWindow | undefined>;
  /** Someone else spoke in the thread: the conversation is the people's again. */
  closeFollowUp(channel: string, threadTs: string): Promise<void>;
}

export function createThreadTracker(redis: Redis, prefix: string, opts: { log?: Logger } = {}): ThreadTracker {
  const key = (channel: string, threadTs: string) => `${prefix}slack:followup:${channel}:${threadTs}`;
  return {
    async openFollowUp(channel, threadTs, user, windowMs) {
      if (windowMs <= 0) return;
      try {
        await redis.set(key(channel, threadTs), JSON.stringify({ user, answeredAt: Date.now() } satisfies FollowUpWindow), 'PX', windowMs);
      } catch (err) {
        opts.log?.warn(
          { err: (err as Error).message, channel, threadTs },
          'could not open the follow-up window; follow-ups there need a mention',
        );
      }
    },
    async followUp(channel, threadTs) {
      try {
        const raw = await redis.get(key(channel, threadTs));
        if (!raw) return undefined;
        const w = JSON.parse(raw) as Partial<FollowUpWindow>;
        return typeof w.user === 'string' && typeof w.answeredAt === 'number' ? { user: w.user, answeredAt: w.answeredAt } : undefined;
      } catch (err) {
        opts.log?.warn({ err: (err as Error).message, channel, threadTs }, 'follow-up lookup failed; treating the reply as not for labbot');
        return undefined;
      }
    },
    async closeFollowUp(channel, threadTs) {
      try {
        await redis.del(key(channel, threadTs));
      } catch (err) {
        opts.log?.warn({ err: (err as Error).message, channel, threadTs }, 'could not close the follow-up window');
      }
    },
  };
}
