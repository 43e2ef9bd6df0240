// Front matter at the top of a Markdown or plain-text file -> DocMeta and the body after it.
// Plain-text notes carry front matter as often as Markdown pages do, and it may say who may read
// them: both formats read it here, the same way. Written as static-site generators and editors
// write it: YAML between "---" lines (closed by "---" or "..."), TOML between "+++" lines (Hugo,
// Zola), or "---yaml" / "---toml" / "---json" naming the language; blank lines (and a byte-order
// mark) before the opening line are allowed, since editors and exports leave them there.
// Each block is read by its own format's parser. A block that looks like metadata but cannot be
// read (invalid, never closed, in another language) comes back unreadable: it may be what
// restricts the document, so the document is not indexed.
import type { DocMeta } from '../../types.ts';
import { normalizeMeta } from '../metadata/coerce.ts';
import { accessLine, parseJsonFields, parseTomlFields, parseYamlFields, type FieldsRead } from '../metadata/field-text.ts';

export interface FrontMatter {
  meta: DocMeta;
  /** The text after the front matter (the whole text when there is none). */
  body: string;
  /** The text opens with a block of front matter (readable or not). */
  present: boolean;
  warnings: string[];
}

type Language = 'yaml' | 'toml' | 'json';

interface Fence {
  language: Language | { other: string };
  /** The line that closes the block. */
  close: RegExp;
  /** How the block is opened, for messages. */
  opener: string;
}

const READERS: Record<Language, (text: string) => FieldsRead> = { yaml: parseYamlFields, toml: parseTomlFields, json: parseJsonFields };
const LANGUAGE_NAMES: Record<string, Language> = { yaml: 'yaml', yml: 'yaml', toml: 'toml', json: 'json' };

// Zero-width characters and no-break spaces count as blank: they are invisible in an editor.
const BLANK = /^[\s\u200b-\u200d\u2060\ufeff]*$/;
// How far an unclosed block is searched for an access field before it is taken for body text.
const UNCLOSED_SCAN_LINES = 60;

function fenceOf(line: string): Fence | undefined {
  const t = line.trim();
  if (/^---[ \t]*(#.*)?$/.test(t)) return { language: 'yaml', close: /^[ \t]*(---|\.\.\.)[ \t]*$/, opener: '---' };
  if (/^\+\+\+$/.test(t)) return { language: 'toml', close: /^[ \t]*\+\+\+[ \t]*$/, opener: '+++' };
  const named = /^---[ \t]*([A-Za-z][\w-]*)$/.exec(t);
  if (named) {
    const name = named[1].toLowerCase();
    return { language: LANGUAGE_NAMES[name] ?? { other: name }, close: /^[ \t]*---[ \t]*$/, opener: t };
  }
  return undefined;
}

/** A block written as fields ("key: value", "key = value"), not a thematic break around prose. */
const looksLikeFields = (block: string) =>
  /^[ \t]*["']?[A-Za-z_][\w .-]*["']?[ \t]*(:(\s|$)|=)/m.test(block) || accessLine(block) !== undefined;

interface Split {
  data: Record<string, unknown>;
  body: string;
  present?: boolean;
  /** Why a block that looks like metadata cannot be read. */
  broken?: string;
}

function split(text: string): Split {
  const none: Split = { data: {}, body: text };
  const lines = text.split('\n');
  let open = 0;
  while (open < lines.length && BLANK.test(lines[open])) open++;
  const fence = open < lines.length ? fenceOf(lines[open]) : undefined;
  if (!fence) return none;
  let close = open + 1;
  while (close < lines.length && !fence.close.test(lines[close])) close++;
  if (close >= lines.length) {
    // No closing line: body text after a thematic break, unless it says who may read the file.
    const head = lines.slice(open + 1, open + 1 + UNCLOSED_SCAN_LINES).join('\n');
    if (!accessLine(head)) return none;
    return { data: {}, body: text, present: true, broken: `front matter opened with "${fence.opener}" on line ${open + 1} is not closed` };
  }
  const block = lines.slice(open + 1, close).join('\n');
  const body = lines.slice(close + 1).join('\n');
  if (typeof fence.language !== 'string') {
    return {
      data: {},
      body,
      present: true,
      broken: `front matter in "${fence.language.other}" is not read (write it in YAML, TOML or JSON)`,
    };
  }
  const read = READERS[fence.language](block);
  if (read.data) return { data: read.data, body, present: true };
  // YAML's "---" is also Markdown's thematic break: prose between two of them is not metadata.
  if (fence.language === 'yaml' && !looksLikeFields(block)) return none;
  return { data: {}, body, present: true, broken: read.warning };
}

/**
 * Reads the front matter of a decoded text. Front matter that looks like metadata but cannot be
 * read comes back as `meta.unreadableFrontMatter`: it may have carried the document's access
 * group, so the document must not be indexed.
 */
export function readFrontMatter(text: string): FrontMatter {
  const fm = split(text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n'));
  const { meta, warnings: metaWarnings } = normalizeMeta(fm.data);
  const warnings = [...(fm.broken ? [`front matter ignored: ${fm.broken}`] : []), ...metaWarnings.map((w) => `front matter ${w}`)];
  return { meta: fm.broken ? { ...meta, unreadableFrontMatter: fm.broken } : meta, body: fm.body, present: fm.present === true, warnings };
}
