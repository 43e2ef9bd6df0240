// PPTX -> one slide block per slide: title (title placeholder), body (other text shapes, one line
// per paragraph, tables as "a | b" rows) and speaker notes. Slide order is the deck's order
// (presentation.xml), not the part names, which PowerPoint does not renumber after reordering.
import type { Cheerio, CheerioAPI } from 'cheerio';
// cheerio's own type declarations are written against domhandler's node types.
import type { AnyNode } from 'domhandler';
import type { Block, ParsedFile } from '../../types.ts';
import { ParseError } from './errors.ts';
import { readCoreProperties, readXml } from './office.ts';
import { CorruptEntryError, openZip, relsPathFor, resolvePartPath, type ZipReader } from './zip.ts';

export interface PptxOptions {
  maxUncompressedBytes: number;
}

const TITLE_TYPES = new Set(['title', 'ctrTitle']);
// Placeholders whose text is chrome, not content: slide number, date, footer, header, thumbnail.
const CHROME_TYPES = new Set(['sldNum', 'dt', 'ftr', 'hdr', 'sldImg']);

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Relationship id -> resolved part path, for the rels of `part`. */
async function readRels(zip: ZipReader, part: string): Promise<Map<string, { target: string; type: string }>> {
  const rels = new Map<string, { target: string; type: string }>();
  const $ = await readXml(zip, relsPathFor(part));
  if (!$) return rels;
  $('Relationship').each((_, el) => {
    const id = $(el).attr('Id');
    const target = $(el).attr('Target');
    if (!id || !target || $(el).attr('TargetMode') === 'External') return;
    rels.set(id, { target: resolvePartPath(part, target), type: $(el).attr('Type') ?? '' });
  });
  return rels;
}

/** Text of one a:p: runs and fields in order, line breaks as spaces. */
function paragraphText($: CheerioAPI, p: Cheerio<AnyNode>): string {
  const parts: string[] = [];
  p.find('a\\:t, a\\:br').each((_, el) => {
    parts.push(el.type === 'tag' && el.name === 'a:br' ? ' ' : $(el).text());
  });
  return squash(parts.join(''));
}

interface ShapeText {
  placeholder?: string;
  lines: string[];
}

function shapes($: CheerioAPI): ShapeText[] {
  const out: ShapeText[] = [];
  $('p\\:sp, p\\:graphicFrame').each((_, el) => {
    const shape = $(el);
    // Newer shapes come twice inside mc:AlternateContent (mc:Choice and an mc:Fallback copy for
    // old readers): read the choice only.
    if (shape.closest('mc\\:Fallback').length) return;
    if (el.type === 'tag' && el.name === 'p:graphicFrame') {
      const rows: string[] = [];
      shape.find('a\\:tbl a\\:tr').each((_, tr) => {
        const cells = $(tr)
          .children('a\\:tc')
          .map((_, tc) =>
            squash(
              $(tc)
                .find('a\\:p')
                .map((_, p) => paragraphText($, $(p)))
                .get()
                .join(' '),
            ),
          )
          .get();
        if (cells.some(Boolean)) rows.push(cells.join(' | '));
      });
      if (rows.length) out.push({ lines: rows });
      return;
    }
    const ph = shape.find('p\\:nvSpPr p\\:nvPr p\\:ph').first();
    const placeholder = ph.length ? (ph.attr('type') ?? 'body') : undefined;
    const lines = shape
      .find('p\\:txBody a\\:p')
      .map((_, p) => paragraphText($, $(p)))
      .get()
      .filter(Boolean);
    out.push({ placeholder, lines });
  });
  return out;
}

interface SlideText {
  number: number;
  title: string;
  body: string;
  notes: string;
}

function slideText($: CheerioAPI): { title: string; body: string } {
  const all = shapes($).filter((s) => !(s.placeholder && CHROME_TYPES.has(s.placeholder)));
  const titleShape = all.find((s) => s.placeholder && TITLE_TYPES.has(s.placeholder));
  let title = titleShape ? squash(titleShape.lines.join(' ')) : '';
  let rest = all.filter((s) => s !== titleShape);
  if (!titleShape) {
    // Decks built without layouts have no title placeholder: a first text box holding a single
    // short line is the title in all but name.
    const first = rest.find((s) => s.lines.length > 0);
    if (first && first.lines.length === 1 && first.lines[0].length <= 100 && !first.lines[0].includes(' | ')) {
      title = first.lines[0];
      rest = rest.filter((s) => s !== first);
    }
  }
  return { title, body: rest.flatMap((s) => s.lines).join('\n') };
}

function notesText($: CheerioAPI): string {
  return shapes($)
    .filter((s) => s.placeholder === undefined || !CHROME_TYPES.has(s.placeholder))
    .flatMap((s) => s.lines)
    .join('\n');
}

async function slideOrder(zip: ZipReader): Promise<string[]> {
  const pres = await readXml(zip, 'ppt/presentation.xml');
  if (!pres) throw new ParseError('not a valid PPTX (no ppt/presentation.xml)');
  const rels = await readRels(zip, 'ppt/presentation.xml');
  const ordered = pres('p\\:sldIdLst p\\:sldId')
    .map((_, el) => rels.get(pres(el).attr('r:id') ?? '')?.target)
    .get()
    .filter((p): p is string => typeof p === 'string');
  if (ordered.length) return ordered;
  // No slide list: fall back to the part names, numerically.
  const num = (p: string) => Number(/(\d+)\.xml$/.exec(p)?.[1] ?? 0);
  return zip
    .paths()
    .filter((p) => /^ppt\/slides\/slide\d+\.xml$/.test(p))
    .sort((a, b) => num(a) - num(b));
}

export async function parsePptx(bytes: Uint8Array, opts: PptxOptions): Promise<ParsedFile> {
  const zip = await openZip(bytes, opts.maxUncompressedBytes, 'PPTX');
  const order = await slideOrder(zip);
  const warnings: string[] = [];
  const slides: SlideText[] = [];
  // A damaged slide or notes page is skipped with a warning; the rest of the deck still counts.
  const lenient = async <T>(read: () => Promise<T>, what: string): Promise<T | undefined> => {
    try {
      return await read();
    } catch (err) {
      if (!(err instanceof CorruptEntryError)) throw err;
      warnings.push(`${what} could not be read (corrupt); skipped`);
      return undefined;
    }
  };
  for (const [index, part] of order.entries()) {
    const number = index + 1;
    const $ = await lenient(() => readXml(zip, part), `slide ${number}`);
    if (!$) {
      if (!warnings.some((w) => w.startsWith(`slide ${number} `))) warnings.push(`slide ${number} (${part}) is missing`);
      continue;
    }
    const { title, body } = slideText($);
    let notes = '';
    const rels = (await lenient(() => readRels(zip, part), `links of slide ${number}`)) ?? new Map();
    const notesPart = [...rels.values()].find((r) => r.type.endsWith('/notesSlide'))?.target;
    if (notesPart) {
      const n$ = await lenient(() => readXml(zip, notesPart), `notes of slide ${number}`);
      if (n$) notes = notesText(n$);
    }
    slides.push({ number, title, body, notes });
  }
  if (order.length === 0) throw new ParseError('presentation has no slides');

  const blocks: Block[] = slides.map((s) => ({ type: 'slide', ...s }));
  const meta = await readCoreProperties(zip);
  if (!meta.title) {
    const firstTitle = slides.find((s) => s.title)?.title;
    if (firstTitle) meta.title = firstTitle;
  }
  return { format: 'pptx', blocks, meta, warnings };
}
