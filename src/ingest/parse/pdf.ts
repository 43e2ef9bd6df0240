// PDF -> Blocks. pdf-parse gives one string per page with one line per text line and nothing
// else (no fonts, no spacing), so structure is rebuilt from the text alone:
//  - running headers/footers: lines repeated at the top or bottom of most pages, page numbers;
//  - headings: short lines naming a known paper section, or numbered like "2.1 Cell culture";
//  - paragraphs: lines joined until a sentence ends on a short line (the last line of a
//    paragraph rarely fills the column), de-hyphenating "meth-" + "ods";
//  - a paragraph cut by a page break continues on the next page (it is attributed to the page
//    it starts on).
import { PDFParse } from 'pdf-parse';
import type { Block, DocMeta, ParsedFile } from '../../types.ts';
import { coerceKeywords, findDoi, normalizeDoi, splitAuthors } from '../metadata/coerce.ts';
import { ParseError } from './errors.ts';
import { frontPageMeta } from './pdf-front-page.ts';
import { readFirstPageLayout } from './pdf-layout.ts';

// Some producers put the DOI among the keywords; it is kept as the DOI, not as a subject term.
const DOI_LIKE = /(?:doi:?\s*)?10\.\d{4,9}\/\S+/gi;

export interface PdfOptions {
  /** Aborting stops pdf.js and rejects with a ParseError. */
  signal?: AbortSignal;
}

const KNOWN_SECTIONS = new Set([
  'abstract',
  'summary',
  'graphical abstract',
  'highlights',
  'significance',
  'significance statement',
  'introduction',
  'background',
  'materials and methods',
  'material and methods',
  'methods and materials',
  'methods',
  'method',
  'methodology',
  'experimental procedures',
  'experimental section',
  'experimental',
  'star methods',
  'star★methods',
  'method details',
  'key resources table',
  'resource availability',
  'quantification and statistical analysis',
  'statistical analysis',
  'results',
  'results and discussion',
  'discussion',
  'conclusion',
  'conclusions',
  'concluding remarks',
  'limitations',
  'outlook',
  'references',
  'bibliography',
  'literature cited',
  'references and notes',
  'works cited',
  'acknowledgements',
  'acknowledgments',
  'acknowledgement',
  'acknowledgment',
  'supplementary material',
  'supplementary materials',
  'supplementary information',
  'supplementary data',
  'supplemental information',
  'supplementary figures',
  'supplementary tables',
  'supporting information',
  'appendix',
  'appendices',
  'author contributions',
  'funding',
  'data availability',
  'data availability statement',
  'code availability',
  'competing interests',
  'conflict of interest',
  'conflicts of interest',
  'declaration of interests',
  'declaration of competing interest',
  'ethics statement',
  'abbreviations',
  'figure legends',
  'glossary',
]);
// The named sections of a protocol. Only a line that is exactly one of these is a heading.
const PROTOCOL_SECTIONS = new Set([
  'materials',
  'reagents',
  'equipment',
  'materials and reagents',
  'reagents and equipment',
  'materials and equipment',
  'reagent setup',
  'equipment setup',
  'you will need',
  'procedure',
  'steps',
  'notes',
  'troubleshooting',
  'safety',
  'timing',
  'anticipated results',
  'expected results',
  'before start',
  'before you begin',
  'guidelines',
  'materiales',
  'reactivos',
  'equipos',
  'procedimiento',
  'pasos',
  'notas',
  'seguridad',
]);
const METHODS_SECTIONS = new Set([
  'materials and methods',
  'material and methods',
  'methods and materials',
  'methods',
  'method',
  'methodology',
  'experimental procedures',
  'experimental section',
  'experimental',
  'star methods',
  'method details',
]);
const REFERENCE_SECTIONS = new Set(['references', 'bibliography', 'literature cited', 'references and notes', 'works cited']);

const STEP_LINE = /^(?:step|paso|etapa)\s*\d{1,3}\b/i;
const SENTENCE_END = /[.!?:;]["'\u201D\u2019)\]]*$/;
const BULLET_START = /^([\u2022\u25AA\u25CF\u2023\u2043\u25E6*]|[-\u2013]\s|\(?\d{1,2}\)\s|\[\d{1,3}\])/;
const PAGE_NUMBER = /^(?:page\s*)?[-\u2013\u2014]?\s*\d{1,4}\s*[-\u2013\u2014]?(?:\s*(?:of|\/)\s*\d{1,4})?$/i;
const ROMAN = /^(I|II|III|IV|V|VI|VII|VIII|IX|X|XI|XII)\.\s+(\S.*)$/;
const NUMBERED = /^(\d{1,2}(?:\.\d{1,2}){0,3})\.?\s+(\S.*)$/;
const JUNK_TITLE = /^(untitled|microsoft (word|powerpoint) - |document\d*$|slide \d+$)|\.(docx?|pdf|tex|dvi|indd|qxd|rtf)$/i;
const JUNK_AUTHOR = /^(administrator|admin|user|owner|unknown|author|default|microsoft office user)$/i;

/** Lower-case text without trailing ":" or "." (long lines are never section names). */
const sectionKey = (text: string) =>
  text.length > 100
    ? ''
    : text
        .toLowerCase()
        .replace(/[:.\s]+$/, '')
        .replace(/\s+/g, ' ')
        .trim();

interface Heading {
  level: number;
  text: string;
  /** Text on the same line after the heading ("Abstract: We ..."). */
  rest?: string;
}

const wordCount = (s: string) => s.split(/\s+/).filter(Boolean).length;

/** Title-like text after a section number: capitalised, short, not a sentence. */
function titleish(rest: string): boolean {
  return (
    /^[\p{Lu}\d]/u.test(rest) &&
    /\p{L}{2}/u.test(rest) &&
    wordCount(rest) <= 12 &&
    !/[.;,:]$/.test(rest) &&
    (rest.match(/,/g) ?? []).length < 3 &&
    !/\bet al\b/i.test(rest) &&
    // "1 Control 0.52 0.31" is a table row, not a section.
    rest.split(/\s+/).filter((w) => /^[-+±]?[\d.,%]+$/.test(w)).length < 2
  );
}

function detectHeading(line: string, inReferences: boolean, continuesSentence: boolean, inMethods = false): Heading | undefined {
  if (line.length > 80) return undefined;
  const key = sectionKey(line);
  // Inside a paper's Methods, "Procedure" or "Reagents" name a part of the methods: kept as text.
  if ((KNOWN_SECTIONS.has(key) || (PROTOCOL_SECTIONS.has(key) && !inMethods)) && !/[.,;]$/.test(line.replace(/:$/, '')))
    return { level: 1, text: line.replace(/[:\s]+$/, '') };

  const inline = /^(abstract)\s*[:.\u2014\u2013]\s*(\S.*)$/i.exec(line);
  if (inline) return { level: 1, text: inline[1], rest: inline[2] };

  const numbered = NUMBERED.exec(line);
  if (numbered) {
    const parts = numbered[1].split('.');
    const rest = numbered[2].trim();
    const restKey = sectionKey(rest);
    if (
      Number(parts[0]) >= 1 &&
      Number(parts[0]) <= 30 &&
      (KNOWN_SECTIONS.has(restKey) || (!inReferences && !continuesSentence && titleish(rest)))
    ) {
      return { level: Math.min(parts.length, 6), text: `${numbered[1]}${parts.length === 1 ? '.' : ''} ${rest}` };
    }
  }
  const roman = ROMAN.exec(line);
  if (roman && (KNOWN_SECTIONS.has(sectionKey(roman[2])) || (!inReferences && !continuesSentence && titleish(roman[2])))) {
    return { level: 1, text: line };
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Page chrome

const chromeKey = (line: string) => line.toLowerCase().replace(/\d+/g, '#').replace(/\s+/g, ' ').trim();
const EDGE = 3;

const MAX_CHROME_LENGTH = 120;

/**
 * Remove running headers/footers and page numbers: lines near the top (or bottom) of a page
 * that recur near the top (or bottom) of at least half the pages, digits ignored so that
 * "Page 3 of 9" and "J Lab Methods 12 (2021) 347" match their siblings.
 */
function stripPageChrome(pages: string[][]): string[][] {
  const withText = pages.filter((p) => p.length > 0).length;
  const top = (lines: string[]) => [...Array(Math.min(EDGE, lines.length)).keys()];
  const bottom = (lines: string[]) => [...Array(Math.min(EDGE, lines.length)).keys()].map((k) => lines.length - 1 - k);
  const count = (pick: (lines: string[]) => number[]) => {
    const counts = new Map<string, number>();
    for (const lines of pages) {
      for (const k of new Set(pick(lines).map((i) => chromeKey(lines[i])))) counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    return counts;
  };
  const topCounts = count(top);
  const bottomCounts = count(bottom);
  const threshold = Math.max(2, Math.ceil(withText * 0.5));
  const isChrome = (line: string, counts: Map<string, number>) =>
    withText >= 2 &&
    line.length <= MAX_CHROME_LENGTH &&
    (counts.get(chromeKey(line)) ?? 0) >= threshold &&
    !KNOWN_SECTIONS.has(sectionKey(line));
  // A bare number at a page's edge is a page number when it counts with the pages (on two pages
  // at the same offset, or on the one page it numbers): a protocol's step "4" at the top of page 2
  // is content.
  const pageNumbers = (pick: (lines: string[]) => number[]) => {
    const found = pages.flatMap((lines, p) =>
      pick(lines)
        .filter((i) => PAGE_NUMBER.test(lines[i]))
        .map((i) => ({ page: p + 1, offset: Number(/\d+/.exec(lines[i])![0]) - (p + 1) })),
    );
    const byOffset = new Map<number, number>();
    for (const f of found) byOffset.set(f.offset, (byOffset.get(f.offset) ?? 0) + 1);
    const offsets = new Set([...byOffset].filter(([o, n]) => n >= 2 || (found.length === 1 && o === 0)).map(([o]) => o));
    return (line: string, page: number) => PAGE_NUMBER.test(line) && offsets.has(Number(/\d+/.exec(line)![0]) - page);
  };
  const topNumber = pageNumbers((lines) => top(lines).filter((i) => i <= 1));
  const bottomNumber = pageNumbers((lines) => bottom(lines).filter((i) => i >= lines.length - 2));
  return pages.map((lines, p) => {
    const drop = new Set<number>();
    for (const i of top(lines)) if (isChrome(lines[i], topCounts) || (i <= 1 && topNumber(lines[i], p + 1))) drop.add(i);
    for (const i of bottom(lines)) {
      if (isChrome(lines[i], bottomCounts) || (i >= lines.length - 2 && bottomNumber(lines[i], p + 1))) drop.add(i);
    }
    return lines.filter((_, i) => !drop.has(i));
  });
}

// ---------------------------------------------------------------------------------------------
// Paragraphs

function buildVocabulary(pages: string[][]): Set<string> {
  const vocab = new Set<string>();
  for (const lines of pages) {
    for (const line of lines) {
      const words = line.toLowerCase().match(/[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)*/gu) ?? [];
      // The last word of a line ending in "-" is a fragment, not a word.
      const usable = line.endsWith('-') ? words.slice(0, -1) : words;
      for (const w of usable) vocab.add(w);
    }
  }
  return vocab;
}

/** Join a line onto a paragraph, undoing end-of-line hyphenation where it was hyphenation. */
function joinLine(para: string, line: string, vocab: Set<string>): string {
  if (!para) return line;
  const lastWord = para.endsWith('-') ? para.slice(para.lastIndexOf(' ') + 1, -1) : '';
  const hyphen = /(\p{L}+)$/u.exec(lastWord.slice(-64));
  if (hyphen && /^\p{Ll}/u.test(line)) {
    const head = hyphen[1].toLowerCase();
    const tail = (/^[\p{L}]+/u.exec(line)?.[0] ?? '').toLowerCase();
    const keepHyphen = vocab.has(`${head}-${tail}`) && !vocab.has(`${head}${tail}`);
    return keepHyphen ? `${para}${line}` : `${para.slice(0, -1)}${line}`;
  }
  if (/[\p{L}\d]-$/u.test(para.slice(-2)) && /^[\p{Lu}\d]/u.test(line)) return `${para}${line}`; // "anti-" + "CD3"
  return `${para} ${line}`;
}

function percentile(values: number[], p: number): number {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

const normTitle = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

interface BuildResult {
  blocks: Block[];
}

/** The length of a full line of body text (lines fill the column except where paragraphs end). */
const fullLineLength = (pages: string[][]) =>
  percentile(
    pages
      .flat()
      .map((l) => l.length)
      .filter((n) => n >= 20),
    0.8,
  ) || 80;

function buildBlocks(pages: string[][], title: string | undefined): BuildResult {
  const vocab = buildVocabulary(pages);
  const full = fullLineLength(pages);
  const shortLine = (l: string) => l.length < full * 0.85;

  const blocks: Block[] = [];
  let para = '';
  let pendingPage: number | undefined;
  let lastLine = '';
  let breakAfterLast = false;
  let inReferences = false;
  let inMethods = false;

  const flush = () => {
    if (para.trim()) blocks.push({ type: 'paragraph', text: para.trim() });
    para = '';
    breakAfterLast = false;
    if (pendingPage !== undefined) {
      blocks.push({ type: 'page', number: pendingPage });
      pendingPage = undefined;
    }
  };

  pages.forEach((lines, index) => {
    const pageNo = index + 1;
    const first = lines.find((l) => l.trim());
    const continues =
      para !== '' && first !== undefined && (!SENTENCE_END.test(para.slice(-8)) || para.endsWith('-')) && /^\p{Ll}/u.test(first);
    if (continues) {
      pendingPage = pageNo;
    } else {
      flush();
      blocks.push({ type: 'page', number: pageNo });
    }

    let start = 0;
    if (pageNo === 1 && title) {
      // Lines at the top of page 1 that spell the title become a paragraph of their own, so the
      // author line that follows is not glued to it.
      const target = normTitle(title);
      let acc = '';
      for (let i = 0; i < Math.min(lines.length, 4); i++) {
        acc += normTitle(lines[i]);
        if (acc === target) {
          blocks.push({ type: 'paragraph', text: lines.slice(0, i + 1).join(' ') });
          start = i + 1;
          break;
        }
        if (!target.startsWith(acc)) break;
      }
    }

    for (let i = start; i < lines.length; i++) {
      const line = lines[i];
      if (!line.trim()) {
        flush();
        lastLine = '';
        continue;
      }
      const continuesSentence = para !== '' && !SENTENCE_END.test(lastLine) && !shortLine(lastLine);
      const next = lines[i + 1] ?? '';
      const heading =
        /^\p{Ll}/u.test(next) && next !== '' && !KNOWN_SECTIONS.has(sectionKey(line))
          ? undefined
          : detectHeading(line, inReferences, continuesSentence, inMethods);
      if (heading) {
        flush();
        blocks.push({ type: 'heading', level: heading.level, text: heading.text });
        const key = sectionKey(heading.text.replace(/^[\dIVX.]+\s+/, ''));
        inReferences = REFERENCE_SECTIONS.has(key);
        inMethods = METHODS_SECTIONS.has(key);
        para = heading.rest ?? '';
        lastLine = heading.rest ?? '';
        continue;
      }
      // A numbered step after a short line is a new item, not the wrapped end of a sentence.
      const numberedItem = /^\d{1,3}[.)]\s+\p{Lu}/u.test(line) && (inReferences || SENTENCE_END.test(lastLine) || shortLine(lastLine));
      // "Step 4: ..." always starts a step; so does a bare step number on its own line before a
      // capitalised line (protocols.io prints step numbers in a column of their own).
      const stepLine = STEP_LINE.test(line) || (/^\d{1,3}$/.test(line) && /^\p{Lu}/u.test(next));
      const startsNew = BULLET_START.test(line) || numberedItem || stepLine;
      if (para && (startsNew || (breakAfterLast && !/^\p{Ll}/u.test(line)))) flush();
      // An unnumbered subheading ("Cell culture and hypoxia") is a line far shorter than the
      // column between two sentences. It is kept as a paragraph of its own, not promoted to a
      // heading: figure labels look the same and would pollute the section path.
      if (
        (!para || SENTENCE_END.test(lastLine)) &&
        line.length < full * 0.6 &&
        wordCount(line) <= 10 &&
        /^\p{Lu}/u.test(line) &&
        !SENTENCE_END.test(line) &&
        /^[\p{Lu}\d]/u.test(next)
      ) {
        flush();
        blocks.push({ type: 'paragraph', text: line });
        lastLine = line;
        breakAfterLast = true;
        continue;
      }
      para = joinLine(para, line, vocab);
      breakAfterLast = SENTENCE_END.test(line) && shortLine(line);
      lastLine = line;
    }
  });
  flush();
  return { blocks };
}

// ---------------------------------------------------------------------------------------------
// Metadata

const infoString = (info: unknown, key: string): string | undefined => {
  if (typeof info !== 'object' || info === null) return undefined;
  const v: unknown = (info as Record<string, unknown>)[key];
  return typeof v === 'string' && v.trim() ? v.replace(/\s+/g, ' ').trim() : undefined;
};

/**
 * What the info dictionary says. Its CreationDate and ModDate are when the file was written, not
 * when the paper appeared (a 2022 paper saved again in 2026 would be cited as 2026): never a year.
 */
function metaFromInfo(info: unknown): DocMeta {
  const meta: DocMeta = {};
  const title = infoString(info, 'Title');
  // "OECS12_abstract_Muller1": a file name, not a title.
  const fileNameLike = (t: string) => !/\s/.test(t) && /[_\d]/.test(t);
  // "doi:", "Untitled-1": too short to be a paper's title.
  const tooShort = (t: string) => t.length < 12 && wordCount(t) < 2;
  if (title && !JUNK_TITLE.test(title) && /\p{L}{3}/u.test(title) && !fileNameLike(title) && !tooShort(title)) meta.title = title;
  const author = infoString(info, 'Author');
  if (author) {
    const authors = splitAuthors(author).filter((a) => !JUNK_AUTHOR.test(a) && !a.includes('@'));
    // One word ("ibm", "senellpa", "Hatem") is the account that wrote the file, not an author list.
    if (authors.length && !(authors.length === 1 && !/\s/.test(authors[0]))) meta.authors = authors;
  }
  const doi = [infoString(info, 'doi'), infoString(info, 'DOI'), infoString(info, 'Subject'), infoString(info, 'Keywords')]
    .map((v) => (v ? (normalizeDoi(v) ?? findDoi(v)) : undefined))
    .find(Boolean);
  if (doi) meta.doi = doi;
  const keywords = coerceKeywords(infoString(info, 'Keywords')?.replace(DOI_LIKE, '') ?? []);
  if (keywords?.length) meta.keywords = keywords;
  return meta;
}

/**
 * Title from the first lines of page 1, when the info dictionary has none worth using. Only a
 * line that cannot be body text qualifies: shorter than a full line, no sentence inside it.
 */
function guessTitle(lines: string[], fullLine: number): string | undefined {
  const looksLikeTitle = (l: string | undefined): l is string =>
    l !== undefined &&
    wordCount(l) >= 2 &&
    l.length < Math.min(150, fullLine * 0.85) &&
    !/https?:|doi|©|\bvol\b|\d{4}|\.\s/i.test(l) &&
    !/[.;,]$/.test(l) &&
    !KNOWN_SECTIONS.has(sectionKey(l));
  const [first, second] = lines;
  if (!looksLikeTitle(first) || wordCount(first) < 3) return undefined;
  // A title wrapped over two lines ends the first on a word that cannot end a title.
  if (looksLikeTitle(second) && /\b(of|in|and|the|for|with|to|on|by|from|a|an|at|under|via|during)$/i.test(first)) {
    return `${first} ${second}`;
  }
  return first;
}

// ---------------------------------------------------------------------------------------------

const latin1 = (bytes: Uint8Array) => {
  let s = '';
  for (let i = 0; i < bytes.length; i += 8192) s += String.fromCharCode(...bytes.subarray(i, i + 8192));
  return s;
};

/** Whether the trailer (or a cross-reference stream's dictionary) names an /Encrypt dictionary. */
export function hasEncryptDictionary(bytes: Uint8Array): boolean {
  const span = 64 * 1024;
  const head = latin1(bytes.subarray(0, Math.min(bytes.length, span)));
  const tail = bytes.length > span ? latin1(bytes.subarray(bytes.length - span)) : '';
  return /\/Encrypt\s*(\d+\s+\d+\s+R|<<)/.test(head) || /\/Encrypt\s*(\d+\s+\d+\s+R|<<)/.test(tail);
}

function hasPdfHeader(bytes: Uint8Array): boolean {
  return latin1(bytes.subarray(0, Math.min(bytes.length, 1024))).includes('%PDF-');
}

const errorName = (err: unknown) => (err instanceof Error ? err.name : '');

function pdfError(err: unknown, bytes: Uint8Array): ParseError {
  if (err instanceof ParseError) return err;
  if (errorName(err) === 'PasswordException' || hasEncryptDictionary(bytes)) {
    return new ParseError('encrypted PDF (password required; save an unprotected copy)', { cause: err });
  }
  return new ParseError('not a valid PDF (truncated or corrupt)', { cause: err });
}

const cleanLine = (l: string) =>
  l
    .replace(/[\u0000-\u0008\u000B-\u001F\u007F]/g, ' ')
    .replace(/[\s\u00A0]+/g, ' ')
    .trim();

/** Parse PDF bytes into page, heading and paragraph blocks plus info-dictionary metadata. */
export async function parsePdf(bytes: Uint8Array, opts: PdfOptions = {}): Promise<ParsedFile> {
  if (!hasPdfHeader(bytes)) throw new ParseError('not a valid PDF (no PDF header)');
  // pdf.js takes ownership of (detaches) the buffer it is given: hand it a copy.
  const parser = new PDFParse({ data: bytes.slice(), isEvalSupported: false, verbosity: 0 });
  const onAbort = () => void parser.destroy().catch(() => undefined);
  opts.signal?.addEventListener('abort', onAbort, { once: true });

  const warnings: string[] = [];
  const pageTexts: string[] = [];
  let info: unknown;
  // Page 1's layout first (its own pdf.js document, closed before the full read starts).
  const layout = await readFirstPageLayout(bytes, opts.signal);
  try {
    const doc = await parser.getInfo();
    info = doc.info;
    for (let n = 1; n <= doc.total; n++) {
      // pdf.js works in microtasks only: without a macrotask turn between pages no timer (the
      // caller's timeout) could ever fire while a long document is being read.
      await new Promise((resolve) => setTimeout(resolve, 0));
      if (opts.signal?.aborted) throw new ParseError('timed out');
      const page = await parser.getText({ partial: [n] });
      pageTexts.push(page.pages.find((p) => p.num === n)?.text ?? '');
    }
  } catch (err) {
    if (opts.signal?.aborted) throw new ParseError('timed out', { cause: err });
    throw pdfError(err, bytes);
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
    await parser.destroy().catch(() => undefined);
  }

  const rawPages = pageTexts.map((t) => t.split('\n').map(cleanLine));
  const empty = rawPages.map((lines, i) => (lines.some(Boolean) ? 0 : i + 1)).filter(Boolean);
  if (rawPages.length === 0 || empty.length === rawPages.length) {
    if (hasEncryptDictionary(bytes)) throw new ParseError('encrypted PDF (no readable text)');
    throw new ParseError('no extractable text (scanned PDF?)');
  }
  for (const n of empty) warnings.push(`page ${n} has no text (scanned or image-only?)`);

  // Blank lines are kept as paragraph separators, but never at a page's edges.
  const trimmed = rawPages.map((lines) => {
    let a = 0;
    let b = lines.length;
    while (a < b && !lines[a]) a++;
    while (b > a && !lines[b - 1]) b--;
    return lines.slice(a, b);
  });
  const pages = stripPageChrome(trimmed);

  const meta = metaFromInfo(info);
  const front = layout ? frontPageMeta(layout) : {};
  if (meta.authors && front.authors && !infoAuthorsAgree(meta.authors, front.authors)) delete meta.authors;
  const textLayers = firstPageLayers(pageTexts[0] ?? '', front, pages[0] ?? [], fullLineLength(pages));
  const { blocks } = buildBlocks(pages, meta.title ?? textLayers.find((l) => l.meta.title)?.meta.title);
  return { format: 'pdf', blocks, meta, warnings, textLayers };
}

const family = (name: string) => (name.includes(',') ? name.split(',')[0] : (name.trim().split(/\s+/).pop() ?? '')).toLowerCase();

/**
 * Whether the info dictionary's Author field can stand beside the byline printed on page 1. It is
 * often the account or publisher that wrote the file ("Cambridge Journals", the submitter), or a
 * shorter list: when its first family name is not the byline's first, or it names fewer people,
 * the printed byline is what a citation of the paper uses.
 */
function infoAuthorsAgree(info: string[], printed: string[]): boolean {
  return family(info[0]) === family(printed[0]) && info.length >= printed.length;
}

/**
 * What page 1's text says: a DOI printed there (a fact, origin "text"), and the title, authors
 * and year its layout suggests (inferred). Without a layout (pdf.js could not read page 1 on its
 * own), the title falls back to the first printed lines.
 */
function firstPageLayers(firstPage: string, fromLayout: DocMeta, lines: string[], fullLine: number): NonNullable<ParsedFile['textLayers']> {
  const out: NonNullable<ParsedFile['textLayers']> = [];
  const doi = findDoi(firstPage);
  if (doi) out.push({ origin: 'text', meta: { doi } });
  const inferred: DocMeta = { ...fromLayout };
  if (!inferred.title) {
    const guess = guessTitle(lines, fullLine);
    if (guess) inferred.title = guess;
  }
  if (Object.keys(inferred).length) out.push({ origin: 'text', meta: inferred, inferred: true });
  return out;
}
