// Turning content blocks (everything but headings) into packable units, tracking PDF pages.

import type { Block, ChunkOptions } from '../../types.ts';
import { splitTable } from './tables.ts';
import { limits, normalizeSpace, sentenceUnits, splitSentences, type Unit } from './text.ts';

/** Units of a list: one per item, each item's sentences split apart only when the item is long. */
function listUnits(block: Extract<Block, { type: 'list' }>, size: number, page?: number): Unit[] {
  const out: Unit[] = [];
  const start = block.start ?? 1;
  block.items.forEach((raw, i) => {
    const item = normalizeSpace(raw);
    if (!item) return;
    const marker = block.ordered ? `${start + i}. ` : '- ';
    const sep: Unit['sep'] = out.length === 0 ? '\n\n' : '\n';
    if (item.length <= size) {
      out.push({ text: marker + item, sep, page });
      return;
    }
    splitSentences(item).forEach((s, j) => out.push({ text: j === 0 ? marker + s : s, sep: j === 0 ? sep : ' ', page }));
  });
  return out;
}

/** Code keeps its lines; a block too long for one chunk is grouped by lines. */
function codeUnits(text: string, size: number, max: number, page?: number): Unit[] {
  const body = text.replace(/\s+$/, '');
  if (!body.trim()) return [];
  if (body.length <= max) return [{ text: body, sep: '\n\n', page, overlap: false }];
  const out: Unit[] = [];
  let current = '';
  for (const line of body.split('\n')) {
    if (current && current.length + line.length + 1 > size) {
      out.push({ text: current, sep: out.length === 0 ? '\n\n' : '\n', page, overlap: false });
      current = '';
    }
    current = current ? `${current}\n${line}` : line;
  }
  if (current.trim()) out.push({ text: current, sep: out.length === 0 ? '\n\n' : '\n', page, overlap: false });
  return out;
}

/** Multi-line free text (slide bodies, notes): one unit per line, long lines split into sentences. */
export function lineUnits(text: string, size: number, page?: number, firstSep: Unit['sep'] = '\n\n'): Unit[] {
  const out: Unit[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = normalizeSpace(raw);
    if (!line) continue;
    const sep: Unit['sep'] = out.length === 0 ? firstSep : '\n';
    if (line.length <= size) out.push({ text: line, sep, page });
    else splitSentences(line).forEach((s, j) => out.push({ text: s, sep: j === 0 ? sep : ' ', page }));
  }
  return out;
}

/** A paragraph that stops without terminal punctuation and a next one starting in lower case or
 * with a number are one sentence broken by a page or column break in a PDF: rejoin them so the
 * sentence stays whole. */
function continues(prev: Unit | undefined, prevWasParagraph: boolean, next: string): boolean {
  if (!prev || !prevWasParagraph) return false;
  return !/[.!?:;]["'”’)\]]*$/u.test(prev.text) && (/^[\p{Ll}\p{N}]/u.test(next) || /[,(\-–]$/u.test(prev.text));
}

export interface UnitsResult {
  units: Unit[];
  /** Page in effect after the last block, to carry into the next section. */
  page?: number;
}

/** Units for a run of content blocks. Headings are ignored (callers split on them first). */
export function blocksToUnits(blocks: Block[], opts: ChunkOptions, startPage?: number): UnitsResult {
  const { size, max } = limits(opts);
  const units: Unit[] = [];
  let page = startPage;
  let lastWasParagraph = false;
  for (const b of blocks) {
    switch (b.type) {
      case 'page':
        page = b.number;
        continue;
      case 'heading':
        lastWasParagraph = false;
        continue;
      case 'paragraph': {
        const text = normalizeSpace(b.text);
        if (!text) continue;
        const prev = units[units.length - 1];
        if (continues(prev, lastWasParagraph, text)) {
          units.pop();
          const joinedText = prev.text.endsWith('-') ? prev.text + text : `${prev.text} ${text}`;
          const again = sentenceUnits(joinedText, page, prev.sep);
          again[0].page = prev.page;
          units.push(...again);
        } else {
          units.push(...sentenceUnits(text, page));
        }
        lastWasParagraph = true;
        continue;
      }
      case 'list':
        units.push(...listUnits(b, size, page));
        break;
      case 'table':
        for (const piece of splitTable(b, opts)) units.push({ text: piece, sep: '\n\n', page, overlap: false });
        break;
      case 'code':
        units.push(...codeUnits(b.text, size, max, page));
        break;
      case 'slide': {
        const head = [`Slide ${b.number}`, normalizeSpace(b.title)].filter((s) => s).join(': ');
        units.push({ text: head, sep: '\n\n', page });
        units.push(...lineUnits(b.body, size, page, '\n'));
        const notes = normalizeSpace(b.notes);
        if (notes) units.push(...sentenceUnits(`Speaker notes: ${notes}`, page, '\n'));
        break;
      }
    }
    lastWasParagraph = false;
  }
  return { units, page };
}
