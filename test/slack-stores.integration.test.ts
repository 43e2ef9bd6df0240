// Event dedupe and the activity store against the real Redis.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeduper } from '../src/slack/dedupe.ts';
import { createActivityStore, type QuestionEntry } from '../src/store/activity.ts';
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
  redis = connectRedis(TEST_REDIS_URL, { name: 'labbot-store-test' });
});
afterAll(async () => {
  for (const p of prefixes) {
    const keys = await redis.keys(`${p}*`);
    if (keys.length) await redis.del(...keys);
  }
  await closeRedis(redis);
});

const entry = (i: number, o: Partial<QuestionEntry> = {}): QuestionEntry => ({
  source: 'slack',
  channel: 'CGEN',
  user: 'U1',
  question: `question ${i}`,
  answer: `answer ${i} [S1]`,
  refused: false,
  citations: [{ label: '[Okafor et al., 2023, Methods]', doc_id: 'okafor2023', title: 'USP7' }],
  topScore: 0.5,
  latencyMs: 123.4,
  model: 'extractive',
  ...o,
});

describe('event dedupe', () => {
  it('claims an event id once, also across two dedupers (two replicas)', async () => {
    const p = prefix();
    const a = createDeduper(redis, p);
    const b = createDeduper(redis, p);
    const results = await Promise.all([a.claim('Ev1'), b.claim('Ev1'), a.claim('Ev1')]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await a.claim('Ev2')).toBe(true);
    const ttl = await redis.ttl(`${p}slack:event:Ev1`);
    expect(ttl).toBeGreaterThan(3500);
    expect(ttl).toBeLessThanOrEqual(3600);
  });

  it('expires: after the TTL the id can be claimed again', async () => {
    const d = createDeduper(redis, prefix(), { ttlSeconds: 1 });
    expect(await d.claim('EvT')).toBe(true);
    expect(await d.claim('EvT')).toBe(false);
    await new Promise((r) => setTimeout(r, 1100));
    expect(await d.claim('EvT')).toBe(true);
  });
});

describe('activity store', () => {
  it('records questions with an explicit shape and lists them newest first', async () => {
    const store = createActivityStore(redis, prefix());
    const id1 = await store.recordQuestion(entry(1));
    const id2 = await store.recordQuestion(
      entry(2, { source: 'dm', channel: undefined, refused: true, citations: [], topScore: undefined }),
    );
    const recent = await store.recent(10);
    expect(recent.map((r) => r.id)).toEqual([id2, id1]);
    const r1 = recent[1];
    expect(r1).toEqual({
      id: id1,
      ts: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      source: 'slack',
      channel: 'CGEN',
      user: 'U1',
      question: 'question 1',
      answer: 'answer 1 [S1]',
      refused: false,
      citations: [{ label: '[Okafor et al., 2023, Methods]', doc_id: 'okafor2023', title: 'USP7' }],
      topScore: 0.5,
      latencyMs: 123,
      model: 'extractive',
      feedback: { up: 0, down: 0 },
      votes: {},
    });
    expect(recent[0].refused).toBe(true);
    expect(recent[0].channel).toBeUndefined();
    expect(recent[0].topScore).toBeUndefined();
  });

  it('keeps the last N questions and sets a 90-day TTL', async () => {
    const p = prefix();
    const store = createActivityStore(redis, p, { keep: 3 });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await store.recordQuestion(entry(i)));
    const recent = await store.recent(10);
    expect(recent.map((r) => r.question)).toEqual(['question 4', 'question 3', 'question 2']);
    const ttl = await redis.ttl(`${p}activity:q:${ids[4]}`);
    expect(ttl).toBeGreaterThan(89 * 86_400);
  });

  it('stores one vote per user, counts them, and refuses unknown ids', async () => {
    const store = createActivityStore(redis, prefix());
    const id = await store.recordQuestion(entry(1));
    expect(await store.recordFeedback(id, 'up', 'UA')).toBe(true);
    expect(await store.recordFeedback(id, 'up', 'UB')).toBe(true);
    expect(await store.recordFeedback(id, 'down', 'UB')).toBe(true); // changed their mind
    expect((await store.get(id))?.feedback).toEqual({ up: 1, down: 1 });
    expect(await store.recordFeedback('nope', 'up', 'UA')).toBe(false);
    expect(await store.get('nope')).toBeUndefined();
  });
});
