// What a file name says about its paper. Zotero renames attachments from the item's metadata,
// by default "{firstCreator} - {year} - {title}" (Zotero 7; "Sharma et al. - 2022 - Loss of
// kcnk5b lengthens….pdf", "Sharma and Lee - 2022 - …", "Sharma - 2022 - …"), and ZotFile's
// common pattern is "{author}_{year}_{title}". The title part is cut at 100 characters and
// stripped of characters file systems refuse, so it is good for matching and a last resort for
// display; the year and first author come from the library's own record.

export interface FileNameMeta {
  /** Family names as printed: one, or two for "Sharma and Lee". */
  authors: string[];
  /** "et al.": more authors than named. */
  etAl: boolean;
  year: number;
  title?: string;
}

const YEAR = '((?:1[5-9]|20)\\d\\d)[a-z]?';
// "and" in the languages Zotero's firstCreator is localised to.
const AND = '(?:and|und|et|y|e|en|och|og|&)';
const PATTERNS = [
  new RegExp(`^(.+?)\\s+[-\u2013]\\s+${YEAR}(?:\\s+[-\u2013]\\s+(.+))?$`, 'u'),
  new RegExp(`^([^_]+?)_${YEAR}(?:_(.+))?$`, 'u'),
];
const FAMILY = /^(?:\p{Ll}+\s){0,3}\p{Lu}[\p{L}'\u2019-]*(?:\s\p{Lu}[\p{L}'\u2019-]*)?$/u;

function creators(part: string): { authors: string[]; etAl: boolean } | undefined {
  let s = part.trim();
  let etAl = false;
  const et = /\s+et\s+al\.?$/i.exec(s);
  if (et) {
    etAl = true;
    s = s.slice(0, et.index).trim();
  }
  const names = s.split(new RegExp(`\\s+${AND}\\s+`, 'iu')).map((n) => n.trim());
  if (names.length > 2 || (etAl && names.length > 1)) return undefined;
  if (!names.every((n) => FAMILY.test(n))) return undefined;
  return { authors: names, etAl };
}

/** The author/year/title a Zotero-style file name carries, or undefined when it has none. */
export function metaFromFileName(fileName: string): FileNameMeta | undefined {
  const base = fileName.split(/[\\/]/).pop() ?? fileName;
  const stem = base
    .replace(/\.[A-Za-z0-9]{1,5}$/, '')
    .normalize('NFC')
    .trim();
  for (const re of PATTERNS) {
    const m = re.exec(stem);
    if (!m) continue;
    const who = creators(m[1].replace(/_/g, ' '));
    if (!who) continue;
    const title = m[3]
      ?.replace(/_/g, ' ')
      .replace(/(?:\u2026|\.\.\.)$/, '')
      .replace(/\s+/g, ' ')
      .trim();
    return { ...who, year: Number(m[2]), ...(title ? { title } : {}) };
  }
  return undefined;
}

/** Lower-case letters and digits only: titles compared across file names, libraries and text. */
export function titleKey(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');
}

/** A citation key or name as compared: letters and digits only, lower-case, accents dropped. */
export const normKey = titleKey;
