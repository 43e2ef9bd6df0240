// DOCX -> Blocks through mammoth's HTML (headings, paragraphs, lists, tables), then the shared
// HTML walker; metadata from the package's core properties.
import mammoth from 'mammoth';
import type { Block, ParsedFile } from '../../types.ts';
import { firstLine } from '../metadata/coerce.ts';
import { ParseError } from './errors.ts';
import { numberedRuns } from './docx-numbering.ts';
import { htmlFragmentToBlocks } from './html.ts';
import { decodeXml } from './decode.ts';
import { checkXmlDepth, readCoreProperties } from './office.ts';
import { CorruptEntryError, openZip } from './zip.ts';

export interface DocxOptions {
  maxUncompressedBytes: number;
}

const STYLE_MAP = ["p[style-name='Title'] => h1:fresh", "p[style-name='Subtitle'] => p:fresh", "p[style-name='Caption'] => p:fresh"];

// Images are dropped: reading them would inflate every picture in the document for nothing.
const NO_IMAGES = mammoth.images.imgElement(() => Promise.resolve({ src: '' }));

export async function parseDocx(bytes: Uint8Array, opts: DocxOptions): Promise<ParsedFile> {
  const zip = await openZip(bytes, opts.maxUncompressedBytes, 'DOCX');
  if (!zip.has('word/document.xml')) throw new ParseError('not a valid DOCX (no word/document.xml)');
  // mammoth inflates the XML parts itself, without a size limit: inflate them once here under
  // the budget, so an archive that lies about its sizes is caught before mammoth sees it.
  const warnings: string[] = [];
  const numberingParts: { document?: string; numbering?: string } = {};
  for (const path of zip.paths()) {
    if (!/\.(xml|rels)$/i.test(path)) continue;
    try {
      const part = await zip.bytes(path);
      if (!part) continue;
      const xml = decodeXml(part);
      checkXmlDepth(xml, path);
      if (path === 'word/document.xml') numberingParts.document = xml;
      if (path === 'word/numbering.xml') numberingParts.numbering = xml;
    } catch (err) {
      // A damaged side part (comments, custom properties) need not sink the document; if
      // mammoth needs it after all, it fails below with its own reason.
      if (!(err instanceof CorruptEntryError) || path === 'word/document.xml') throw err;
      warnings.push(`${path} is corrupt; ignored`);
    }
  }

  let result: Awaited<ReturnType<typeof mammoth.convertToHtml>>;
  try {
    result = await mammoth.convertToHtml(
      { buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) },
      { styleMap: STYLE_MAP, convertImage: NO_IMAGES, ignoreEmptyParagraphs: true, externalFileAccess: false },
    );
  } catch (cause) {
    throw new ParseError(`not a valid DOCX (${firstLine(cause)})`, { cause });
  }
  warnings.push(...result.messages.filter((m) => m.type === 'error').map((m) => `mammoth: ${m.message}`));
  const { blocks, warnings: htmlWarnings } = htmlFragmentToBlocks(result.value);
  if (numberingParts.document) numberLists(blocks, numberedRuns(numberingParts.document, numberingParts.numbering));
  const meta = await readCoreProperties(zip);
  return { format: 'docx', blocks, meta, warnings: [...warnings, ...htmlWarnings] };
}

/**
 * Gives mammoth's ordered lists the numbers Word shows: a list that continues the steps above a
 * sub-heading starts at 3, not 1. Applied only when the runs read from the XML line up with the
 * lists mammoth made (same count, same lengths); otherwise the lists keep their own numbering.
 */
function numberLists(blocks: Block[], runs: ReturnType<typeof numberedRuns>): void {
  const lists = blocks.filter((b): b is Extract<Block, { type: 'list' }> => b.type === 'list' && b.ordered);
  if (lists.length !== runs.length || !runs.every((r, i) => r.items === lists[i].items.length)) return;
  lists.forEach((b, i) => {
    if (runs[i].first !== 1) b.start = runs[i].first;
  });
}
