// One record of a reference library (a BibTeX, CSL-JSON or RIS export of Zotero, Better BibTeX,
// JabRef, Mendeley...), as the formats' readers hand it to the matcher: its metadata and the keys
// a document can be matched by (attached file names, DOI, citation key, title).
import { createHash } from 'node:crypto';
import type { DocMeta } from '../../types.ts';

export interface LibraryEntry {
  /** How a lab member finds it in the file: the citation key, else the start of its title. */
  label: string;
  /** Citation key (BibTeX key, CSL `citation-key`/`id`, RIS `ID`). */
  key?: string;
  meta: DocMeta;
  warnings: string[];
  /** File names of the attachments it lists, lower-case NFC, without folders. */
  files: string[];
  /** Hash of the entry's own text: what a document's content hash includes when it matches. */
  digest: string;
}

/** A part of a library file that could not be read, with its text (to tell whether it could carry access). */
export interface BrokenPart {
  reason: string;
  text: string;
}

export interface LibraryRead {
  entries: LibraryEntry[];
  broken: BrokenPart[];
  /** The file as a whole could not be read in its format. */
  unreadable?: string;
}

export const entryDigest = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 32);

/** A file name as matching compares it: no folders, Unicode NFC (macOS writes NFD), lower-case. */
export const fileKey = (name: string): string => name.normalize('NFC').toLowerCase().trim();

const baseName = (p: string) => p.split(/[\\/]/).filter(Boolean).pop() ?? '';

function fromUrl(p: string): string {
  if (!/^file:\/\//i.test(p)) return p;
  try {
    return decodeURIComponent(p.replace(/^file:\/\/(localhost)?/i, ''));
  } catch {
    return p.replace(/^file:\/\//i, '');
  }
}

/** Splits on `sep` where it is not escaped with a backslash; escapes are kept for the next step. */
function splitUnescaped(s: string, sep: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\' && i + 1 < s.length) {
      cur += s[i] + s[i + 1];
      i++;
    } else if (s[i] === sep) {
      out.push(cur);
      cur = '';
    } else cur += s[i];
  }
  out.push(cur);
  return out;
}

const unescapeField = (s: string) => s.replace(/\\([\\:;{}])/g, '$1');

const DOCUMENT_NAME = /\.(pdf|docx|pptx|md|markdown|txt|text|html?|epub|djvu)$/i;

/**
 * Attachment file names from a BibTeX `file` field in the forms the exporters write:
 * Zotero `Full Text PDF:/home/ana/Zotero/storage/KEY/Sharma - 2022 - Loss.pdf:application/pdf`
 * (several joined by ";", Windows paths as `C\:\\Users\\...`), Better BibTeX plain paths joined by
 * ";", JabRef `:Sharma2022.pdf:PDF`. The paths are from another machine, so only names are kept.
 */
export function bibFileNames(field: string): string[] {
  const out: string[] = [];
  for (const item of splitUnescaped(field.replace(/[{}]/g, ''), ';')) {
    const parts = splitUnescaped(item.trim(), ':').map(unescapeField);
    let candidate: string | undefined;
    if (parts.length >= 3) {
      // description:path:type; a Windows drive letter left unescaped splits the path in two.
      const middle = parts.slice(1, -1).join(':');
      candidate = middle;
    } else if (parts.length === 2) {
      candidate = parts.find((p) => DOCUMENT_NAME.test(p.trim())) ?? parts.join(':');
    } else candidate = parts[0];
    const name = baseName(fromUrl(candidate.trim()));
    if (name) out.push(fileKey(name));
  }
  return [...new Set(out)];
}

/** File names from path or URL values (RIS `L1`, a CSL `file`). */
export function pathFileNames(values: string[]): string[] {
  return [
    ...new Set(
      values
        .map((v) => baseName(fromUrl(v.trim())))
        .filter(Boolean)
        .map(fileKey),
    ),
  ];
}

/** A label for messages: the key, else the first words of the title. */
export function entryLabel(key: string | undefined, meta: DocMeta, n: number): string {
  if (key) return key;
  if (meta.title) return meta.title.length > 40 ? `${meta.title.slice(0, 40)}…` : meta.title;
  return `entry ${n + 1}`;
}
