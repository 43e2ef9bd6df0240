// The pure part of a backup: which Redis keys go in, vectors as float32, the manifest's paths.
import { describe, expect, it } from 'vitest';
import { decodeVectors, encodeVectors, keptInBackup, manifestSchema } from '../src/ops/backup-format.ts';

const ns = 'labbot:lab';

describe('keptInBackup', () => {
  it("keeps the namespace's state and the live index's records", () => {
    for (const k of [
      'labbot:lab:live',
      'labbot:lab:idx:lab:ids',
      'labbot:lab:idx:lab:src:wiki',
      'labbot:lab:emb:hash.hash-v1.384:ab',
      'labbot:lab:activity:questions',
      'labbot:lab:bull:labbot-index:meta',
      'labbot:lab:bull:labbot-index:42',
    ]) {
      expect(keptInBackup(k, ns, 'lab'), k).toBe(true);
    }
  });

  it('leaves out running processes, locks, other indexes and other namespaces', () => {
    for (const k of [
      'labbot:lab:processes',
      'labbot:lab:retired',
      'labbot:lab:backup:lease',
      'labbot:lab:idx:lab:repair',
      'labbot:lab:idx:lab-v2:ids',
      'labbot:lab:bull:labbot-index:42:lock',
      'labbot:lab2:live',
      'labbot:labx',
      'other:lab:live',
    ]) {
      expect(keptInBackup(k, ns, 'lab'), k).toBe(false);
    }
  });
});

describe('vectors', () => {
  it('round-trip float32 values exactly, and refuse a batch of the wrong size', () => {
    const rows = [Array.from(new Float32Array([0.1, -0.2, 3.5e-8])), Array.from(new Float32Array([1, 0, -1]))];
    const { dim, vectors } = encodeVectors(rows);
    expect(dim).toBe(3);
    expect(decodeVectors(dim, vectors, 2)).toEqual(rows);
    expect(() => decodeVectors(dim, vectors, 3)).toThrow(/not 3 x 3/);
    expect(() => encodeVectors([[1, 2], [1]])).toThrow(/different lengths/);
  });
});

describe('manifestSchema', () => {
  const base = {
    format: 'labbot-backup',
    formatVersion: 1,
    createdAt: '2025-05-01T00:00:00.000Z',
    collection: 'lab',
    base: 'lab',
    redis: { file: 'redis.jsonl.gz', keys: 1, version: '7.0.0', queuePausedByBackup: true },
    chroma: { collections: [] },
    files: { 'redis.jsonl.gz': { bytes: 1, sha256: 'a'.repeat(64) } },
  };
  it('accepts a manifest whose files stay inside the backup directory', () => {
    expect(manifestSchema.safeParse(base).success).toBe(true);
  });
  it('refuses paths that leave it', () => {
    for (const bad of ['../redis.jsonl.gz', '/etc/passwd', 'chroma/../../x', 'a/..']) {
      expect(manifestSchema.safeParse({ ...base, redis: { ...base.redis, file: bad } }).success, bad).toBe(false);
    }
  });
});
