import { describe, expect, it } from 'vitest';
import { retryWhileLocked } from '../src/store/chroma-store.ts';

// The message Chroma's server sends when its SQLite catalog is held by another writer.
const locked = () =>
  Object.assign(new Error('Database error: error returned from database: (code: 5) database is locked'), { name: 'ChromaServerError' });

describe('a Chroma request refused because its database is locked', () => {
  it('is sent again after each delay until it goes through', async () => {
    let calls = 0;
    const out = await retryWhileLocked(async () => {
      calls++;
      if (calls < 3) throw locked();
      return 'done';
    }, [1, 1, 1]);
    expect(out).toBe('done');
    expect(calls).toBe(3);
  });

  it('fails with the lock error once the delays are spent, and never retries any other error', async () => {
    let calls = 0;
    await expect(
      retryWhileLocked(async () => {
        calls++;
        throw locked();
      }, [1, 1]),
    ).rejects.toThrow(/database is locked/);
    expect(calls).toBe(3);
    calls = 0;
    await expect(
      retryWhileLocked(async () => {
        calls++;
        throw new Error('Collection expecting embedding with dimension of 384, got 256');
      }, [1, 1]),
    ).rejects.toThrow(/dimension/);
    expect(calls).toBe(1);
  });
});
