// The index version names everything that makes stored vectors and chunks comparable:
// embedding provider, model and dimensions, and the chunking settings. A change means a rebuild.
import { createHash } from 'node:crypto';
import type { ChunkOptions } from '../types.ts';

/** Bump when chunkers change what they emit for the same input. */
export const CHUNKER_VERSION = 4;

export interface IndexVersionInput {
  embeddingProvider: string;
  embeddingModel: string;
  dimensions: number | undefined;
  chunking: ChunkOptions;
  /**
   * HNSW build settings: fixed when a collection is created, so a change needs a new index.
   * Part of the version only when they differ from Chroma's defaults, so indexes built before
   * they were versioned keep their version.
   */
  hnsw?: { m: number; efConstruction: number };
}

export const DEFAULT_HNSW_BUILD = { m: 16, efConstruction: 200 };

const customHnsw = (input: IndexVersionInput) =>
  input.hnsw && (input.hnsw.m !== DEFAULT_HNSW_BUILD.m || input.hnsw.efConstruction !== DEFAULT_HNSW_BUILD.efConstruction)
    ? input.hnsw
    : undefined;

export function indexVersion(input: IndexVersionInput): string {
  const canonical = JSON.stringify([
    input.embeddingProvider,
    input.embeddingModel,
    input.dimensions ?? null,
    input.chunking.size,
    input.chunking.overlap,
    CHUNKER_VERSION,
    ...(customHnsw(input) ? [customHnsw(input)!.m, customHnsw(input)!.efConstruction] : []),
  ]);
  return `v1-${createHash('sha256').update(canonical).digest('hex').slice(0, 12)}`;
}

export function describeIndexVersion(input: IndexVersionInput): string {
  const dims = input.dimensions ? `/${input.dimensions}d` : '';
  const hnsw = customHnsw(input);
  const graph = hnsw ? `, hnsw m=${hnsw.m} ef_construction=${hnsw.efConstruction}` : '';
  return (
    `${input.embeddingProvider}:${input.embeddingModel}${dims}, chunks ${input.chunking.size}/${input.chunking.overlap}, ` +
    `chunker v${CHUNKER_VERSION}${graph}`
  );
}
