import { describe, expect, it } from 'vitest';
import { chunkDocument } from '../src/ingest/chunk/index.ts';
import type { Block, ChunkOptions } from '../src/types.ts';
import { DEFAULT_CHUNK_OPTIONS } from '../src/types.ts';
import { body, header } from './chunk-fixtures.ts';

const opts: ChunkOptions = DEFAULT_CHUNK_OPTIONS;
const TITLE = 'Lab meeting 2024-03-12: CRISPR screen for autophagy regulators';

const deck: Block[] = [
  { type: 'slide', number: 1, title: 'CRISPR screen for autophagy regulators', body: 'Ana Ruiz\nLab meeting, 12 March 2024', notes: '' },
  {
    type: 'slide',
    number: 2,
    title: 'Screen design',
    body:
      '- Brunello library, 4 sgRNAs per gene, 77,441 sgRNAs\n- HeLa GFP-LC3-RFP reporter, MOI ' +
      '0.3\n- Sort top and bottom 10% by GFP/RFP ratio after 6 h EBSS',
    notes: 'We kept coverage above 500x at every step. The sort took two days, so the replicate was sorted a week later.',
  },
  {
    type: 'slide',
    number: 3,
    title: 'Hits',
    body: 'TFEB, ATG7 and RB1CC1 scored in both replicates (MAGeCK FDR < 0.05).',
    notes: 'ATG7 is the positive control. RB1CC1 is FIP200.',
  },
  { type: 'slide', number: 4, title: '', body: '', notes: '' },
  { type: 'slide', number: 5, title: '', body: 'Questions?', notes: '' },
];

describe('chunkDocument: slides', () => {
  const chunks = chunkDocument({ title: TITLE, kind: 'slides', blocks: deck }, opts);

  it('makes one chunk per slide with a number and "Slide N: <title>" section', () => {
    expect(chunks.map((c) => c.slide)).toEqual([1, 2, 3, 5]);
    expect(chunks.map((c) => c.section)).toEqual([
      'Slide 1: CRISPR screen for autophagy regulators',
      'Slide 2: Screen design',
      'Slide 3: Hits',
      'Slide 5',
    ]);
    expect(header(chunks[1])).toBe(`${TITLE} — Slide 2: Screen design`);
  });

  it('puts title, body and speaker notes in the chunk', () => {
    expect(body(chunks[1])).toBe(
      'Screen design\n- Brunello library, 4 sgRNAs per gene, 77,441 sgRNAs\n- HeLa GFP-LC3-RFP reporter, MOI 0.3\n' +
        '- Sort top and bottom 10% by GFP/RFP ratio after 6 h EBSS\n\n' +
        'Speaker notes: We kept coverage above 500x at every step. The sort took two days, so the replicate was sorted a week later.',
    );
    expect(body(chunks[0])).not.toContain('Speaker notes');
    expect(body(chunks[3])).toBe('Questions?');
  });

  it('splits an overfull slide into pieces that keep its number', () => {
    const bullets = Array.from(
      { length: 40 },
      (_, i) => `- Gene ${i + 1}: sgRNA depleted 3.2-fold in the low-GFP bin, validated by western blot`,
    ).join('\n');
    const cs = chunkDocument(
      {
        title: TITLE,
        kind: 'slides',
        blocks: [{ type: 'slide', number: 7, title: 'All hits', body: bullets, notes: 'Full list in the supplement.' }],
      },
      opts,
    );
    expect(cs.length).toBeGreaterThan(1);
    for (const c of cs) {
      expect(c.slide).toBe(7);
      expect(c.section).toBe('Slide 7: All hits');
      expect(body(c).length).toBeLessThanOrEqual(opts.size * 1.5);
    }
    const all = cs.map(body).join('\n');
    for (let i = 1; i <= 40; i++) expect(all).toContain(`- Gene ${i}: sgRNA`);
    expect(all).toContain('Speaker notes: Full list in the supplement.');
  });

  it('chunks blocks outside slides (a preamble) like a wiki page', () => {
    const cs = chunkDocument(
      {
        title: TITLE,
        kind: 'slides',
        blocks: [{ type: 'heading', level: 2, text: 'Agenda' }, { type: 'paragraph', text: 'Screen results, then next steps.' }, deck[2]],
      },
      opts,
    );
    expect(cs.map((c) => c.section)).toEqual(['Agenda', 'Slide 3: Hits']);
  });
});
