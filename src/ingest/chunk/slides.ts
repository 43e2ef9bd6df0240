// Slide decks: one chunk per slide (title, body, speaker notes), cited as "Slide 4: <title>".

import type { Block, ChunkDraft, ChunkOptions } from '../../types.ts';
import { limits, makeChunk, normalizeSpace, packWhole, sentenceUnits, truncate, type ParsedDoc, type Unit } from './text.ts';
import { lineUnits } from './units.ts';
import { chunkWiki } from './wiki.ts';

type SlideBlock = Extract<Block, { type: 'slide' }>;

function slideChunks(title: string, slide: SlideBlock, opts: ChunkOptions): ChunkDraft[] {
  const { size } = limits(opts);
  const slideTitle = normalizeSpace(slide.title);
  const units: Unit[] = [];
  if (slideTitle) units.push({ text: slideTitle, sep: '\n\n' });
  units.push(...lineUnits(slide.body, size, undefined, '\n'));
  const notes = normalizeSpace(slide.notes);
  // Notes often hold the explanation the slide only hints at: keep them, marked as notes.
  if (notes) units.push(...sentenceUnits(`Speaker notes: ${notes}`, undefined, '\n\n'));
  const section = slideTitle ? `Slide ${slide.number}: ${truncate(slideTitle, 80)}` : `Slide ${slide.number}`;
  return packWhole(units, opts).map((p) => makeChunk(title, section, p.text, { slide: slide.number }));
}

export function chunkSlides(doc: ParsedDoc, opts: ChunkOptions): ChunkDraft[] {
  const chunks: ChunkDraft[] = [];
  let other: Block[] = [];
  // Blocks outside slides (a deck exported to Markdown with a preamble) are chunked as a wiki page.
  const flushOther = (): void => {
    if (other.some((b) => b.type !== 'page')) chunks.push(...chunkWiki({ title: doc.title, blocks: other }, opts));
    other = [];
  };
  for (const b of doc.blocks) {
    if (b.type !== 'slide') {
      other.push(b);
      continue;
    }
    flushOther();
    chunks.push(...slideChunks(doc.title, b, opts));
  }
  flushOther();
  return chunks;
}
