// A per-file sidecar: metadata in a file beside its document, with the same name
// (paper.pdf + paper.bib, paper.yaml, paper.yml or paper.json).
import type { DocMeta } from '../../src/types.ts';
import { bibEntryMeta, parseBibtex } from './bibtex.ts';
import { firstLine, isPlainObject, normalizeMeta, parseYamlObject, type MetaResult } from './coerce.ts';

export interface SidecarResult extends MetaResult {
  /** Why the file cannot be read as metadata at all; its document must then not be indexed. */
  unreadable?: string;
}

const NO_ENTRIES = 'BibTeX file has no entries';

function bibSidecar(text: string): SidecarResult {
  const file = parseBibtex(text);
  const [entry] = file.entries;
  if (file.broken.length) {
    // The broken entry may be the one that restricts the document: the file as a whole is refused.
    const reason = `invalid BibTeX: ${file.broken[0]}`;
    return { meta: entry ? bibEntryMeta(entry).meta : {}, warnings: [reason], unreadable: reason };
  }
  if (!entry) return text.trim() === '' ? { meta: {}, warnings: [NO_ENTRIES] } : { meta: {}, warnings: [NO_ENTRIES], unreadable: NO_ENTRIES };
  const r = bibEntryMeta(entry);
  const more = file.entries.length > 1 ? [`BibTeX file has ${file.entries.length} entries; using the first ("${entry.key}")`] : [];
  return { meta: r.meta, warnings: [...more, ...r.warnings] };
}

/**
 * Metadata from a sidecar file. Never throws; a file that cannot be parsed as a whole comes back
 * `unreadable` (it may be the one carrying the document's access group, so the caller fails
 * closed), wrong values as warnings.
 */
export function parseSidecar(fileName: string, text: string): SidecarResult {
  const ext = /\.([^./\\]+)$/.exec(fileName)?.[1]?.toLowerCase() ?? '';
  const body = text.replace(/^\uFEFF/, '');
  if (ext === 'bib' || ext === 'bibtex') return bibSidecar(body);
  if (ext === 'yaml' || ext === 'yml') {
    const { data, warning } = parseYamlObject(body);
    if (!data) return { meta: {}, warnings: [`${fileName}: ${warning}`], unreadable: warning };
    return normalizeMeta(data);
  }
  if (ext === 'json') {
    try {
      const data: unknown = JSON.parse(body);
      if (!isPlainObject(data)) return { meta: {}, warnings: [`${fileName}: JSON is not an object`], unreadable: 'JSON is not an object' };
      return normalizeMeta(data);
    } catch (err) {
      return { meta: {}, warnings: [`${fileName}: invalid JSON: ${firstLine(err)}`], unreadable: `invalid JSON: ${firstLine(err)}` };
    }
  }
  const reason = `unsupported sidecar type ".${ext}" (use .bib, .yaml, .yml or .json)`;
  return { meta: {} as DocMeta, warnings: [`${fileName}: ${reason}`], unreadable: reason };
}
