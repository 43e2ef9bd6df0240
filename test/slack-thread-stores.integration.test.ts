// The Slack thread stores against the real Redis: follow-up windows (who labbot answered in a
// thread, for how long, closed when someone else speaks) and the question -> answer map (with the
// edits and deletions that arrive while a question is being answered), shared by two replicas.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnswerMap } from '../src/slack/answer-map.ts';
import { createThreadTracker } from '../src/slack/threads.ts';
import { closeRedis, connectRedis, type Redis } from '../src/store/redis.ts';
import { uniquePrefix } from './helpers/slack-bot.ts';
import { TEST_REDIS_URL } from './helpers/redis-namespaces.ts';

let redis: Redis;
const prefixes: string[] = [];
const prefix = () => {
  const p = uniquePrefix();
  prefixes.push(p);
  return p;
};
beforeAll(() => {
  redis = connectRedis(TEST_REDIS_URL, { name: 'labbot-thread-store-test' });
});
afterAll(async () => {
  for (const p of prefixes) {
    const keys = await redis.keys(`${p}*`);
    if (keys.length) await redis.del(...keys);
  }
  await closeRedis(redis);
});

describe('follow-up windows', () => {
  it('one replica opens the window, another reads it; it expires with the window and closes on demand', async () => {
    const p = prefix();
    const a = createThreadTracker(redis, p);
    const b = createThreadTracker(redis, p);
    const t0 = Date.now();
    await a.openFollowUp('C1', '1.1', 'UASKER', 10 * 60_000);
    const w = await b.followUp('C1', '1.1');
    expect(w?.user).toBe('UASKER');
    expect(w!.answeredAt).toBeGreaterThanOrEqual(t0);
    const ttl = await redis.pttl(`${p}slack:followup:C1:1.1`);
    expect(ttl).toBeGreaterThan(9 * 60_000);
    expect(ttl).toBeLessThanOrEqual(10 * 60_000);
    await b.closeFollowUp('C1', '1.1');
    expect(await a.followUp('C1', '1.1')).toBeUndefined();
    // A zero window opens nothing: every follow-up needs a mention.
    await a.openFollowUp('C1', '2.2', 'UASKER', 0);
    expect(await a.followUp('C1', '2.2')).toBeUndefined();
  });

  it('a malformed window in Redis reads as none', async () => {
    const p = prefix();
    await redis.set(`${p}slack:followup:C1:3.3`, '{"user":42}');
    expect(await createThreadTracker(redis, p).followUp('C1', '3.3')).toBeUndefined();
  });
});

describe('question -> answer map', () => {
  it('remembers an answer’s messages for a month, across replicas', async () => {
    const p = prefix();
    const a = createAnswerMap(redis, p);
    const b = createAnswerMap(redis, p);
    await a.begin('C1', '1.1');
    expect(await b.pending('C1', '1.1')).toBe(true);
    expect(await a.finish('C1', '1.1', { answerTs: ['2.1', '2.2'], threadTs: '1.1', user: 'U1' })).toEqual({ deleted: false });
    expect(await b.pending('C1', '1.1')).toBe(false);
    expect(await b.get('C1', '1.1')).toEqual({ answerTs: ['2.1', '2.2'], threadTs: '1.1', user: 'U1' });
    expect(await redis.ttl(`${p}slack:answer:C1:1.1`)).toBeGreaterThan(29 * 24 * 3600);
    await b.forget('C1', '1.1');
    expect(await a.get('C1', '1.1')).toBeUndefined();
  });

  it('an edit or a deletion noted while pending comes back with finish, once', async () => {
    const p = prefix();
    const m = createAnswerMap(redis, p);
    await m.begin('C1', '1.1');
    await m.note('C1', '1.1', { editedText: 'the new question' });
    expect(await m.finish('C1', '1.1', { answerTs: ['2.1'], threadTs: '1.1', user: 'U1' })).toEqual({
      editedText: 'the new question',
      deleted: false,
    });
    // The re-answer keeps the earlier answer visible to lookups while it runs.
    await m.begin('C1', '1.1');
    expect(await m.get('C1', '1.1')).toMatchObject({ answerTs: ['2.1'] });
    await m.note('C1', '1.1', { deleted: true });
    expect(await m.finish('C1', '1.1', { answerTs: ['2.1'], threadTs: '1.1', user: 'U1' })).toEqual({ deleted: true });
    expect(await m.finish('C1', '1.1', { answerTs: ['2.1'], threadTs: '1.1', user: 'U1' })).toEqual({ deleted: false });
  });

  it('a pending question lost with its process expires within the hour', async () => {
    const p = prefix();
    const m = createAnswerMap(redis, p);
    await m.begin('C9', '9.9');
    const ttl = await redis.ttl(`${p}slack:answer:C9:9.9`);
    expect(ttl).toBeGreaterThan(3500);
    expect(ttl).toBeLessThanOrEqual(3600);
  });
});
