// Plain text: paragraphs separated by blank lines. The only structure inferred is what a reader
// would also see unambiguously: Markdown-style "# " heading lines and bulleted/numbered lists.
import type { Block, ParsedFile } from '../../types.ts';
import { readFrontMatter } from './front-matter.ts';

const HEADING_START = /^(#{1,6})[ \t]+(?=\S)/;
const BULLET = /^\s*([-*+\u2022\u2013\u25AA\u25CF])\s+(\S.*)$/;
const NUMBERED = /^\s*(\d{1,4})[.)]\s+(\S.*)$/;

interface ListMarker {
  ordered: boolean;
  number?: number;
  text: string;
}

function listMarker(line: string): ListMarker | undefined {
  const b = BULLET.exec(line);
  if (b) return { ordered: false, text: b[2] };
  const n = NUMBERED.exec(line);
  if (n) return { ordered: true, number: Number(n[1]), text: n[2] };
  return undefined;
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Turn one blank-line-separated chunk of lines into blocks. */
function chunkToBlocks(lines: string[], out: Block[]): void {
  let prose: string[] = [];
  let list: { ordered: boolean; start?: number; items: string[] } | undefined;
  let lastItemIndent = 0;

  const flushProse = () => {
    const text = squash(prose.join(' '));
    if (text) out.push({ type: 'paragraph', text });
    prose = [];
  };
  const flushList = () => {
    if (list && list.items.length > 0) {
      const block: Block = { type: 'list', ordered: list.ordered, items: list.items.map(squash) };
      if (list.ordered && list.start !== undefined && list.start !== 1) block.start = list.start;
      out.push(block);
    }
    list = undefined;
  };

  for (const line of lines) {
    const heading = HEADING_START.exec(line);
    if (heading) {
      flushProse();
      flushList();
      // Closing hashes ("## Title ##") are decoration.
      let text = squash(line.slice(heading[0].length));
      let end = text.length;
      while (end > 0 && text[end - 1] === '#') end--;
      if (end < text.length && (end === 0 || text[end - 1] === ' ')) text = text.slice(0, end).trim();
      out.push({ type: 'heading', level: heading[1].length, text });
      continue;
    }
    const marker = listMarker(line);
    if (marker) {
      flushProse();
      if (!list || list.ordered !== marker.ordered) {
        flushList();
        list = { ordered: marker.ordered, start: marker.number, items: [] };
      }
      list.items.push(marker.text);
      lastItemIndent = line.length - line.trimStart().length;
      continue;
    }
    if (list) {
      const indent = line.length - line.trimStart().length;
      // An indented (or wrapped) line after an item continues it; a flush-left line after a
      // list inside the same chunk is more likely a new sentence, but wrapped items are common
      // in plain text, so only an obviously new paragraph style (capital after a full stop
      // at the item's end) ends the list.
      const prev = list.items[list.items.length - 1];
      if (indent > lastItemIndent || !/[.!?:]$/.test(prev.trim()) || !/^[A-Z]/.test(line.trim())) {
        list.items[list.items.length - 1] = `${prev} ${line.trim()}`;
        continue;
      }
      flushList();
    }
    prose.push(line);
  }
  flushProse();
  flushList();
}

/** Split plain text into paragraph, heading and list blocks. */
export function textToBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  let chunk: string[] = [];
  for (const raw of text.replace(/\r\n?/g, '\n').split('\n')) {
    const line = raw.replace(/\t/g, '    ').trimEnd();
    if (line.trim() === '') {
      if (chunk.length) chunkToBlocks(chunk, blocks);
      chunk = [];
    } else {
      chunk.push(line);
    }
  }
  if (chunk.length) chunkToBlocks(chunk, blocks);
  return blocks;
}

export function parseText(text: string): ParsedFile {
  const fm = readFrontMatter(text);
  const blocks = textToBlocks(fm.body);
  const warnings = [...fm.warnings, ...(blocks.length === 0 ? ['file contains only whitespace'] : [])];
  return { format: 'text', blocks, meta: fm.meta, warnings };
}
