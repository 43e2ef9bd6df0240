// The records' revision on a real Redis: every record written, removed or dropped moves it, and
// nothing else does; a snapshot's "equal to the records" note rests on this.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRecordStore, type RecordStore } from '../src/store/records.ts';
import { closeRedis, connectRedis, type Redis } from '../src/store/redis.ts';
import type { Chunk, LabDocument } from '../src/types.ts';
import { uniqueCollection } from './helpers/app.ts';
import { TEST_REDIS_URL, trackRedisPrefix } from './helpers/redis-namespaces.ts';

const doc = (id: string, path: string): LabDocument => ({
  id,
  source: 'lab',
  path,
  kind: 'wiki',
  title: id,
  authors: [],
  access: 'public',
  contentHash: `c-${id}`,
});
const chunks = (id: string, n: number): Chunk[] =>
  Array.from({ length: n }, (_, i) => ({ id: `${id}#${i}`, docId: id, text: 't', section: 's', hash: `h${i}` }));

describe('records revision', () => {
  let redis: Redis;
  let records: RecordStore;
  beforeAll(() => {
    redis = connectRedis(TEST_REDIS_URL);
    const ns = `labbot:${uniqueCollection('rev')}`;
    trackRedisPrefix(`${ns}:`, TEST_REDIS_URL);
    records = createRecordStore(redis, ns, 'base1', 'v1');
  });
  afterAll(async () => closeRedis(redis));

  it('is claimed once for records written before revisions existed (an older Redis)', async () => {
    const ns = `labbot:${uniqueCollection('rev-old')}`;
    trackRedisPrefix(`${ns}:`, TEST_REDIS_URL);
    const older = createRecordStore(redis, ns, 'base1', 'v1');
    await older.put(doc('a', 'a.md'), chunks('a', 1));
    await redis.del(`${ns}:idx:base1:rev`);
    const claimed = await older.revision();
    expect(claimed).toMatch(/\S/);
    expect(await older.revision()).toBe(claimed);
    expect((await older.allAtRevision()).revision).toBe(claimed);
  });

  it('moves with every record written or removed, and stays put otherwise', async () => {
    const r0 = await records.revision();
    expect(r0).toMatch(/\S/);
    expect(await records.revision()).toBe(r0);

    await records.put(doc('a', 'a.md'), chunks('a', 2));
    const r1 = await records.revision();
    expect(r1).not.toBe(r0);

    // Reads and source state are not record changes.
    await records.all();
    await records.setSourceState('lab', { lastSyncAt: new Date().toISOString() });
    await records.setProblem('lab', 'x.pdf', { status: 'failed', reason: 'corrupt' });
    expect(await records.revision()).toBe(r1);

    const read = await records.allAtRevision();
    expect(read.revision).toBe(r1);
    expect(read.records.map((r) => r.id)).toEqual(['a']);

    // Written again with the same content: still a write, so the revision moves.
    await records.put(doc('a', 'a.md'), chunks('a', 2));
    const r2 = await records.revision();
    expect(r2).not.toBe(r1);

    await records.remove({ ...doc('a', 'a.md'), chunkIds: ['a#0', 'a#1'], chunkHashes: ['h0', 'h1'] });
    const r3 = await records.revision();
    expect(r3).not.toBe(r2);
    expect((await records.allAtRevision()).records).toEqual([]);

    // Dropped records (a Redis wiped, or an index switched away from) get a new revision too.
    await records.put(doc('b', 'b.md'), chunks('b', 1));
    const r4 = await records.revision();
    await records.drop();
    const r5 = await records.revision();
    expect(r5).not.toBe(r4);
    expect([r0, r1, r2, r3, r4].includes(r5)).toBe(false);
  });

  it('holds one snapshot key per index: claimed once, the same for every reader, replaced when the records are dropped', async () => {
    const ns = `labbot:${uniqueCollection('key')}`;
    trackRedisPrefix(`${ns}:`, TEST_REDIS_URL);
    const a = createRecordStore(redis, ns, 'base1', 'v1');
    const [k1, k2] = await Promise.all([a.snapshotKey(), createRecordStore(redis, ns, 'base1', 'v1').snapshotKey()]);
    expect(k1.length).toBe(32);
    expect(k2.equals(k1)).toBe(true);
    expect((await createRecordStore(redis, ns, 'base2', 'v1').snapshotKey()).equals(k1)).toBe(false);
    await a.drop();
    expect((await a.snapshotKey()).equals(k1)).toBe(false);
  });
});
