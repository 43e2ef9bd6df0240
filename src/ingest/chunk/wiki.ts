// Wiki pages and notes: by heading path (h1 > h2 > h3), each section packed to size with overlap.

import type { ChunkDraft, ChunkOptions } from '../../types.ts';
import { splitSections } from './sections.ts';
import { makeChunk, packUnits, type ParsedDoc } from './text.ts';
import { blocksToUnits } from './units.ts';

export function chunkWiki(doc: ParsedDoc, opts: ChunkOptions): ChunkDraft[] {
  const chunks: ChunkDraft[] = [];
  for (const s of splitSections(doc.blocks, doc.title)) {
    const { units } = blocksToUnits(s.blocks, opts, s.page);
    const section = s.path.join(' > ');
    for (const p of packUnits(units, opts)) {
      chunks.push(makeChunk(doc.title, section, p.text, p.page !== undefined ? { page: p.page } : {}));
    }
  }
  return chunks;
}
