// A per-file sidecar: metadata in a file beside its document, with the same name
// (paper.pdf + paper.bib, paper.yaml, paper.yml, paper.toml, paper.json or paper.ris). A .json
// sidecar is an object of fields or a CSL-JSON array (Zotero's "Export Item… → CSL JSON" of one
// item); a sidecar with several entries gives the one that matches the document
// (library-match.ts), else the first, unless another entry names a different access group.
import type { DocMeta } from '../../types.ts';
import { bibEntryMeta, parseBibtex } from './bibtex.ts';
import { firstLine, isPlainObject, normalizeMeta, type MetaResult } from './coerce.ts';
import { cslItemMeta, isCslLibrary } from './csl.ts';
import { checkJsonFields, parseTomlFields, parseYamlFields } from './field-text.ts';
import { parseLibrary, type LibraryFormat } from './library.ts';
import { matchLibraries } from './library-match.ts';
import { readRisLibrary } from './ris.ts';

export interface SidecarResult extends MetaResult {
  /** Why the file cannot be read as metadata at all; its document must then not be indexed. */
  unreadable?: string;
}

const NO_ENTRIES = 'BibTeX file has no entries';

/**
 * Why a sidecar whose entries match none by name cannot be read for access: its first entry is
 * taken, and another entry names a different group (the file is about one document, so which
 * group holds is unknown). Undefined when every entry that names a group names the first's.
 */
function unmatchedGroups(metas: DocMeta[]): string | undefined {
  const claim = (m: DocMeta) => m.access ?? (m.invalidAccess !== undefined ? m.invalidAccess : undefined);
  const first = claim(metas[0]);
  const other = metas
    .slice(1)
    .map(claim)
    .find((c) => c !== undefined && c !== first);
  if (other === undefined) return undefined;
  return (
    `its entries name different access groups (${first === undefined ? 'none' : `"${first}"`} ` +
    `in the first, "${other}" in another) and none is named after the document`
  );
}

/** Which of several entries describes the document `docName` (by file name, key or title), if one does. */
function entryFor(format: LibraryFormat, text: string, docName: string | undefined): number | undefined {
  if (!docName) return undefined;
  const lib = parseLibrary(format, text);
  const m = matchLibraries({ rel: docName }, [{ origin: '', library: lib }]);
  const winner = m.layers.find((l) => !l.unreadable && l.complete)?.meta;
  const i = winner ? lib.entries.findIndex((e) => e.meta === winner) : -1;
  return i >= 0 ? i : undefined;
}

function bibSidecar(text: string, docName: string | undefined): SidecarResult {
  const file = parseBibtex(text);
  const chosen = file.entries.length > 1 && file.broken.length === 0 ? entryFor('bibtex', text, docName) : undefined;
  const entry = file.entries[chosen ?? 0];
  if (file.broken.length) {
    // The broken entry may be the one that restricts the document: the file as a whole is refused.
    const reason = `invalid BibTeX: ${file.broken[0]}`;
    return { meta: entry ? bibEntryMeta(entry).meta : {}, warnings: [reason], unreadable: reason };
  }
  if (!entry)
    return text.trim() === '' ? { meta: {}, warnings: [NO_ENTRIES] } : { meta: {}, warnings: [NO_ENTRIES], unreadable: NO_ENTRIES };
  const r = bibEntryMeta(entry);
  const unmatched = file.entries.length > 1 && chosen === undefined;
  const mixed = unmatched ? unmatchedGroups(file.entries.map((e) => bibEntryMeta(e).meta)) : undefined;
  if (mixed) return { meta: r.meta, warnings: [mixed], unreadable: mixed };
  const more = unmatched ? [`BibTeX file has ${file.entries.length} entries; using the first ("${entry.key}")`] : [];
  return { meta: r.meta, warnings: [...more, ...r.warnings] };
}

function cslSidecar(items: Record<string, unknown>[], text: string, docName: string | undefined): SidecarResult {
  if (items.length === 0) return { meta: {}, warnings: ['CSL-JSON file has no items'] };
  const chosen = items.length > 1 ? entryFor('csl-json', text, docName) : undefined;
  const r = cslItemMeta(items[chosen ?? 0]);
  const unmatched = items.length > 1 && chosen === undefined;
  const mixed = unmatched ? unmatchedGroups(items.map((i) => cslItemMeta(i).meta)) : undefined;
  if (mixed) return { meta: r.meta, warnings: [mixed], unreadable: mixed };
  const more = unmatched ? [`CSL-JSON file has ${items.length} items; using the first`] : [];
  return { meta: r.meta, warnings: [...more, ...r.warnings] };
}

function risSidecar(text: string, docName: string | undefined): SidecarResult {
  const read = readRisLibrary(text);
  if (read.broken.length || read.unreadable) {
    // A broken record may be the one that restricts the document: the file as a whole is refused.
    const reason = `invalid RIS: ${read.unreadable ?? read.broken[0].reason}`;
    return { meta: {}, warnings: [reason], unreadable: reason };
  }
  if (read.entries.length === 0) return { meta: {}, warnings: ['RIS file has no records'] };
  const chosen = read.entries.length > 1 ? entryFor('ris', text, docName) : undefined;
  const entry = read.entries[chosen ?? 0];
  const unmatched = read.entries.length > 1 && chosen === undefined;
  const mixed = unmatched ? unmatchedGroups(read.entries.map((e) => e.meta)) : undefined;
  if (mixed) return { meta: entry.meta, warnings: [mixed], unreadable: mixed };
  const more = unmatched ? [`RIS file has ${read.entries.length} records; using the first`] : [];
  return { meta: entry.meta, warnings: [...more, ...entry.warnings] };
}

/**
 * Metadata from a sidecar file. Never throws; a file that cannot be parsed as a whole comes back
 * `unreadable` (it may be the one carrying the document's access group, so the caller fails
 * closed), wrong values as warnings.
 */
export function parseSidecar(fileName: string, text: string, docName?: string): SidecarResult {
  const ext = /\.([^./\\]+)$/.exec(fileName)?.[1]?.toLowerCase() ?? '';
  const body = text.replace(/^\uFEFF/, '');
  if (ext === 'bib' || ext === 'bibtex') return bibSidecar(body, docName);
  if (ext === 'ris') return risSidecar(body, docName);
  if (ext === 'yaml' || ext === 'yml' || ext === 'toml') {
    const { data, warning } = ext === 'toml' ? parseTomlFields(body) : parseYamlFields(body);
    if (!data) return { meta: {}, warnings: [`${fileName}: ${warning}`], unreadable: warning };
    return normalizeMeta(data);
  }
  if (ext === 'json') {
    try {
      const data: unknown = JSON.parse(body);
      if (isCslLibrary(data)) return cslSidecar(data as Record<string, unknown>[], body, docName);
      if (!isPlainObject(data)) {
        const reason = Array.isArray(data)
          ? 'JSON array holds values that are not CSL-JSON items'
          : 'JSON is neither an object nor a CSL-JSON array';
        return { meta: {}, warnings: [`${fileName}: ${reason}`], unreadable: reason };
      }
      const fields = checkJsonFields(data, body);
      if (!fields.data) return { meta: {}, warnings: [`${fileName}: ${fields.warning}`], unreadable: fields.warning };
      return normalizeMeta(fields.data);
    } catch (err) {
      return { meta: {}, warnings: [`${fileName}: invalid JSON: ${firstLine(err)}`], unreadable: `invalid JSON: ${firstLine(err)}` };
    }
  }
  const reason = `unsupported sidecar type ".${ext}" (use .bib, .yaml, .yml, .toml, .json or .ris)`;
  return { meta: {} as DocMeta, warnings: [`${fileName}: ${reason}`], unreadable: reason };
}
