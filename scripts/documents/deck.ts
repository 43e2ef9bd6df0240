// Slide decks for the sample lab and the test fixtures: a title, bullets, an optional table and
// speaker notes per slide, laid out either in free text boxes (as most decks are made) or in a
// slide master's title and body placeholders (as templates make them).
import PptxGenJS from 'pptxgenjs';
import { withFixedDates } from './zip-dates.ts';

export interface SlideSpec {
  title: string;
  bullets: string[];
  notes: string;
  table?: string[][];
}

export interface DeckOptions {
  title: string;
  author: string;
  company?: string;
  subject?: string;
  layout: 'boxes' | 'placeholders';
  /** Fixes every date in the file (byte-stable output); left out, pptxgenjs stamps "now". */
  created?: string;
}

function addBoxes(pptx: PptxGenJS, spec: SlideSpec): void {
  const slide = pptx.addSlide();
  slide.addText(spec.title, { x: 0.5, y: 0.3, w: 9, h: 0.8, fontSize: 28, bold: true });
  slide.addText(
    spec.bullets.map((text) => ({ text, options: { bullet: true } })),
    { x: 0.5, y: 1.3, w: spec.table ? 4.5 : 9, h: 3.5, fontSize: 18, valign: 'top' },
  );
  if (spec.table) {
    slide.addTable(
      spec.table.map((row) => row.map((text) => ({ text }))),
      { x: 5.2, y: 1.3, w: 4.3, fontSize: 12, border: { type: 'solid', pt: 0.5, color: '999999' } },
    );
  }
  slide.addNotes(spec.notes);
}

function addToMaster(pptx: PptxGenJS, spec: SlideSpec): void {
  const slide = pptx.addSlide({ masterName: 'LAB' });
  slide.addText(spec.title, { placeholder: 'title' });
  slide.addText(
    spec.bullets.map((b) => ({ text: b, options: { bullet: true, breakLine: true } })),
    { placeholder: 'body' },
  );
  if (spec.table)
    slide.addTable(
      spec.table.map((row) => row.map((text) => ({ text }))),
      { x: 0.5, y: 3.9, w: 6 },
    );
  slide.addNotes(spec.notes);
}

export async function makeDeck(slides: SlideSpec[], opts: DeckOptions): Promise<Uint8Array> {
  const pptx = new PptxGenJS();
  pptx.layout = 'LAYOUT_16x9';
  pptx.title = opts.title;
  pptx.author = opts.author;
  if (opts.company) pptx.company = opts.company;
  if (opts.subject) pptx.subject = opts.subject;
  if (opts.layout === 'placeholders') {
    pptx.defineSlideMaster({
      title: 'LAB',
      objects: [
        { placeholder: { options: { name: 'title', type: 'title', x: 0.5, y: 0.3, w: 9, h: 0.8 }, text: '' } },
        { placeholder: { options: { name: 'body', type: 'body', x: 0.5, y: 1.3, w: 9, h: 2.5 }, text: '' } },
      ],
    });
  }
  for (const spec of slides) (opts.layout === 'boxes' ? addBoxes : addToMaster)(pptx, spec);
  const out = await pptx.write({ outputType: 'nodebuffer' });
  if (!(out instanceof Uint8Array)) throw new Error('pptxgenjs did not return bytes');
  return opts.created ? new Uint8Array(await withFixedDates(out, opts.created)) : new Uint8Array(out);
}
