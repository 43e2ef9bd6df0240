// HTML -> Blocks. Used for saved web pages and wiki exports, and (as fragments) for the HTML that
// mammoth makes from DOCX and the raw HTML embedded in Markdown.
//
// Two things keep hostile or broken input from hurting the indexer: the nesting depth is
// estimated with a linear scan before any parser sees the text (htmlparser2 and parse5 both slow
// down badly on thousands of unclosed elements), and the DOM is walked with explicit stacks, never
// by recursion.
import * as cheerio from 'cheerio';
import type { Block, DocMeta, ParsedFile } from '../../types.ts';
import { coerceKeywords, coerceYear, normalizeAuthorName, normalizeDoi, splitAuthors } from '../metadata/coerce.ts';
import { readFrontMatter } from './front-matter.ts';
import { textToBlocks } from './text.ts';

/** The part of domhandler's node shape this module reads. */
interface HNode {
  type: string;
  name?: string;
  data?: string;
  attribs?: Record<string, string>;
  children?: HNode[];
  parent?: HNode | null;
}

export const MAX_HTML_DEPTH = 500;

const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr']);
// Elements whose end tag may be omitted: the parser closes them implicitly, so they do not nest.
const OPTIONAL_END = new Set([
  'p',
  'li',
  'td',
  'th',
  'tr',
  'dt',
  'dd',
  'option',
  'optgroup',
  'thead',
  'tbody',
  'tfoot',
  'colgroup',
  'rb',
  'rt',
  'rp',
  'rtc',
  'html',
  'head',
  'body',
]);
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'plaintext']);

/** Deepest element nesting, estimated in one pass without building a tree. */
export function estimateHtmlDepth(html: string): number {
  const tagRe = /<(\/?)([a-zA-Z][a-zA-Z0-9:-]*)/y;
  let depth = 0;
  let max = 0;
  let i = html.indexOf('<');
  while (i !== -1 && i < html.length) {
    if (html.startsWith('<!--', i)) {
      const end = html.indexOf('-->', i + 4);
      if (end === -1) break;
      i = html.indexOf('<', end + 3);
      continue;
    }
    tagRe.lastIndex = i;
    const m = tagRe.exec(html);
    if (!m) {
      i = html.indexOf('<', i + 1);
      continue;
    }
    const name = m[2].toLowerCase();
    const gt = html.indexOf('>', tagRe.lastIndex);
    if (gt === -1) break;
    const selfClosing = html[gt - 1] === '/';
    let next = gt + 1;
    if (m[1] === '/') {
      if (!VOID.has(name) && !OPTIONAL_END.has(name)) depth = Math.max(0, depth - 1);
    } else if (!VOID.has(name) && !OPTIONAL_END.has(name) && !selfClosing) {
      if (RAW_TEXT.has(name)) {
        const closeRe = new RegExp(`</${name}\\s*>`, 'gi');
        closeRe.lastIndex = next;
        const c = closeRe.exec(html);
        next = c ? closeRe.lastIndex : html.length;
      } else {
        depth++;
        if (depth > max) max = depth;
      }
    }
    i = html.indexOf('<', next);
  }
  return max;
}

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  ndash: '\u2013',
  mdash: '\u2014',
  hellip: '\u2026',
  deg: '\u00B0',
  micro: '\u00B5',
  plusmn: '\u00B1',
  times: '\u00D7',
  copy: '\u00A9',
  reg: '\u00AE',
  lsquo: '\u2018',
  rsquo: '\u2019',
  ldquo: '\u201C',
  rdquo: '\u201D',
  alpha: '\u03B1',
  beta: '\u03B2',
  gamma: '\u03B3',
  delta: '\u03B4',
  mu: '\u03BC',
};

/** Decode character references in text that did not go through an HTML parser. */
export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z][a-z0-9]{1,31});/gi, (m, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : m;
    }
    return NAMED_ENTITIES[ref.toLowerCase()] ?? m;
  });
}

const BREAKING_TAG =
  /^<\/?(p|div|section|article|h[1-6]|li|ul|ol|table|tr|td|th|pre|blockquote|br|hr|dt|dd|main|header|footer|figure|figcaption)\b/i;

/**
 * What is left when the markup cannot be trusted to parse: the text, with paragraph breaks at
 * block tags. One linear pass (indexOf only), because this path exists for hostile input.
 */
function htmlToPlainText(html: string): string {
  const out: string[] = [];
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt === -1) {
      out.push(html.slice(i));
      break;
    }
    out.push(html.slice(i, lt));
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4);
      if (end === -1) break;
      i = end + 3;
      continue;
    }
    const gt = html.indexOf('>', lt + 1);
    if (gt === -1) break;
    const tag = html.slice(lt, Math.min(gt + 1, lt + 64));
    const raw = /^<(script|style)\b/i.exec(tag);
    if (raw) {
      const closeRe = new RegExp(`</${raw[1]}`, 'gi');
      closeRe.lastIndex = gt;
      const close = closeRe.exec(html);
      if (!close) break;
      i = close.index;
      continue;
    }
    if (BREAKING_TAG.test(tag)) out.push('\n\n');
    i = gt + 1;
  }
  return decodeEntities(out.join(''));
}

// ---------------------------------------------------------------------------------------------
// DOM helpers (iterative)

const isElement = (n: HNode): boolean => n.name !== undefined && Array.isArray(n.children) && n.type !== 'root';
const tagOf = (n: HNode): string => (n.name ?? '').toLowerCase();

const squash = (s: string) => s.replace(/[\s\u200B\uFEFF]+/g, ' ').trim();

const BLOCK_TAGS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'caption',
  'center',
  'dd',
  'details',
  'dialog',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hgroup',
  'hr',
  'html',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'tr',
  'ul',
]);
const SKIP_ALWAYS = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'iframe',
  'svg',
  'object',
  'embed',
  'canvas',
  'head',
  'select',
  'button',
  'input',
  'textarea',
]);

interface TextOptions {
  /** Leave nested lists out (a list item's own text). */
  skipLists?: boolean;
  /** Keep whitespace and line breaks (pre). */
  preserve?: boolean;
}

/** Text content of a subtree; block children are separated by spaces, <br> by newlines. */
function textOf(root: HNode, opts: TextOptions = {}): string {
  const out: string[] = [];
  const stack: HNode[] = [...(root.children ?? [])].reverse();
  while (stack.length) {
    const n = stack.pop()!;
    if (n.type === 'text') {
      out.push(n.data ?? '');
      continue;
    }
    if (!isElement(n)) continue;
    const tag = tagOf(n);
    if (SKIP_ALWAYS.has(tag)) continue;
    if (tag === 'br') {
      out.push('\n');
      continue;
    }
    if (opts.skipLists && (tag === 'ul' || tag === 'ol')) continue;
    if (BLOCK_TAGS.has(tag) || tag === 'td' || tag === 'th') out.push(' ');
    const kids = n.children ?? [];
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
  }
  const text = out.join('');
  return opts.preserve ? text.trimEnd().replace(/^\n+/, '') : squash(text);
}

/** Descendants matching `want`, not descending into matches or into elements `stopAt` accepts. */
function findAll(root: HNode, want: (n: HNode) => boolean, stopAt: (n: HNode) => boolean = () => false): HNode[] {
  const found: HNode[] = [];
  const stack: HNode[] = [...(root.children ?? [])].reverse();
  while (stack.length) {
    const n = stack.pop()!;
    if (!isElement(n)) continue;
    if (want(n)) {
      found.push(n);
      continue;
    }
    if (stopAt(n)) continue;
    const kids = n.children ?? [];
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
  }
  return found;
}

const isList = (n: HNode) => tagOf(n) === 'ul' || tagOf(n) === 'ol';

/** A list item's text with its nested lists flattened: "Buffers: PBS; TBS-T". */
function listItemText(li: HNode): string {
  const own = textOf(li, { skipLists: true });
  const nested: string[] = [];
  const stack: HNode[] = [...(li.children ?? [])].reverse();
  while (stack.length) {
    const n = stack.pop()!;
    if (!isElement(n) || SKIP_ALWAYS.has(tagOf(n))) continue;
    if (tagOf(n) === 'li') {
      const text = textOf(n, { skipLists: true });
      if (text) nested.push(text);
    }
    const kids = n.children ?? [];
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
  }
  if (!nested.length) return own;
  if (!own) return nested.join('; ');
  return `${own}${/[:;,.]$/.test(own) ? '' : ':'} ${nested.join('; ')}`;
}

function listBlock(list: HNode): Block | undefined {
  const items = findAll(list, (n) => tagOf(n) === 'li', isList)
    .map(listItemText)
    .filter(Boolean);
  if (!items.length) return undefined;
  const ordered = tagOf(list) === 'ol';
  const block: Block = { type: 'list', ordered, items };
  const start = Number(list.attribs?.start);
  if (ordered && Number.isInteger(start) && start !== 1) block.start = start;
  return block;
}

const isTable = (n: HNode) => tagOf(n) === 'table';

function tableRows(table: HNode): { rows: HNode[][]; headerRow?: number } {
  const trs = findAll(table, (n) => tagOf(n) === 'tr', isTable);
  const rows = trs.map((tr) => (tr.children ?? []).filter((c) => isElement(c) && (tagOf(c) === 'td' || tagOf(c) === 'th')));
  const theadIndex = trs.findIndex((tr) => tr.parent && tagOf(tr.parent) === 'thead');
  return { rows, headerRow: theadIndex >= 0 ? theadIndex : undefined };
}

/** Layout tables (one column, or tables inside tables) are read as containers, not data. */
function isDataTable(table: HNode): boolean {
  if (findAll(table, isTable).length > 0) return false;
  const { rows } = tableRows(table);
  return rows.length > 0 && rows.some((r) => r.length > 1);
}

function tableBlock(table: HNode): Block | undefined {
  const { rows, headerRow } = tableRows(table);
  const texts = rows.map((r) => r.map((c) => textOf(c)));
  const nonEmpty = texts.map((_, i) => i).filter((i) => texts[i].some(Boolean));
  if (!nonEmpty.length) return undefined;
  // The <thead> row if there is one, else the first row with any text.
  const h = headerRow !== undefined && nonEmpty.includes(headerRow) ? headerRow : nonEmpty[0];
  const header = texts[h];
  const body = nonEmpty.filter((i) => i !== h).map((i) => texts[i]);
  const captionNode = findAll(table, (n) => tagOf(n) === 'caption', isTable)[0];
  const caption = captionNode ? textOf(captionNode) : '';
  const block: Block = { type: 'table', header, rows: body };
  if (caption) block.caption = caption;
  return block;
}

/** Walk a subtree into Blocks with an explicit stack. */
function walkBlocks(root: HNode): Block[] {
  const blocks: Block[] = [];
  let inline: string[] = [];
  const flush = () => {
    const text = squash(inline.join(''));
    if (text) blocks.push({ type: 'paragraph', text });
    inline = [];
  };
  type Frame = { node: HNode } | { exit: true };
  const stack: Frame[] = [{ node: root }];
  while (stack.length) {
    const frame = stack.pop()!;
    if ('exit' in frame) {
      flush();
      continue;
    }
    const n = frame.node;
    if (n.type === 'text') {
      inline.push(n.data ?? '');
      continue;
    }
    if (n !== root && !isElement(n)) continue;
    const tag = tagOf(n);
    if (SKIP_ALWAYS.has(tag)) continue;

    const heading = /^h([1-6])$/.exec(tag);
    if (heading) {
      flush();
      const text = textOf(n);
      if (text) blocks.push({ type: 'heading', level: Number(heading[1]), text });
      continue;
    }
    if (tag === 'p' || tag === 'figcaption' || tag === 'dt' || tag === 'dd' || tag === 'caption' || tag === 'summary') {
      flush();
      const text = textOf(n);
      if (text) blocks.push({ type: 'paragraph', text });
      continue;
    }
    if (tag === 'ul' || tag === 'ol') {
      flush();
      const block = listBlock(n);
      if (block) blocks.push(block);
      continue;
    }
    if (tag === 'table' && isDataTable(n)) {
      flush();
      const block = tableBlock(n);
      if (block) blocks.push(block);
      continue;
    }
    if (tag === 'pre') {
      flush();
      const text = textOf(n, { preserve: true });
      if (text.trim()) blocks.push({ type: 'code', text });
      continue;
    }
    if (tag === 'br') {
      inline.push('\n');
      continue;
    }
    if (tag === 'hr') {
      flush();
      continue;
    }
    const kids = n.children ?? [];
    if (BLOCK_TAGS.has(tag) || n === root) {
      flush();
      stack.push({ exit: true });
    }
    for (let i = kids.length - 1; i >= 0; i--) stack.push({ node: kids[i] });
  }
  flush();
  return blocks;
}

// ---------------------------------------------------------------------------------------------
// Pages: boilerplate and metadata

const BOILERPLATE_WORDS = new Set([
  'cookie',
  'cookies',
  'consent',
  'gdpr',
  'breadcrumb',
  'breadcrumbs',
  'navbar',
  'navigation',
  'nav',
  'menu',
  'menubar',
  'sidebar',
  'skip',
  'share',
  'sharing',
  'social',
  'newsletter',
  'subscribe',
  'advert',
  'advertisement',
  'ads',
  'ad',
  'promo',
  'masthead',
  'footer',
  'toolbar',
  'pagination',
  'related',
  'banner',
]);

function looksLikeBoilerplate(el: HNode): boolean {
  const names = `${el.attribs?.class ?? ''} ${el.attribs?.id ?? ''}`.toLowerCase();
  if (!names.trim()) return false;
  return names.split(/\s+/).some((token) => token.split(/[-_]+/).some((w) => BOILERPLATE_WORDS.has(w)));
}

function textLength(root: HNode): number {
  let n = 0;
  const stack: HNode[] = [root];
  while (stack.length) {
    const node = stack.pop()!;
    if (node.type === 'text') n += (node.data ?? '').trim().length;
    else if (node.children && !SKIP_ALWAYS.has(tagOf(node))) stack.push(...node.children);
  }
  return n;
}

/** Text length under every node, in one post-order pass (no per-candidate rescans). */
function textLengths(root: HNode): Map<HNode, number> {
  const lengths = new Map<HNode, number>();
  const stack: { node: HNode; done: boolean }[] = [{ node: root, done: false }];
  while (stack.length) {
    const frame = stack.pop()!;
    const { node } = frame;
    if (node.type === 'text') {
      lengths.set(node, (node.data ?? '').trim().length);
      continue;
    }
    const kids = node.children && !SKIP_ALWAYS.has(tagOf(node)) ? node.children : [];
    if (!frame.done) {
      stack.push({ node, done: true });
      for (const k of kids) stack.push({ node: k, done: false });
    } else {
      lengths.set(
        node,
        kids.reduce((n, k) => n + (lengths.get(k) ?? 0), 0),
      );
    }
  }
  return lengths;
}

function readMeta($: cheerio.CheerioAPI): DocMeta {
  const tags = new Map<string, string[]>();
  $('meta').each((_, el) => {
    const name = ($(el).attr('name') ?? $(el).attr('property') ?? '').trim().toLowerCase();
    const content = squash($(el).attr('content') ?? '');
    if (!name || !content) return;
    tags.set(name, [...(tags.get(name) ?? []), content]);
  });
  const first = (...names: string[]) => {
    for (const n of names) {
      const v = tags.get(n)?.[0];
      if (v) return v;
    }
    return undefined;
  };

  const meta: DocMeta = {};
  const title = first('citation_title', 'dc.title', 'dcterms.title', 'og:title') ?? squash($('title').first().text());
  if (title) meta.title = title;

  const authorTags = ['citation_author', 'dc.creator', 'dcterms.creator'].map((n) => tags.get(n) ?? []).find((v) => v.length);
  if (authorTags) meta.authors = authorTags.map(normalizeAuthorName);
  else {
    const author = first('author', 'article:author');
    if (author && !/^https?:/i.test(author)) meta.authors = splitAuthors(author);
  }

  const year = coerceYear(
    first(
      'citation_publication_date',
      'citation_date',
      'citation_online_date',
      'citation_year',
      'dc.date',
      'dcterms.issued',
      'dcterms.date',
      'article:published_time',
    ),
  );
  if (year !== undefined) meta.year = year;

  for (const candidate of [first('citation_doi', 'prism.doi', 'bepress_citation_doi'), ...(tags.get('dc.identifier') ?? [])]) {
    const doi = candidate ? normalizeDoi(candidate) : undefined;
    if (doi) {
      meta.doi = doi;
      break;
    }
  }

  const journal = first('citation_journal_title', 'citation_conference_title', 'prism.publicationname', 'dc.source');
  if (journal) meta.journal = journal;

  const canonical = $('link[rel~="canonical" i]').attr('href')?.trim() ?? first('og:url');
  if (canonical && /^https?:\/\//i.test(canonical)) meta.url = canonical;

  const lang = $('html').attr('lang')?.trim() || first('citation_language', 'dc.language');
  if (lang) meta.language = lang;

  const updated = first('article:modified_time', 'dcterms.modified', 'last-modified');
  if (updated) meta.updated = updated;

  const keywordTags = ['citation_keywords', 'keywords', 'dc.subject', 'article:tag'].flatMap((n) => tags.get(n) ?? []);
  const keywords = coerceKeywords(keywordTags.join('; '));
  if (keywords?.length) meta.keywords = keywords;
  return meta;
}

const DROP_SELECTOR = [
  'script',
  'style',
  'noscript',
  'template',
  'iframe',
  'svg',
  'nav',
  'footer',
  'aside',
  'form',
  'dialog',
  '[role="navigation"]',
  '[role="banner"]',
  '[role="contentinfo"]',
  '[role="search"]',
  '[role="complementary"]',
  '[hidden]',
  '[aria-hidden="true"]',
].join(', ');

function loadHtml(html: string): cheerio.CheerioAPI {
  // htmlparser2 rather than parse5: linear on the inputs we let through, and we only need text.
  return cheerio.load(html, { xml: { xmlMode: false, decodeEntities: true } });
}

function removeBoilerplate($: cheerio.CheerioAPI): void {
  $(DROP_SELECTOR).remove();
  $('[style]')
    .filter((_, el) => /display\s*:\s*none|visibility\s*:\s*hidden/i.test($(el).attr('style') ?? ''))
    .remove();
  // A page's own <header> is site chrome; an article's <header> holds its title and byline.
  $('header')
    .filter((_, el) => $(el).closest('article, main, [role="main"]').length === 0)
    .remove();

  const candidates = $('[class], [id]')
    .toArray()
    .filter((el) => !['html', 'body', 'main', 'article'].includes(tagOf(el)) && looksLikeBoilerplate(el));
  if (!candidates.length) return;
  const lengths = textLengths($.root()[0]);
  const total = lengths.get($.root()[0]) ?? 0;
  for (const el of candidates) {
    // Class names like "page-with-sidebar" sit on wrappers that hold the whole page: only
    // drop an element that carries a small share of the text.
    if ((lengths.get(el) ?? 0) <= Math.max(200, total * 0.4)) $(el).remove();
  }
}

function contentRoot($: cheerio.CheerioAPI): HNode {
  const mains = $('main, [role="main"]').toArray();
  if (mains.length) {
    return mains.map((m): HNode => m).reduce((a, b) => (textLength(b) > textLength(a) ? b : a));
  }
  const articles = $('article').toArray();
  if (articles.length === 1) return articles[0];
  return $('body')[0] ?? $.root()[0];
}

function tooDeep(html: string): string | undefined {
  const depth = estimateHtmlDepth(html);
  return depth > MAX_HTML_DEPTH
    ? `HTML nested ${depth} levels deep (limit ${MAX_HTML_DEPTH}); read as plain text without structure`
    : undefined;
}

/**
 * A web page or wiki export: main content only, with citation metadata from <head>. A page that
 * opens with front matter (a Jekyll or Hugo source kept in a wiki's repository) has it read as
 * its own layer: it may say who may read the page.
 */
export function parseHtml(text: string): ParsedFile {
  const fm = readFrontMatter(text);
  if (!fm.present) return parsePage(text);
  const page = parsePage(fm.body);
  return {
    ...page,
    warnings: [...fm.warnings, ...page.warnings],
    textLayers: [{ origin: 'front matter', meta: fm.meta }, ...(page.textLayers ?? [])],
  };
}

function parsePage(html: string): ParsedFile {
  const deep = tooDeep(html);
  if (deep) return { format: 'html', blocks: textToBlocks(htmlToPlainText(html)), meta: {}, warnings: [deep] };
  const $ = loadHtml(html);
  const meta = readMeta($);
  removeBoilerplate($);
  const blocks = walkBlocks(contentRoot($));
  return { format: 'html', blocks, meta, warnings: [] };
}

/** An HTML fragment (mammoth output, HTML inside Markdown) -> Blocks, without page heuristics. */
export function htmlFragmentToBlocks(html: string): { blocks: Block[]; warnings: string[] } {
  const deep = tooDeep(html);
  if (deep) return { blocks: textToBlocks(htmlToPlainText(html)), warnings: [deep] };
  const $ = loadHtml(html);
  $('script, style, noscript, template, iframe, svg').remove();
  return { blocks: walkBlocks($.root()[0]), warnings: [] };
}
