import { describe, expect, it } from 'vitest';
import { chunkDocument } from '../src/ingest/chunk/index.ts';
import { splitSentences } from '../src/ingest/chunk/text.ts';
import type { Block, ChunkOptions } from '../src/types.ts';
import { body, header, missingSentences, pubmedProse } from './chunk-fixtures.ts';

// Fixtures are sized for 900-character chunks; the algorithm is the same at any size.
const opts: ChunkOptions = { size: 900, overlap: 150 };
const TITLE = 'Cell culture room';

const inventory: Extract<Block, { type: 'table' }> = {
  type: 'table',
  caption: 'Liquid nitrogen tank 2 inventory',
  header: ['Rack', 'Box', 'Cell line', 'Passage', 'Frozen by', 'Date'],
  rows: Array.from({ length: 45 }, (_, i) => [
    `R${Math.floor(i / 9) + 1}`,
    `${(i % 9) + 1}`,
    ['HeLa', 'HEK293T', 'U2OS', 'RPE1-hTERT', 'iPSC WTC-11'][i % 5],
    `P${4 + (i % 6)}`,
    ['Ana Ruiz', 'Luis Pérez', 'Mei Chen'][i % 3],
    `2023-${String((i % 12) + 1).padStart(2, '0')}-0${(i % 9) + 1}`,
  ]),
};

const longProse = pubmedProse(3000);

const page: Block[] = [
  { type: 'heading', level: 1, text: 'Cell culture room' },
  { type: 'paragraph', text: 'Room 2.14. Everyone who uses the hoods must have done the BSL-2 induction.' },
  { type: 'heading', level: 2, text: 'Hoods' },
  { type: 'heading', level: 3, text: 'Booking' },
  { type: 'paragraph', text: 'Book hood 1 and 2 in the shared calendar, in blocks of at most 2 h. Hood 3 is reserved for primary cells.' },
  { type: 'heading', level: 3, text: 'Cleaning' },
  { type: 'paragraph', text: 'Wipe with 70% ethanol before and after use. Run UV for 15 min at the end of the day.' },
  { type: 'code', text: '# weekly\nVirkon 1% -> 10 min\n70% ethanol -> wipe dry' },
  { type: 'heading', level: 2, text: 'Liquid nitrogen' },
  { type: 'heading', level: 3, text: 'Inventory' },
  { type: 'paragraph', text: 'Update the table when you freeze or thaw a vial.' },
  inventory,
  { type: 'heading', level: 2, text: 'Reading list' },
  ...longProse.map((text): Block => ({ type: 'paragraph', text })),
];

describe('chunkDocument: wiki', () => {
  const chunks = chunkDocument({ title: TITLE, kind: 'wiki', blocks: page }, opts);

  it('labels chunks by heading path without repeating the page title', () => {
    const sections = [...new Set(chunks.map((c) => c.section))];
    expect(sections).toEqual(['', 'Hoods > Booking', 'Hoods > Cleaning', 'Liquid nitrogen > Inventory', 'Reading list']);
    expect(header(chunks[0])).toBe(TITLE);
    expect(header(chunks[1])).toBe(`${TITLE} — Hoods > Booking`);
  });

  it('keeps code with its section and lines intact', () => {
    const cleaning = chunks.find((c) => c.section === 'Hoods > Cleaning')!;
    expect(body(cleaning)).toContain('# weekly\nVirkon 1% -> 10 min\n70% ethanol -> wipe dry');
  });

  it('splits a long table by rows with the header row in every piece', () => {
    const inv = chunks.filter((c) => c.section === 'Liquid nitrogen > Inventory');
    expect(inv.length).toBeGreaterThan(2);
    const withTable = inv.filter((c) => body(c).includes('| Rack |'));
    expect(withTable.length).toBe(inv.length);
    for (const c of inv) {
      expect(body(c)).toContain('| Rack | Box | Cell line | Passage | Frozen by | Date |\n| --- | --- | --- | --- | --- | --- |');
      expect(body(c).length).toBeLessThanOrEqual(opts.size * 1.5);
    }
    const rows = inv.flatMap((c) =>
      body(c)
        .split('\n')
        .filter((l) => /^\| R\d/.test(l)),
    );
    expect(rows).toHaveLength(45);
    expect(body(inv[0])).toMatch(/^Update the table when you freeze or thaw a vial\./);
  });

  it('packs a long section with whole-sentence overlap and keeps all its text', () => {
    const reading = chunks.filter((c) => c.section === 'Reading list');
    expect(reading.length).toBeGreaterThan(1);
    for (let i = 1; i < reading.length; i++) {
      const first = splitSentences(body(reading[i]).split('\n\n')[0])[0];
      expect(body(reading[i - 1]).replace(/\s+/g, ' ')).toContain(first);
    }
    expect(missingSentences(longProse, reading)).toEqual([]);
  });

  it('chunks a note (no headings) into packed parts with just the title as header', () => {
    const cs = chunkDocument(
      { title: 'Meeting notes', kind: 'note', blocks: longProse.map((text): Block => ({ type: 'paragraph', text })) },
      opts,
    );
    expect(cs.length).toBeGreaterThan(1);
    for (const c of cs) {
      expect(header(c)).toBe('Meeting notes');
      expect(c.section).toBe('');
    }
  });
});
