// Tables as Markdown: whole when they fit, otherwise row groups that each repeat the header,
// so a piece that says "| Reagent | Cat. no. |" can still be read without the rest.

import type { Block, ChunkOptions } from '../../types.ts';
import { hardCut, limits } from './text.ts';

export type TableBlock = Extract<Block, { type: 'table' }>;

function cell(text: string): string {
  return text.replace(/\s+/g, ' ').trim().replace(/\|/g, '\\|');
}

function row(cells: string[], width: number): string {
  const padded = Array.from({ length: width }, (_, i) => cell(cells[i] ?? ''));
  return `| ${padded.join(' | ')} |`;
}

interface TableParts {
  caption: string;
  head: string;
  rows: string[];
}

function parts(table: TableBlock): TableParts {
  // Header-less tables (some DOCX/HTML) use their first row as the header: Markdown needs one,
  // and in lab tables the first row is nearly always the column names anyway.
  const header = table.header.length > 0 ? table.header : (table.rows[0] ?? []);
  const body = table.header.length > 0 ? table.rows : table.rows.slice(1);
  const width = Math.max(header.length, ...body.map((r) => r.length), 1);
  const head = `${row(header, width)}\n|${' --- |'.repeat(width)}`;
  const rows = body.filter((r) => r.some((c) => c.trim() !== '')).map((r) => row(r, width));
  const caption = table.caption?.replace(/\s+/g, ' ').trim() ?? '';
  return { caption, head, rows };
}

/** The whole table as Markdown, caption on the line above. */
export function renderTable(table: TableBlock): string {
  const { caption, head, rows } = parts(table);
  return [caption, [head, ...rows].join('\n')].filter((s) => s !== '').join('\n');
}

/**
 * A table as one or more Markdown pieces. Whole if it fits in 1.5x the chunk size (a table cut in
 * two loses its meaning faster than prose does); otherwise groups of rows of about the chunk
 * size, every group with the caption and header row repeated.
 */
export function splitTable(table: TableBlock, opts: ChunkOptions): string[] {
  const { size, max } = limits(opts);
  const { caption, head, rows } = parts(table);
  if (rows.length === 0 && head.replace(/[|\-\s]/g, '') === '' && caption === '') return [];
  const whole = renderTable(table);
  if (whole.length <= max) return [whole];

  const pieces: string[] = [];
  let current: string[] = [];
  const prefix = (continued: boolean): string => {
    const cap = caption ? `${caption}${continued ? ' (continued)' : ''}\n` : '';
    return `${cap}${head}`;
  };
  const flush = (): void => {
    if (current.length === 0) return;
    pieces.push([prefix(pieces.length > 0), ...current].join('\n'));
    current = [];
  };
  for (const r of rows) {
    const base = prefix(pieces.length > 0).length;
    const used = current.reduce((n, line) => n + line.length + 1, base);
    if (current.length > 0 && used + r.length + 1 > size) flush();
    const room = max - prefix(pieces.length > 0).length - 1;
    if (r.length > room) {
      // One row too big for any chunk: its text is cut, each part still under the header.
      flush();
      for (const part of hardCut(r, Math.max(room, 40))) pieces.push(`${prefix(pieces.length > 0)}\n${part}`);
      continue;
    }
    current.push(r);
  }
  flush();
  return pieces;
}
