// Structure-aware chunking: each kind of document is cut along its own structure.

import { DEFAULT_CHUNK_OPTIONS, type Block, type ChunkDraft, type ChunkOptions, type Kind } from '../../types.ts';
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

/** A paper, wiki page or note with at most this many chunk sizes of text stays one chunk. */
const WHOLE_DOC_FACTOR = 4;

export function chunkDocument(doc: ChunkInput, opts: ChunkOptions = DEFAULT_CHUNK_OPTIONS): ChunkDraft[] {
  const chunks = chunkByKind(doc, opts);
  // A short document (an abstract, a one-screen wiki page) is one unit of meaning: splitting it
  // scatters the words a question matches across pieces. Steps and slides stay separate.
  if (chunks.length > 1 && doc.kind !== 'protocol' && doc.kind !== 'slides') {
    const total = textLength(doc.blocks);
    if (total <= WHOLE_DOC_FACTOR * opts.size) {
      const whole = chunkByKind(doc, { ...opts, size: total + 100 });
      if (whole.length === 1) return whole;
    }
  }
  return chunks;
}

function textLength(blocks: Block[]): number {
  let n = 0;
  for (const b of blocks) {
    if (b.type === 'heading' || b.type === 'paragraph' || b.type === 'code') n += b.text.length + 2;
    else if (b.type === 'list') n += b.items.reduce((a, i) => a + i.length + 3, 0);
    else if (b.type === 'table') n += [b.header, ...b.rows].reduce((a, r) => a + r.join(' | ').length + 1, 0);
    else if (b.type === 'slide') n += b.title.length + b.body.length + b.notes.length;
  }
  return n;
}

function chunkByKind(doc: ChunkInput, opts: ChunkOptions): ChunkDraft[] {
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
