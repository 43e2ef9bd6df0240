// The index version names everything that makes stored vectors and chunks comparable:
// embedding provider, model and dimensions, and the chunking settings. A change means a rebuild.
import { createHash } from 'node:crypto';
import type { ChunkOptions } from '../types.ts';

/** Bump when chunkers change what they emit for the same input. */
export const CHUNKER_VERSION = 3;

export interface IndexVersionInput {
  embeddingProvider: string;
  embeddingModel: string;
  dimensions: number | undefined;
  chunking: ChunkOptions;
}

export function indexVersion(input: IndexVersionInput): string {
  const canonical = JSON.stringify([
    input.embeddingProvider,
    input.embeddingModel,
    input.dimensions ?? null,
    input.chunking.size,
    input.chunking.overlap,
    CHUNKER_VERSION,
  ]);
  return `v1-${createHash('sha256').update(canonical).digest('hex').slice(0, 12)}`;
}

export function describeIndexVersion(input: IndexVersionInput): string {
  const dims = input.dimensions ? `/${input.dimensions}d` : '';
  return `${input.embeddingProvider}:${input.embeddingModel}${dims}, chunks ${input.chunking.size}/${input.chunking.overlap}, chunker v${CHUNKER_VERSION}`;
}
