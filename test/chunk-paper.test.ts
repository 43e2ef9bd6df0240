import { describe, expect, it } from 'vitest';
import { chunkPaper } from '../src/ingest/chunk/paper.ts';
import { chunkDocument } from '../src/ingest/chunk/index.ts';
import { splitSentences } from '../src/ingest/chunk/text.ts';
import type { Block, ChunkOptions } from '../src/types.ts';
import {
  PAPER_TITLE,
  REFERENCE_LINES,
  body,
  header,
  missingSentences,
  paperBlocks,
  pubmedBlocks,
  pubmedProse,
  squash,
} from './chunk-fixtures.ts';

// Fixtures are sized for 900-character chunks; the algorithm is the same at any size.
const opts: ChunkOptions = { size: 900, overlap: 150 };
const MAX = opts.size * 1.5;

/** Sentences of a chunk body, paragraph by paragraph (a lower-case paragraph start is not a boundary for splitSentences). */
function sentencesOf(text: string): string[] {
  return text.split(/\n\n+/).flatMap((p) => splitSentences(p));
}

function paragraphsOf(blocks: Block[]): string[] {
  return blocks.flatMap((b) => (b.type === 'paragraph' ? [b.text] : []));
}

describe('splitSentences', () => {
  it('does not cut inside et al., Fig., e.g., initials or decimals', () => {
    const s = splitSentences(
      'Sardiello et al. identified TFEB in 2009. Lysosomes were counted (Fig. 2B) at 0.5 µM, e.g. in starved cells. ' +
        'Smith J. and Jones K. agreed. mRNA levels fell to 0.22 of control. Was it significant? Yes.',
    );
    expect(s).toEqual([
      'Sardiello et al. identified TFEB in 2009.',
      'Lysosomes were counted (Fig. 2B) at 0.5 µM, e.g. in starved cells.',
      'Smith J. and Jones K. agreed.',
      'mRNA levels fell to 0.22 of control.',
      'Was it significant?',
      'Yes.',
    ]);
  });

  it('ends sentences after units such as min and h', () => {
    expect(splitSentences('Incubate for 5 min. Wash twice in PBS for 1 h. Image.')).toHaveLength(3);
  });
});

describe('chunkDocument: paper with sections', () => {
  const blocks = paperBlocks();
  const chunks = chunkDocument({ title: PAPER_TITLE, kind: 'paper', blocks }, opts);

  it('starts every chunk with "<title> — <section>"', () => {
    for (const c of chunks) {
      expect(header(c)).toBe(`${PAPER_TITLE} — ${c.section}`);
      expect(body(c).trim().length).toBeGreaterThan(0);
    }
  });

  it('gives each canonical section its own chunks and does not repeat the title heading in the path', () => {
    const sections = new Set(chunks.map((c) => c.section));
    for (const s of ['Abstract', 'Introduction', 'Results', 'Discussion']) expect(sections).toContain(s);
    expect([...sections].some((s) => s.includes(PAPER_TITLE))).toBe(false);
    const abstract = chunks.filter((c) => c.section === 'Abstract');
    expect(abstract).toHaveLength(1);
    expect(body(abstract[0])).toContain('Transcription factor EB (TFEB)');
    expect(body(abstract[0])).not.toContain('Lysosomes degrade');
  });

  it('keeps subsections under their parent: "Methods > Cell culture"', () => {
    const methods = chunks.filter((c) => c.section.startsWith('Methods > '));
    for (const sub of ['Cell culture', 'siRNA transfection', 'Western blotting', 'Statistical analysis']) {
      expect(methods.some((c) => c.section.includes(sub))).toBe(true);
    }
    const culture = methods.find((c) => c.section.includes('Cell culture'));
    expect(body(culture!)).toContain('HeLa cells (ATCC CCL-2)');
  });

  it('splits a long section with overlap, all pieces keeping the section name', () => {
    const intro = chunks.filter((c) => c.section === 'Introduction');
    expect(intro.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < intro.length; i++) {
      const firstSentence = splitSentences(body(intro[i]))[0];
      expect(body(intro[i - 1])).toContain(firstSentence);
    }
  });

  it('drops the reference list', () => {
    const all = chunks.map((c) => c.text).join('\n');
    expect(all).not.toContain('J Biol Chem. 2019');
    expect(all).not.toContain('Ann Emerg Med');
    expect(chunks.some((c) => /references/i.test(c.section))).toBe(false);
  });

  it('keeps every sentence of the body and stays within 1.5x the size', () => {
    const prose = paragraphsOf(blocks).filter((p) => !REFERENCE_LINES.includes(p));
    expect(missingSentences(prose, chunks)).toEqual([]);
    for (const c of chunks) expect(body(c).length).toBeLessThanOrEqual(MAX);
  });
});

describe('chunkDocument: structured abstracts', () => {
  it('merges small adjacent sections of a PubMed abstract up to the size target', () => {
    const blocks = pubmedBlocks('pubmedqa-10135926.md');
    const headings = blocks.filter((b) => b.type === 'heading').length;
    // The paper chunker itself; chunkDocument would keep a document this short whole (below).
    const chunks = chunkPaper({ title: 'PMID 10135926', blocks }, opts);
    expect(headings).toBe(4);
    expect(chunks.length).toBeLessThan(headings);
    expect(chunks[0].section).toBe('Introduction; Setting; Methods');
    expect(body(chunks[0])).toContain('Setting\nThe study was conducted in an MBB BO-105 helicopter.');
    expect(missingSentences(paragraphsOf(blocks), chunks)).toEqual([]);
    for (const c of chunks) expect(body(c).length).toBeLessThanOrEqual(opts.size);
  });

  it('keeps a short document whole (an abstract is one unit), but not a protocol', () => {
    const blocks = pubmedBlocks('pubmedqa-10135926.md');
    const small = { size: 500, overlap: 80 };
    expect(chunkPaper({ title: 'PMID 10135926', blocks }, small).length).toBeGreaterThan(1);
    const whole = chunkDocument({ title: 'PMID 10135926', kind: 'paper', blocks }, small);
    expect(whole).toHaveLength(1);
    expect(whole[0].section).toBe('Introduction; Setting; Methods; Results');
    expect(missingSentences(paragraphsOf(blocks), whole)).toEqual([]);
    const steps: Block[] = [{ type: 'list', ordered: true, items: ['Thaw cells.', 'Spin at 300 g.', 'Resuspend in medium.'] }];
    expect(chunkDocument({ title: 'Thawing', kind: 'protocol', blocks: steps }, small)).toHaveLength(3);
  });

  it('labels merged BACKGROUND / METHODS sections "Background; Methods"', () => {
    const blocks: Block[] = [
      { type: 'heading', level: 2, text: 'BACKGROUND' },
      { type: 'paragraph', text: 'Loss of TFEB has been linked to lysosomal storage phenotypes, but the dose dependence is unknown.' },
      { type: 'heading', level: 2, text: 'METHODS' },
      { type: 'paragraph', text: 'We depleted TFEB in HeLa cells with siRNA and measured LAMP1 by western blot 48 h later.' },
      { type: 'heading', level: 2, text: 'RESULTS' },
      { type: 'paragraph', text: 'LAMP1 fell by 41% (p < 0.01) and autophagic flux by 59%.' },
      { type: 'heading', level: 2, text: 'CONCLUSIONS' },
      { type: 'paragraph', text: 'Lysosomal capacity depends on TFEB dosage.' },
    ];
    const chunks = chunkDocument({ title: 'TFEB dosage', kind: 'paper', blocks }, opts);
    expect(chunks).toHaveLength(1);
    expect(chunks[0].section).toBe('Background; Methods; Results; Conclusions');
  });
});

describe('chunkDocument: heading-less long paper (PDF text)', () => {
  const prose = pubmedProse(35_000);
  const pages: Block[] = [];
  let page = 1;
  let chars = 0;
  pages.push({ type: 'page', number: 1 });
  for (const p of prose) {
    pages.push({ type: 'paragraph', text: p });
    chars += p.length;
    if (chars > page * 3000) {
      page++;
      pages.push({ type: 'page', number: page });
    }
  }
  const blocks: Block[] = [...pages, { type: 'paragraph', text: 'References' }, { type: 'paragraph', text: REFERENCE_LINES.join('\n') }];
  const chunks = chunkDocument({ title: 'Collected abstracts', kind: 'paper', blocks }, opts);
  const bodies = chunks.map(body);
  const source = squash(prose.join(' '));

  it('uses ~35k characters of real prose', () => {
    expect(chars).toBeGreaterThan(34_000);
    expect(chunks.length).toBeGreaterThan(35);
  });

  it('packs to about the size target and never past 1.5x', () => {
    for (const b of bodies) expect(b.length).toBeLessThanOrEqual(MAX);
    const mean = bodies.reduce((n, b) => n + b.length, 0) / bodies.length;
    expect(mean).toBeGreaterThan(opts.size * 0.7);
    expect(mean).toBeLessThanOrEqual(opts.size * 1.05);
    // Only the last chunk may be short.
    for (const b of bodies.slice(0, -1)) expect(b.length).toBeGreaterThan(opts.size * 0.4);
  });

  it('overlaps consecutive chunks by whole sentences', () => {
    let overlapping = 0;
    for (let i = 1; i < chunks.length; i++) {
      const prev = squash(bodies[i - 1]);
      const sentences = sentencesOf(bodies[i]);
      // whole sentences only: some leading run of this chunk's sentences is exactly the previous chunk's end
      const shared = sentences.findIndex((_, k) => prev.endsWith(squash(sentences.slice(0, k + 1).join(' '))));
      if (shared >= 0) {
        overlapping++;
        expect(squash(sentences.slice(0, shared + 1).join(' ')).length).toBeLessThanOrEqual(opts.size / 2);
      } else {
        // no overlap only when the previous chunk ends with a sentence too long to repeat
        const prevSentences = sentencesOf(bodies[i - 1]);
        expect(prevSentences[prevSentences.length - 1].length).toBeGreaterThan(opts.overlap);
      }
    }
    expect(overlapping / (chunks.length - 1)).toBeGreaterThan(0.85);
  });

  it('cuts on sentence boundaries, never mid-word or inside "et al."', () => {
    for (const b of bodies) {
      const start = squash(b).slice(0, 60);
      const at = source.indexOf(start);
      expect(at).toBeGreaterThanOrEqual(0);
      const before = source.slice(0, at);
      if (at > 0) expect(before).toMatch(/[.!?]["')\]]*\s$/);
      expect(before).not.toMatch(/(et al|e\.g|i\.e|Fig|approx)\.\s$/);
      expect(squash(b)).toMatch(/[.!?]["')\]]*$/);
    }
  });

  it('labels chunks by page and drops the trailing reference list', () => {
    expect(chunks[0].section).toBe('p. 1');
    expect(chunks[0].page).toBe(1);
    expect(chunks[chunks.length - 1].page).toBe(page);
    for (const c of chunks) expect(c.section).toBe(`p. ${c.page}`);
    const all = chunks.map((c) => c.text).join('\n');
    expect(all).not.toContain('Smith AB, Jones C.');
    expect(all).not.toContain('PMID 15713898');
    expect(bodies.some((b) => /^References$/m.test(b))).toBe(false);
  });

  it('keeps every sentence of the prose', () => {
    expect(missingSentences(prose, chunks)).toEqual([]);
  });

  it('labels parts when there are no page markers', () => {
    const noPages = chunkDocument(
      { title: 'Collected abstracts', kind: 'paper', blocks: prose.slice(0, 30).map((text): Block => ({ type: 'paragraph', text })) },
      opts,
    );
    expect(noPages.map((c) => c.section).slice(0, 3)).toEqual(['Part 1', 'Part 2', 'Part 3']);
    expect(noPages.every((c) => c.page === undefined)).toBe(true);
  });
});

describe('chunkDocument: PDF quirks', () => {
  it('rejoins a sentence broken by a page break and cites the page it starts on', () => {
    const blocks: Block[] = [
      { type: 'page', number: 3 },
      { type: 'paragraph', text: 'Cells were lysed in RIPA buffer. The lysates were cleared by centrifugation at 14,000 g for' },
      { type: 'page', number: 4 },
      { type: 'paragraph', text: '10 min at 4 °C and stored at -80 °C.' },
      { type: 'paragraph', text: 'Protein was quantified with a BCA assay.' },
    ];
    const chunks = chunkDocument({ title: 'Lysis', kind: 'paper', blocks }, opts);
    expect(chunks).toHaveLength(1);
    expect(body(chunks[0])).toContain('centrifugation at 14,000 g for 10 min at 4 °C');
    expect(chunks[0].page).toBe(3);
    expect(chunks[0].section).toBe('p. 3');
  });

  it('finds section names written as plain lines and nests numbered headings', () => {
    const para = (text: string): Block => ({ type: 'paragraph', text });
    const blocks: Block[] = [
      { type: 'page', number: 1 },
      para('1. Introduction'),
      para('TFEB regulates lysosomal biogenesis. Its dosage has not been studied.'),
      para('2. Materials and Methods'),
      { type: 'page', number: 2 },
      para('HeLa cells were grown in DMEM with 10% FBS.'),
      para('3. Results'),
      para('LAMP1 fell by 41% after knock-down.'),
    ];
    const chunks = chunkPaper({ title: 'TFEB', blocks }, { size: 100, overlap: 10 });
    expect(chunks.map((c) => c.section)).toEqual(['Introduction', 'Materials and Methods', 'Results']);
    expect(chunks[1].page).toBe(2);

    const flat: Block[] = [
      { type: 'heading', level: 1, text: '2. Methods' },
      { type: 'heading', level: 1, text: '2.1 Cell culture' },
      para('HeLa cells were grown in DMEM with 10% FBS.'),
      { type: 'heading', level: 1, text: '3. Results' },
      para('LAMP1 fell by 41% after knock-down.'),
    ];
    const nested = chunkPaper({ title: 'TFEB', blocks: flat }, { size: 60, overlap: 10 });
    expect(nested.map((c) => c.section)).toEqual(['Methods > Cell culture', 'Results']);
  });

  it('drops a numbered reference list given as an ordered list after the last section', () => {
    const blocks: Block[] = [
      { type: 'heading', level: 2, text: 'Discussion' },
      { type: 'paragraph', text: 'TFEB dosage sets lysosomal capacity, as Settembre et al. proposed.' },
      { type: 'list', ordered: true, items: REFERENCE_LINES.map((l) => l.replace(/^\d+\.\s*/, '')) },
    ];
    const chunks = chunkDocument({ title: 'TFEB', kind: 'paper', blocks }, opts);
    expect(chunks).toHaveLength(1);
    expect(body(chunks[0])).not.toContain('Stroke. 1991');
  });
});
