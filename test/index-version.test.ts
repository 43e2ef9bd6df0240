// HNSW build settings are part of the index version only when they differ from the defaults, so
// indexes built before they were versioned keep their version (no needless rebuild on upgrade).
import { describe, expect, it } from 'vitest';
import { DEFAULT_HNSW_BUILD, describeIndexVersion, indexVersion } from '../src/index/version.ts';

const input = { embeddingProvider: 'hash', embeddingModel: 'hash', dimensions: 384, chunking: { size: 500, overlap: 80 } };

describe('index version', () => {
  it('default HNSW build settings leave the version as it was', () => {
    expect(indexVersion({ ...input, hnsw: DEFAULT_HNSW_BUILD })).toBe(indexVersion(input));
  });

  it('a changed graph setting changes the version and says so', () => {
    const m32 = { ...input, hnsw: { m: 32, efConstruction: 200 } };
    const ef400 = { ...input, hnsw: { m: 16, efConstruction: 400 } };
    expect(indexVersion(m32)).not.toBe(indexVersion(input));
    expect(indexVersion(ef400)).not.toBe(indexVersion(input));
    expect(indexVersion(m32)).not.toBe(indexVersion(ef400));
    expect(describeIndexVersion(m32)).toMatch(/hnsw m=32 ef_construction=200/);
    expect(describeIndexVersion(input)).not.toMatch(/hnsw/);
  });
});
