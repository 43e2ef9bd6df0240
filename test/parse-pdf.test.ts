import { beforeAll, describe, expect, it } from 'vitest';
import { PDFParse } from 'pdf-parse';
import { parseFile } from '../src/ingest/parse/index.ts';
import type { Block, ParsedFile } from '../src/types.ts';
import {
  MEMO_PARAGRAPHS,
  PAPER_AUTHORS,
  PAPER_DOI,
  PAPER_HEADER,
  PAPER_TITLE,
  makeHeadinglessPdf,
  makeImageOnlyPdf,
  makePaperPdf,
  makePdfWithBlankPage,
} from './fixtures/make.ts';

const headings = (blocks: Block[]) => blocks.flatMap((b) => (b.type === 'heading' ? [[b.level, b.text] as const] : []));
const paragraphs = (blocks: Block[]) => blocks.flatMap((b) => (b.type === 'paragraph' ? [b.text] : []));

describe('a research paper PDF', () => {
  let bytes: Uint8Array;
  let paper: ParsedFile;
  beforeAll(async () => {
    bytes = await makePaperPdf();
    paper = await parseFile({ name: 'fission.pdf', bytes });
  });

  it('is a real three-page PDF with hyphenated line ends (fixture sanity)', async () => {
    const raw = await new PDFParse({ data: bytes.slice() }).getText();
    expect(raw.pages).toHaveLength(3);
    expect(raw.pages[0].text).toMatch(/compo-\n/);
    expect(raw.text).toMatch(/[a-z]-\n[a-z]/);
  });

  it('finds the section headings in order, with levels from their numbering', () => {
    expect(headings(paper.blocks)).toEqual([
      [1, 'Abstract'],
      [1, '1. Introduction'],
      [1, '2. Methods'],
      [2, '2.1 Cell culture'],
      [2, '2.2 Live imaging'],
      [1, '3. Results'],
      [1, '4. Discussion'],
      [1, 'Acknowledgements'],
      [1, 'References'],
    ]);
  });

  it('marks page boundaries, starting with page 1', () => {
    const pages = paper.blocks.flatMap((b) => (b.type === 'page' ? [b.number] : []));
    expect(pages).toEqual([1, 2, 3]);
    expect(paper.blocks[0]).toEqual({ type: 'page', number: 1 });
  });

  it('strips the running header and the page numbers', () => {
    const all = JSON.stringify(paper.blocks);
    expect(all).not.toContain('Journal of Laboratory Methods');
    expect(PAPER_HEADER).toContain('Journal of Laboratory Methods');
    expect(paragraphs(paper.blocks).filter((p) => /^\d+$/.test(p))).toEqual([]);
  });

  it('rebuilds paragraphs: joined lines, undone hyphenation, split where paragraphs end', () => {
    const paras = paragraphs(paper.blocks);
    const intro = paras.filter((p) => p.startsWith('Mitochondrial dynamics') || p.startsWith('Low oxygen'));
    expect(intro).toHaveLength(2);
    expect(intro[0]).toMatch(/^Mitochondrial dynamics are governed .* tubular or fragmented\.$/);
    expect(paras.join(' ')).not.toMatch(/\b\p{L}+- \p{Ll}/u);
    expect(paras.some((p) => p.includes('The methods below were approved'))).toBe(true);
    expect(paras.some((p) => p.includes('dynamin-related protein DRP1'))).toBe(true);
  });

  it('continues a paragraph across a page break and keeps it on the page where it starts', () => {
    const i = paper.blocks.findIndex((b) => b.type === 'paragraph' && b.text.includes('gas composition. Stacks of eleven planes'));
    expect(i).toBeGreaterThan(0);
    const page2 = paper.blocks.findIndex((b) => b.type === 'page' && b.number === 2);
    expect(page2).toBe(i + 1);
  });

  it('keeps the title apart and splits the reference list into entries', () => {
    expect(paragraphs(paper.blocks)[0]).toBe(PAPER_TITLE);
    const refs = paper.blocks.slice(paper.blocks.findIndex((b) => b.type === 'heading' && b.text === 'References') + 1);
    expect(paragraphs(refs).map((p) => p.slice(0, 3))).toEqual(['[1]', '[2]', '[3]', '[4]', '[5]', '[6]']);
  });

  it('reads title and authors from the info dictionary, the DOI printed on page 1, and the year from the journal line (not CreationDate)', () => {
    expect(paper.meta).toEqual({ title: PAPER_TITLE, authors: PAPER_AUTHORS });
    expect(paper.textLayers).toEqual([
      { origin: 'text', meta: { doi: PAPER_DOI } },
      { origin: 'text', inferred: true, meta: { title: PAPER_TITLE, authors: PAPER_AUTHORS, year: 2021 } },
    ]);
    expect(paper.warnings).toEqual([]);
  });
});

describe('PDF variants', () => {
  it('splits a BibTeX-style info author and guesses a missing title from page 1', async () => {
    const bytes = await makePaperPdf({
      authors: ['Jane Smith', 'Kim Lee'],
      infoAuthor: 'Smith, Jane and Lee, Kim',
      infoTitle: null,
      doi: '10.5555/other.7',
    });
    const r = await parseFile({ name: 'p.pdf', bytes });
    expect(r.meta.authors).toEqual(['Jane Smith', 'Kim Lee']);
    expect(r.meta.title).toBeUndefined();
    expect(r.textLayers?.find((l) => l.inferred)?.meta.title).toBe(PAPER_TITLE);
    expect(r.textLayers?.find((l) => !l.inferred)?.meta.doi).toBe('10.5555/other.7');
  });

  it('drops an info Author that is the account or publisher that wrote the file, not the printed byline', async () => {
    for (const infoAuthor of ['ibm', 'Cambridge Journals', 'Rahul Patel']) {
      const r = await parseFile({ name: 'p.pdf', bytes: await makePaperPdf({ infoAuthor }) });
      expect(r.meta.authors, infoAuthor).toBeUndefined();
      expect(r.textLayers?.find((l) => l.inferred)?.meta.authors).toEqual(PAPER_AUTHORS);
    }
    expect((await parseFile({ name: 'p.pdf', bytes: await makePaperPdf({ infoTitle: 'doi:' }) })).meta.title).toBeUndefined();
    expect(
      (await parseFile({ name: 'p.pdf', bytes: await makePaperPdf({ infoTitle: 'OECS12_abstract_Muller1' }) })).meta.title,
    ).toBeUndefined();
  });

  it('reads subject keywords from the info dictionary, leaving a DOI listed there out', async () => {
    const bytes = await makePaperPdf({ infoKeywords: 'hypoxia; Drp1, doi:10.1234/jlm.2021.0042; mitochondrial fission' });
    expect((await parseFile({ name: 'p.pdf', bytes })).meta.keywords).toEqual(['hypoxia', 'Drp1', 'mitochondrial fission']);
  });

  it('ignores junk info titles', async () => {
    const bytes = await makePaperPdf({ infoTitle: 'Microsoft Word - draft3.docx' });
    const r = await parseFile({ name: 'p.pdf', bytes });
    expect(r.meta.title).toBeUndefined();
    expect(r.textLayers?.find((l) => l.inferred)?.meta.title).toBe(PAPER_TITLE);
  });

  it('recognises IEEE-style roman and ALL CAPS headings, and keeps numbered steps and table rows as text', async () => {
    const bytes = await makePaperPdf({
      runningHeader: false,
      sections: [
        { heading: 'I. INTRODUCTION', paragraphs: ['Cells respond to low oxygen within hours. We measured how quickly.'] },
        { heading: 'MATERIALS AND METHODS', paragraphs: ['The procedure had three steps.'] },
        {
          heading: 'Procedure',
          compact: true,
          paragraphs: ['1. Wash the cells twice with cold PBS.', '2. Add lysis buffer.', '3. Scrape and collect.'],
        },
        { heading: 'III. RESULTS', paragraphs: ['Lysates were clear.'] },
        { heading: 'Table 1. Fission rate per cell', compact: true, paragraphs: ['1 Control 0.82 0.31', '2 Hypoxia 1.71 0.45'] },
      ],
    });
    const r = await parseFile({ name: 'ieee.pdf', bytes });
    expect(headings(r.blocks)).toEqual([
      [1, 'I. INTRODUCTION'],
      [1, 'MATERIALS AND METHODS'],
      [1, 'III. RESULTS'],
    ]);
    expect(paragraphs(r.blocks)).toEqual(
      expect.arrayContaining(['Procedure', '1. Wash the cells twice with cold PBS.', '2. Add lysis buffer.']),
    );
  });

  it('keeps an unnumbered subheading apart from the paragraph it introduces', async () => {
    const bytes = await makePaperPdf({
      runningHeader: false,
      sections: [
        {
          heading: 'Methods',
          paragraphs: ['All cell lines were authenticated and tested for mycoplasma every month by the core facility.'],
        },
        {
          heading: 'Cell culture and hypoxia',
          paragraphs: [
            'HEK293T cells were grown in DMEM with ten percent serum and moved to one percent oxygen for sixteen hours before lysis.',
          ],
        },
      ],
    });
    const r = await parseFile({ name: 'sub.pdf', bytes });
    const paras = paragraphs(r.blocks);
    const i = paras.indexOf('Cell culture and hypoxia');
    expect(i).toBeGreaterThan(0);
    expect(paras[i + 1]).toMatch(/^HEK293T cells were grown/);
    expect(headings(r.blocks)).toEqual([[1, 'Methods']]);
  });

  it('reads a PDF without headings as paragraphs only', async () => {
    const r = await parseFile({ name: 'memo.pdf', bytes: await makeHeadinglessPdf() });
    expect(headings(r.blocks)).toEqual([]);
    expect(paragraphs(r.blocks)).toEqual(MEMO_PARAGRAPHS);
    expect(r.blocks.filter((b) => b.type === 'page')).toHaveLength(2);
    expect(r.meta.title).toBeUndefined();
  });

  it('warns about a page without text', async () => {
    const r = await parseFile({ name: 'blank.pdf', bytes: await makePdfWithBlankPage() });
    expect(r.warnings).toEqual(['page 2 has no text (scanned or image-only?)']);
    expect(paragraphs(r.blocks)).toEqual(['Only the first page has any text on it.']);
  });

  it('refuses a PDF with no text at all', async () => {
    await expect(parseFile({ name: 'scan.pdf', bytes: await makeImageOnlyPdf() })).rejects.toThrow(
      'scan.pdf: no extractable text (scanned PDF?)',
    );
  });
});
