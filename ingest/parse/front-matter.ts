// YAML front matter at the top of a Markdown or plain-text file -> DocMeta and the body after it.
// Plain-text notes carry front matter as often as Markdown pages do, and it may say who may read
// them: both formats read it here, the same way. Blank lines before the opening "---" are
// allowed, since editors and exports leave them there.
import matter from 'gray-matter';
import type { DocMeta } from '../../src/types.ts';
import { SAFE_MATTER_OPTIONS, firstLine, isPlainObject, normalizeMeta } from '../metadata/coerce.ts';

export interface FrontMatter {
  meta: DocMeta;
  /** The text after the front matter (the whole text when there is none). */
  body: string;
  warnings: string[];
}

const FRONT_MATTER = /^(?:[ \t]*\n)*---[ \t]*\n([\s\S]*?)\n(?:---|\.\.\.)[ \t]*(?:\n|$)/;

function split(text: string): { data: Record<string, unknown>; body: string; broken?: string } {
  const m = FRONT_MATTER.exec(text);
  if (!m) return { data: {}, body: text };
  const block = m[1];
  const looksLikeYaml = /^[A-Za-z_][\w .-]*:(\s|$)/m.test(block);
  try {
    const parsed: unknown = matter(`---\n${block}\n---\n`, SAFE_MATTER_OPTIONS).data;
    if (isPlainObject(parsed)) return { data: parsed, body: text.slice(m[0].length) };
    // A scalar: "---" was a thematic break around ordinary text, not front matter.
    return { data: {}, body: text };
  } catch (err) {
    if (!looksLikeYaml) return { data: {}, body: text };
    return { data: {}, body: text.slice(m[0].length), broken: firstLine(err) };
  }
}

/**
 * Reads the front matter of a decoded text. Front matter that looks like YAML but cannot be
 * parsed comes back as `meta.unreadableFrontMatter`: it may have carried the document's access
 * group, so the document must not be indexed.
 */
export function readFrontMatter(text: string): FrontMatter {
  const fm = split(text.replace(/^\uFEFF/, ''));
  const { meta, warnings: metaWarnings } = normalizeMeta(fm.data);
  const warnings = [...(fm.broken ? [`front matter ignored: ${fm.broken}`] : []), ...metaWarnings.map((w) => `front matter ${w}`)];
  return { meta: fm.broken ? { ...meta, unreadableFrontMatter: fm.broken } : meta, body: fm.body, warnings };
}
