// Zotero's Extra field: one "Label: value" per line, where people put what Zotero has no field
// for. Exports keep it as text (CSL-JSON `note`, Zotero's BibTeX `note`, RIS `M2`); Better BibTeX
// writes `tex.name: value` lines as BibTeX fields of their own. Read as records so the one access
// rule sees an `access: pi-only` line like any other access field.

const LINE = /^\s*(?:tex\.)?([A-Za-z][\w-]*)\s*:\s*(.*?)\s*$/;
// Zotero's older form: {:csl-variable: value}
const OLD_FORM = /\{:([A-Za-z][\w-]*):\s*([^}]*)\}/g;

/** One record per "key: value" line of an Extra-style text (a key may repeat on several lines). */
export function extraFieldRecords(text: string | undefined): Record<string, string>[] {
  if (!text) return [];
  const out: Record<string, string>[] = [];
  for (const line of text.split(/\r?\n|<br\s*\/?>/i)) {
    const m = LINE.exec(line);
    if (m) out.push({ [m[1]]: m[2] });
    for (const o of line.matchAll(OLD_FORM)) out.push({ [o[1]]: o[2].trim() });
  }
  return out;
}
