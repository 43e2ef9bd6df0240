import { beforeAll, describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import { parseFile } from '../src/ingest/parse/index.ts';
import type { Block, ParsedFile } from '../src/types.ts';
import { DECK_AUTHOR, DECK_SLIDES, DECK_TITLE, DOCX_AUTHOR, DOCX_TITLE, makeDocx, makeSlidesPptx } from './fixtures/make.ts';

type Slide = Extract<Block, { type: 'slide' }>;
const slides = (blocks: Block[]) => blocks.filter((b): b is Slide => b.type === 'slide');

describe('PPTX', () => {
  let deck: ParsedFile;
  beforeAll(async () => {
    deck = await parseFile({ name: 'update.pptx', bytes: await makeSlidesPptx() });
  });

  it('gives one slide block per slide, numbered in order, with titles from the title placeholder', () => {
    expect(deck.format).toBe('pptx');
    expect(deck.blocks.every((b) => b.type === 'slide')).toBe(true);
    expect(slides(deck.blocks).map((s) => [s.number, s.title])).toEqual(DECK_SLIDES.map((s, i) => [i + 1, s.title]));
  });

  it('puts one line per bullet in the body, and tables as "a | b" rows', () => {
    const [one, two, three] = slides(deck.blocks);
    expect(one.body).toBe(DECK_SLIDES[0].bullets.join('\n'));
    expect(two.body.split('\n')).toEqual(DECK_SLIDES[1].bullets);
    expect(three.body.split('\n')).toEqual([
      'Top hit: VPS35',
      'Second: RAB7A',
      'Gene | log2FC | FDR',
      'VPS35 | -3.2 | 0.001',
      'RAB7A | -2.7 | 0.004',
    ]);
  });

  it('attaches speaker notes to their own slide, without the slide-number placeholder', () => {
    expect(slides(deck.blocks).map((s) => s.notes)).toEqual(DECK_SLIDES.map((s) => s.notes));
    expect(slides(deck.blocks)[1].notes).toContain('350x in replicate B');
  });

  it('reads title and author from the core properties', () => {
    expect(deck.meta.title).toBe(DECK_TITLE);
    expect(deck.meta.authors).toEqual([DECK_AUTHOR]);
  });

  it('follows the deck order in presentation.xml, not the part names', async () => {
    const zip = await JSZip.loadAsync(await makeSlidesPptx());
    const pres = await zip.file('ppt/presentation.xml')!.async('string');
    const list = /<p:sldIdLst>(.*?)<\/p:sldIdLst>/.exec(pres)![1];
    const ids = list.match(/<p:sldId [^>]*\/>/g)!;
    zip.file('ppt/presentation.xml', pres.replace(list, [...ids].reverse().join('')));
    zip.remove('docProps/core.xml');
    const reordered = await parseFile({ name: 'r.pptx', bytes: await zip.generateAsync({ type: 'uint8array' }) });
    const s = slides(reordered.blocks);
    expect(s.map((x) => x.title)).toEqual(DECK_SLIDES.map((x) => x.title).reverse());
    expect(s.map((x) => x.number)).toEqual([1, 2, 3, 4]);
    expect(s[0].notes).toBe(DECK_SLIDES[3].notes);
    // Without core properties, the first slide's title names the deck.
    expect(reordered.meta.title).toBe(DECK_SLIDES[3].title);
  });

  it('reads shapes in mc:AlternateContent once, from the choice', async () => {
    const zip = await JSZip.loadAsync(await makeSlidesPptx());
    const slide = await zip.file('ppt/slides/slide1.xml')!.async('string');
    const shape = (text: string) =>
      `<p:sp><p:nvSpPr><p:cNvPr id="9" name="Eq"/><p:cNvSpPr/><p:nvPr/></p:nvSpPr><p:txBody><a:p><a:r><a:t>${text}</a:t></a:r></a:p></p:txBody></p:sp>`;
    const alt =
      '<mc:AlternateContent xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006">' +
      `<mc:Choice Requires="a14">${shape('Growth rate k = 0.3 per hour')}</mc:Choice>` +
      `<mc:Fallback>${shape('Growth rate k = 0.3 per hour')}</mc:Fallback></mc:AlternateContent>`;
    zip.file('ppt/slides/slide1.xml', slide.replace('</p:spTree>', `${alt}</p:spTree>`));
    const r = await parseFile({ name: 'alt.pptx', bytes: await zip.generateAsync({ type: 'uint8array' }) });
    const body = slides(r.blocks)[0].body;
    expect(body.split('\n').filter((l) => l === 'Growth rate k = 0.3 per hour')).toHaveLength(1);
  });

  it('refuses a file that is not a zip', async () => {
    await expect(parseFile({ name: 'x.pptx', bytes: new TextEncoder().encode('not a zip at all') })).rejects.toThrow(
      'not a valid PPTX (truncated or corrupt)',
    );
  });

  it('refuses a zip without a presentation', async () => {
    const zip = new JSZip();
    zip.file('hello.txt', 'hi');
    const bytes = await zip.generateAsync({ type: 'uint8array' });
    await expect(parseFile({ name: 'x.pptx', bytes })).rejects.toThrow('not a valid PPTX (no ppt/presentation.xml)');
  });
});

describe('DOCX', () => {
  let doc: ParsedFile;
  beforeAll(async () => {
    doc = await parseFile({ name: 'western.docx', bytes: await makeDocx({ created: new Date('2019-05-01T09:00:00Z') }) });
  });

  it('maps headings, paragraphs, the table and the numbered list to blocks, in order', () => {
    expect(doc.format).toBe('docx');
    expect(doc.blocks).toEqual([
      { type: 'heading', level: 1, text: 'Western blot protocol' },
      { type: 'heading', level: 1, text: 'Purpose' },
      { type: 'paragraph', text: 'This protocol describes protein transfer and immunodetection for whole-cell lysates.' },
      { type: 'heading', level: 1, text: 'Reagents' },
      {
        type: 'table',
        header: ['Reagent', 'Supplier', 'Catalogue number'],
        rows: [
          ['Transfer buffer', 'Bio-Rad', '1610734'],
          ['PVDF membrane', 'Millipore', 'IPVH00010'],
        ],
      },
      { type: 'heading', level: 1, text: 'Procedure' },
      { type: 'heading', level: 2, text: 'Transfer' },
      {
        type: 'list',
        ordered: true,
        items: [
          'Equilibrate the gel in transfer buffer for 10 minutes.',
          'Activate the PVDF membrane in methanol for 30 seconds.',
          'Assemble the sandwich and transfer at 100 V for 60 minutes on ice.',
        ],
      },
      { type: 'paragraph', text: 'Keep the tank cold throughout the transfer.' },
    ]);
  });

  it('reads title, creator and creation year from the core properties', () => {
    expect(doc.meta).toMatchObject({ title: DOCX_TITLE, authors: [DOCX_AUTHOR], year: 2019 });
    expect(doc.warnings).toEqual([]);
  });

  it('refuses an archive that expands beyond the limit', async () => {
    const bytes = await makeDocx();
    await expect(parseFile({ name: 'w.docx', bytes }, { maxUncompressedBytes: 2000 })).rejects.toThrow(
      'w.docx: archive expands beyond 0.0019 MB (zip bomb?)',
    );
  });

  it('refuses a zip that is not a Word document', async () => {
    const zip = new JSZip();
    zip.file('word/other.xml', '<x/>');
    const bytes = await zip.generateAsync({ type: 'uint8array' });
    await expect(parseFile({ name: 'x.docx', bytes })).rejects.toThrow('not a valid DOCX (no word/document.xml)');
  });
});
