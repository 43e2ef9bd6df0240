// Shared by the PPTX and DOCX readers: OOXML parts as cheerio documents, and the package's core
// properties (docProps/core.xml) as DocMeta.
import * as cheerio from 'cheerio';
import type { DocMeta } from '../../types.ts';
import { coerceKeywords, coerceYear, splitAuthors } from '../metadata/coerce.ts';
import { decodeXml } from './decode.ts';
import { ParseError } from './errors.ts';
import { estimateHtmlDepth } from './html.ts';
import { CorruptEntryError, type ZipReader } from './zip.ts';

// Real Office parts nest a few dozen levels (groups in groups, tables in tables). Far deeper
// means a crafted file, and cheerio's selectors get quadratic in depth, so it is refused.
export const MAX_XML_DEPTH = 256;

/** Throw if an XML part nests deeper than any real document does. */
export function checkXmlDepth(xml: string, part: string): void {
  const depth = estimateHtmlDepth(xml);
  if (depth > MAX_XML_DEPTH) throw new ParseError(`${part} is nested ${depth} levels deep (corrupt or crafted file)`);
}

export const loadXml = (xml: string): cheerio.CheerioAPI => cheerio.load(xml, { xml: true });

export async function readXml(zip: ZipReader, path: string): Promise<cheerio.CheerioAPI | undefined> {
  const bytes = await zip.bytes(path);
  if (!bytes) return undefined;
  const xml = decodeXml(bytes);
  checkXmlDepth(xml, path);
  return loadXml(xml);
}

// Titles and authors that tools fill in by themselves: worse than no value at all.
const JUNK_TITLE =
  /^(powerpoint presentation|presentation\d*|pptxgenjs presentation|slide \d+|document\d*|untitled.*|title|microsoft word - .*)$|\.(pptx?|docx?)$/i;
const JUNK_AUTHOR = /^(administrator|admin|user|owner|unknown|author|un-named|unnamed|microsoft office user|python-docx|pptxgenjs)$/i;

export const usefulTitle = (t: string | undefined): string | undefined =>
  t && !JUNK_TITLE.test(t.trim()) && /\p{L}{2}/u.test(t) ? t.replace(/\s+/g, ' ').trim() : undefined;

/** dc:title, dc:creator, dcterms:created (-> year) and dcterms:modified (-> updated). */
export async function readCoreProperties(zip: ZipReader): Promise<DocMeta> {
  const $ = await readXml(zip, 'docProps/core.xml').catch((err: unknown) => {
    // Damaged properties cost the metadata, not the document.
    if (err instanceof CorruptEntryError) return undefined;
    throw err;
  });
  if (!$) return {};
  const text = (tag: string) => $(tag.replace(':', '\\:')).first().text().replace(/\s+/g, ' ').trim() || undefined;
  const meta: DocMeta = {};
  const title = usefulTitle(text('dc:title'));
  if (title) meta.title = title;
  const creator = text('dc:creator');
  if (creator) {
    const authors = splitAuthors(creator).filter((a) => !JUNK_AUTHOR.test(a));
    if (authors.length) meta.authors = authors;
  }
  const created = text('dcterms:created');
  const year = created ? coerceYear(created) : undefined;
  if (year !== undefined) meta.year = year;
  const modified = text('dcterms:modified');
  if (modified && !Number.isNaN(Date.parse(modified))) meta.updated = modified;
  const language = text('dc:language');
  if (language) meta.language = language;
  const keywords = coerceKeywords(text('cp:keywords') ?? []);
  if (keywords?.length) meta.keywords = keywords;
  return meta;
}
