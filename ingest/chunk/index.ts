// Structure-aware chunking: each kind of document is cut along its own structure.

import { DEFAULT_CHUNK_OPTIONS, type Block, type ChunkDraft, type ChunkOptions, type Kind } from '../../src/types.ts';
import { chunkPaper } from './paper.ts';
import { chunkProtocol } from './protocol.ts';
import { chunkSlides } from './slides.ts';
import { chunkWiki } from './wiki.ts';

export { detectKind } from './detect-kind.ts';
export { renderTable, splitTable } from './tables.ts';
export { splitSentences } from './text.ts';

export interface ChunkInput {
  title: string;
  kind: Kind;
  blocks: Block[];
}

export function chunkDocument(doc: ChunkInput, opts: ChunkOptions = DEFAULT_CHUNK_OPTIONS): ChunkDraft[] {
  const parsed = { title: doc.title, blocks: doc.blocks };
  const chunks = ((): ChunkDraft[] => {
    switch (doc.kind) {
      case 'paper':
        return chunkPaper(parsed, opts);
      case 'protocol':
        return chunkProtocol(parsed, opts);
      case 'slides':
        return chunkSlides(parsed, opts);
      case 'wiki':
      case 'note':
        return chunkWiki(parsed, opts);
    }
  })();
  return chunks.filter((c) => c.text.trim() !== '');
}
