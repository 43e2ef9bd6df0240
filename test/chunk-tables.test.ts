import { describe, expect, it } from 'vitest';
import { renderTable, splitTable } from '../src/ingest/chunk/tables.ts';
import type { Block, ChunkOptions } from '../src/types.ts';

type Table = Extract<Block, { type: 'table' }>;
// Fixtures are sized for 900-character chunks; the algorithm is the same at any size.
const opts: ChunkOptions = { size: 900, overlap: 150 };

const primers: Table = {
  type: 'table',
  caption: 'Table 1. qPCR primers',
  header: ['Gene', 'Forward (5′-3′)', 'Reverse (5′-3′)'],
  rows: [
    ['TFEB', 'CCAGAAGCGAGAGCTCACAGAT', 'TGTGATTGTCTTTCTTCTGCCG'],
    ['LAMP1', 'ACGTTACAGCGTCCAGCTCAT', 'TCTTTGGAGCTCGCATTGG'],
    ['GAPDH', 'GAAGGTGAAGGTCGGAGTC', 'GAAGATGGTGATGGGATTTC'],
  ],
};

function freezer(n: number): Table {
  return {
    type: 'table',
    caption: 'Freezer -80 °C, rack B',
    header: ['Box', 'Contents', 'Owner', 'Date'],
    rows: Array.from({ length: n }, (_, i) => [
      `B${i + 1}`,
      `HeLa TFEB-KO clone ${i + 1}, passage ${5 + (i % 7)}, 1×10^6 cells/vial`,
      i % 2 ? 'Ana' : 'Luis',
      `2024-0${(i % 9) + 1}-15`,
    ]),
  };
}

describe('renderTable', () => {
  it('renders Markdown with caption, header, separator and rows', () => {
    expect(renderTable(primers)).toBe(
      'Table 1. qPCR primers\n' +
        '| Gene | Forward (5′-3′) | Reverse (5′-3′) |\n| --- | --- | --- |\n' +
        '| TFEB | CCAGAAGCGAGAGCTCACAGAT | TGTGATTGTCTTTCTTCTGCCG |\n' +
        '| LAMP1 | ACGTTACAGCGTCCAGCTCAT | TCTTTGGAGCTCGCATTGG |\n' +
        '| GAPDH | GAAGGTGAAGGTCGGAGTC | GAAGATGGTGATGGGATTTC |',
    );
  });

  it('escapes pipes, flattens newlines in cells and pads short rows', () => {
    const t: Table = { type: 'table', header: ['Buffer', 'Recipe'], rows: [['TBST', '20 mM Tris | 150 mM NaCl\n0.1% Tween-20'], ['PBS']] };
    expect(renderTable(t)).toBe('| Buffer | Recipe |\n| --- | --- |\n| TBST | 20 mM Tris \\| 150 mM NaCl 0.1% Tween-20 |\n| PBS |  |');
  });

  it('uses the first row as header when there is none', () => {
    const t: Table = {
      type: 'table',
      header: [],
      rows: [
        ['Step', 'Temp'],
        ['Denature', '95 °C'],
      ],
    };
    expect(renderTable(t)).toBe('| Step | Temp |\n| --- | --- |\n| Denature | 95 °C |');
  });
});

describe('splitTable', () => {
  it('keeps a table whole when it fits in 1.5x the size', () => {
    const t = freezer(14);
    const whole = renderTable(t);
    expect(whole.length).toBeGreaterThan(opts.size);
    expect(whole.length).toBeLessThanOrEqual(opts.size * 1.5);
    expect(splitTable(t, opts)).toEqual([whole]);
  });

  it('splits a long table by rows, repeating caption and header, each row exactly once', () => {
    const t = freezer(60);
    const pieces = splitTable(t, opts);
    expect(pieces.length).toBeGreaterThan(3);
    pieces.forEach((p, i) => {
      expect(p.length).toBeLessThanOrEqual(opts.size * 1.5);
      const lines = p.split('\n');
      expect(lines[0]).toBe(i === 0 ? 'Freezer -80 °C, rack B' : 'Freezer -80 °C, rack B (continued)');
      expect(lines[1]).toBe('| Box | Contents | Owner | Date |');
      expect(lines[2]).toBe('| --- | --- | --- | --- |');
      expect(lines.length).toBeGreaterThan(3);
    });
    const rows = pieces.flatMap((p) => p.split('\n').slice(3));
    expect(rows).toHaveLength(60);
    expect(rows.map((r) => r.split(' | ')[0])).toEqual(t.rows.map((r) => `| ${r[0]}`));
  });

  it('hard-cuts a single row too large for any chunk, still under the header', () => {
    const t: Table = { type: 'table', header: ['Sample', 'Notes'], rows: [['S1', 'cloudy pellet after spin; '.repeat(80)]] };
    const pieces = splitTable(t, opts);
    expect(pieces.length).toBeGreaterThan(1);
    for (const p of pieces) {
      expect(p.startsWith('| Sample | Notes |\n| --- | --- |\n')).toBe(true);
      expect(p.length).toBeLessThanOrEqual(opts.size * 1.5);
    }
  });

  it('returns nothing for an empty table', () => {
    expect(splitTable({ type: 'table', header: [], rows: [] }, opts)).toEqual([]);
  });
});
