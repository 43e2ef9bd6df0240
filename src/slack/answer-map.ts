// Which messages answer which question, so an edited question is answered again in place and a
// deleted question takes its answer with it. Per question (channel + ts) a Redis hash: its state
// (`pending` while being answered, then `answered`), the answer's message ts list, and what
// happened to the question while it was being answered (edited to new text, or deleted), which the
// answering process reads when it is done. Redis, so any replica may receive the edit.
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

export interface AnsweredQuestion {
  /** The messages of the answer, in order (the first is the one an edit replaces in place). */
  answerTs: string[];
  /** Thread the answer is in. */
  threadTs: string | undefined;
  user: string | undefined;
}

/** What became of a question while it was answered. */
export interface Afterwards {
  editedText?: string;
  deleted: boolean;
}

export interface AnswerMap {
  /** The question is being answered (edits and deletions meanwhile are kept for later). */
  begin(channel: string, questionTs: string): Promise<void>;
  /** The answer is posted: remembers its messages and returns what happened to the question meanwhile. */
  finish(channel: string, questionTs: string, answer: AnsweredQuestion): Promise<Afterwards>;
  /** The answered question, if it is known (also while an edit of it is being answered again). */
  get(channel: string, questionTs: string): Promise<AnsweredQuestion | undefined>;
  /** True when the question is still being answered. */
  pending(channel: string, questionTs: string): Promise<boolean>;
  /** Keeps an edit (or a deletion) that arrived while the question was being answered. */
  note(channel: string, questionTs: string, change: { editedText: string } | { deleted: true }): Promise<void>;
  forget(channel: string, questionTs: string): Promise<void>;
}

/** Questions can be edited or deleted long after: answers are remembered for a month. */
const ANSWERED_TTL_SECONDS = 30 * 24 * 3600;
/** A question still pending after an hour was lost with its process. */
const PENDING_TTL_SECONDS = 3600;

export function createAnswerMap(redis: Redis, prefix: string, log?: Logger): AnswerMap {
  const key = (channel: string, ts: string) => `${prefix}slack:answer:${channel}:${ts}`;
  const warn = (err: unknown, what: string, channel: string, ts: string) =>
    log?.warn({ err: (err as Error).message, channel, questionTs: ts }, what);
  return {
    async begin(channel, ts) {
      try {
        // A re-answer (after an edit) keeps the earlier answer's messages and their expiry.
        await redis.multi().hset(key(channel, ts), 'state', 'pending').expire(key(channel, ts), PENDING_TTL_SECONDS, 'NX').exec();
      } catch (err) {
        warn(err, 'could not mark the question as being answered', channel, ts);
      }
    },
    async finish(channel, ts, answer) {
      try {
        const k = key(channel, ts);
        const res = await redis
          .multi()
          .hmget(k, 'edited', 'deleted')
          .hset(k, {
            state: 'answered',
            answers: JSON.stringify(answer.answerTs),
            threadTs: answer.threadTs ?? '',
            user: answer.user ?? '',
          })
          .hdel(k, 'edited', 'deleted')
          .expire(k, ANSWERED_TTL_SECONDS)
          .exec();
        const [edited, deleted] = (res?.[0]?.[1] as (string | null)[] | undefined) ?? [];
        return { ...(edited ? { editedText: edited } : {}), deleted: deleted === '1' };
      } catch (err) {
        warn(err, 'could not remember the answer; an edit or deletion of the question will not reach it', channel, ts);
        return { deleted: false };
      }
    },
    async get(channel, ts) {
      try {
        const h = await redis.hgetall(key(channel, ts));
        if (!h.answers) return undefined;
        const answerTs = JSON.parse(h.answers) as unknown;
        if (!Array.isArray(answerTs) || !answerTs.every((t) => typeof t === 'string')) return undefined;
        return { answerTs: answerTs as string[], threadTs: h.threadTs || undefined, user: h.user || undefined };
      } catch (err) {
        warn(err, 'answer lookup failed', channel, ts);
        return undefined;
      }
    },
    async pending(channel, ts) {
      try {
        return (await redis.hget(key(channel, ts), 'state')) === 'pending';
      } catch {
        return false;
      }
    },
    async note(channel, ts, change) {
      try {
        await redis.hset(key(channel, ts), 'editedText' in change ? { edited: change.editedText } : { deleted: '1' });
      } catch (err) {
        warn(err, 'could not keep the change to a question being answered', channel, ts);
      }
    },
    async forget(channel, ts) {
      try {
        await redis.del(key(channel, ts));
      } catch (err) {
        warn(err, 'could not forget the answer', channel, ts);
      }
    },
  };
}
