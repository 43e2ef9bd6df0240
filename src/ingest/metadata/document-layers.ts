// The metadata layers of one document, most trusted first, as the ingest pipeline resolves them
// (and the metadata benchmark measures them):
//   Markdown/text: front matter, per-file sidecars, library entries, then what the text and the
//                  file name suggest;
//   other formats: per-file sidecars, library entries, the file's embedded metadata (PDF info,
//                  Office properties, HTML meta), a DOI printed on page 1, then the inferred
//                  layers.
// Front matter is written by the lab for this very file and beats sidecars; sidecars beat a
// library (one file for many documents); a library beats what a PDF says about itself. Of the
// inferred layers, a Zotero-style file name's year comes first (Zotero wrote it from its own
// record), then the text's title, authors and year, then the rest of the file name.
import type { DocMeta, ParsedFile } from '../../types.ts';
import { familyName } from './coerce.ts';
import { metaFromFileName } from './file-name.ts';
import type { MetaLayer } from './layers.ts';
import { normKey } from './file-name.ts';

/** Names of a file's own metadata, per format, as the dashboard shows where a field came from. */
export const EMBEDDED_ORIGIN: Record<ParsedFile['format'], string> = {
  markdown: 'front matter',
  text: 'front matter',
  pdf: 'PDF info',
  pptx: 'document properties',
  docx: 'document properties',
  html: 'HTML meta tags',
};

export const FILE_NAME_ORIGIN = 'file name';

/**
 * What a Zotero-style file name says, as inferred layers: its year first; its authors and title
 * after the text's. Authors read from the text that do not start with the name's first author are
 * dropped from the text layer: the file name was written from a library's record, the author
 * line was guessed from the layout.
 */
function fileNameLayers(fileName: string, text: MetaLayer | undefined): { before: MetaLayer[]; after: MetaLayer[]; text?: MetaLayer } {
  const fn = metaFromFileName(fileName);
  if (!fn) return { before: [], after: [], text };
  let textLayer = text;
  const textFirst = text?.meta.authors?.[0];
  if (textFirst && normKey(familyName(textFirst)) !== normKey(fn.authors[0])) {
    const { authors: _dropped, ...rest } = text!.meta;
    textLayer = { ...text!, meta: rest };
  }
  const after: DocMeta = { authors: fn.authors };
  if (fn.title) after.title = fn.title;
  return {
    before: [{ origin: FILE_NAME_ORIGIN, meta: { year: fn.year }, inferred: true }],
    after: [{ origin: FILE_NAME_ORIGIN, meta: after, inferred: true }],
    text: textLayer,
  };
}

/** Every metadata layer of a parsed file, most trusted first. */
export function documentLayers(parsed: ParsedFile, sidecars: MetaLayer[], libraries: MetaLayer[], fileName: string): MetaLayer[] {
  const own: MetaLayer = { origin: EMBEDDED_ORIGIN[parsed.format], meta: parsed.meta };
  const found = (parsed.textLayers ?? []).filter((l) => !l.inferred);
  const guessed = (parsed.textLayers ?? []).filter((l) => l.inferred);
  // Zotero names its PDF attachments this way; a wiki page "Safety - 2023 - update.md" is not a citation.
  const names = parsed.format === 'pdf' ? fileNameLayers(fileName, guessed[0]) : { before: [], after: [], text: guessed[0] };
  const inferred = [...names.before, ...(names.text ? [names.text, ...guessed.slice(1)] : guessed), ...names.after];
  const head =
    parsed.format === 'markdown' || parsed.format === 'text' ? [own, ...sidecars, ...libraries] : [...sidecars, ...libraries, own];
  return [...head, ...found, ...inferred];
}

/** The DOI a file carries itself (embedded metadata or its text), for matching library entries. */
export function fileDoiOf(parsed: ParsedFile): string | undefined {
  return parsed.meta.doi ?? parsed.textLayers?.find((l) => l.meta.doi)?.meta.doi;
}
