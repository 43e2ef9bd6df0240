// RIS: the tagged format every reference manager exports ("TY  - JOUR" ... "ER  - "). Tags read:
// TY type; AU/A1 authors; PY/Y1/DA dates; TI/T1 title; JF/JO/T2 journal; DO DOI; UR URL; KW
// keywords; L1/L4 attached files; ID citation key; M2 Zotero's Extra field (where an
// "access: group" line goes). No library reads RIS well enough here (the npm parsers drop
// repeated tags or need a build step), and the format is one tag per line, so it is read by hand.
import type { DocMeta } from '../../types.ts';
import { readAccessFields } from '../access.ts';
import { coerceKeywords, coerceYear, normalizeAuthorName, normalizeDoi, type MetaResult } from './coerce.ts';
import { describeValue } from '../describe-value.ts';
import { extraFieldRecords } from './extra-field.ts';
import { entryDigest, entryLabel, pathFileNames, type LibraryEntry, type LibraryRead } from './library-entry.ts';

/** One RIS record: each tag with its values in order, and the record's own text. */
export interface RisRecord {
  tags: Map<string, string[]>;
  raw: string;
}

// "TY  - JOUR": two upper-case characters, two spaces, a hyphen (exporters vary the spacing).
const TAG_LINE = /^([A-Z][A-Z0-9])\s{1,3}-(?:\s(.*))?$/;

const NOT_PAPERS = new Set(['SLIDE', 'COMP', 'VIDEO', 'SOUND', 'ART', 'MAP', 'ELEC', 'BLOG', 'ICOMM', 'PCOMM']);

/** Splits a RIS text into records; a record never closed by `ER` (a cut-off file) is broken. */
export function parseRis(text: string): { records: RisRecord[]; broken: LibraryRead['broken'] } {
  const records: RisRecord[] = [];
  const broken: LibraryRead['broken'] = [];
  let cur: { tags: Map<string, string[]>; lines: string[]; last?: string } | undefined;
  for (const rawLine of text.replace(/^\uFEFF/, '').split(/\r?\n/)) {
    const line = rawLine.replace(/\s+$/, '');
    const m = TAG_LINE.exec(line);
    if (!m) {
      // A wrapped value (long abstracts) continues the previous tag.
      if (cur?.last && line.trim()) {
        const vals = cur.tags.get(cur.last)!;
        vals[vals.length - 1] = `${vals[vals.length - 1]} ${line.trim()}`;
        cur.lines.push(rawLine);
      } else if (line.trim() && cur) cur.lines.push(rawLine);
      continue;
    }
    const [, tag, value = ''] = m;
    if (tag === 'TY') {
      if (cur) broken.push({ reason: `record ${records.length + broken.length + 1} has no "ER" line`, text: cur.lines.join('\n') });
      cur = { tags: new Map(), lines: [] };
    }
    if (!cur) continue;
    cur.lines.push(rawLine);
    if (tag === 'ER') {
      records.push({ tags: cur.tags, raw: cur.lines.join('\n') });
      cur = undefined;
      continue;
    }
    const list = cur.tags.get(tag) ?? [];
    list.push(value.trim());
    cur.tags.set(tag, list);
    cur.last = tag;
  }
  if (cur)
    broken.push({ reason: `record ${records.length + broken.length + 1} has no "ER" line (file cut off?)`, text: cur.lines.join('\n') });
  return { records, broken };
}

const first = (r: RisRecord, ...tags: string[]) => {
  for (const t of tags) {
    const v = r.tags.get(t)?.find((x) => x !== '');
    if (v) return v;
  }
  return undefined;
};
const all = (r: RisRecord, ...tags: string[]) => tags.flatMap((t) => r.tags.get(t) ?? []).filter((v) => v !== '');

/** One RIS record as metadata. */
export function risRecordMeta(r: RisRecord): MetaResult {
  const warnings: string[] = [];
  const meta: DocMeta = {};
  const title = first(r, 'TI', 'T1', 'CT');
  if (title) meta.title = title.replace(/\s+/g, ' ');
  const authors = all(r, 'AU', 'A1').map(normalizeAuthorName).filter(Boolean);
  if (authors.length) meta.authors = authors;
  // PY and Y1 are "2022" or "2022/03/01/"; DA is the full date.
  const dateText = first(r, 'PY', 'Y1', 'DA');
  const year = coerceYear(dateText ?? '');
  if (year !== undefined) meta.year = year;
  else if (dateText) warnings.push(`"PY": expected a year, got ${describeValue(dateText)}`);
  const journal = first(r, 'JF', 'T2', 'JO', 'JA', 'J2');
  if (journal) meta.journal = journal;
  const doiText = first(r, 'DO', 'M3');
  if (doiText) {
    const doi = normalizeDoi(doiText);
    if (doi) meta.doi = doi;
    else if (r.tags.has('DO')) warnings.push(`"DO": not a DOI: ${describeValue(doiText)}`);
  }
  const url = all(r, 'UR').find((u) => /^https?:\/\/\S+$/i.test(u) && URL.canParse(u));
  if (url) meta.url = url;
  const keywords = coerceKeywords(all(r, 'KW'));
  if (keywords?.length) meta.keywords = keywords;
  const type = first(r, 'TY');
  if (type && !NOT_PAPERS.has(type.toUpperCase())) meta.kind = 'paper';
  const access = readAccessFields(all(r, 'M2').flatMap((t) => extraFieldRecords(t)));
  if (access.access) meta.access = access.access;
  if (access.invalidAccess !== undefined) {
    meta.invalidAccess = access.invalidAccess;
    warnings.push(`"access": ${access.invalidAccess} is not a group name (letters, digits, "_" and "-" only)`);
  }
  return { meta, warnings };
}

/** Reads a RIS text: every record with the keys documents are matched by. */
export function readRisLibrary(text: string): LibraryRead {
  const { records, broken } = parseRis(text);
  const entries: LibraryEntry[] = records.map((r, n) => {
    const m = risRecordMeta(r);
    const key = first(r, 'ID');
    return {
      label: entryLabel(key, m.meta, n),
      key,
      meta: m.meta,
      warnings: m.warnings,
      files: pathFileNames(all(r, 'L1', 'L4')),
      digest: entryDigest(r.raw),
    };
  });
  if (entries.length === 0 && broken.length === 0 && text.trim() !== '')
    return { entries, broken, unreadable: 'RIS file has no records (no "TY  - " line)' };
  return { entries, broken };
}
