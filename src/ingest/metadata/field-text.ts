// Metadata fields written as text, in a YAML or TOML sidecar or in a block of front matter. Each
// format is read by its own parser (`yaml`, `smol-toml`): wrapping a YAML file in "---" lines for a
// front-matter reader is what once let a sidecar's own "---" end the block before its `access`.
// Either way, what comes back has the fields of one document, or says why it cannot be trusted:
// the caller then fails closed, since the unread part may be the one restricting the document.
import { parse as parseToml } from 'smol-toml';
import { parseAllDocuments } from 'yaml';
import { ACCESS_KEYS, readAccessField } from '../access.ts';
import { firstLine, isPlainObject } from './coerce.ts';

export interface FieldsRead {
  /** The fields, when the text is one mapping of fields to values. */
  data?: Record<string, unknown>;
  /** Why the text cannot be read as fields. */
  warning?: string;
}

// An alias bomb ("a: &a [*a, *a, ...]") expands exponentially; a hand-written file needs few.
const MAX_ALIASES = 100;
// Nesting a metadata file never needs, and that would otherwise recurse deeply.
const MAX_DEPTH = 32;

/**
 * A line that writes an access field: `access: x`, `"Access" = "x"`. Indented ones count too: one
 * swallowed by a folded title or put under another key was still written to restrict the file.
 */
const ACCESS_LINE = new RegExp(`^[ \\t]*["']?(?:${ACCESS_KEYS.join('|')})["']?[ \\t]*[:=]`, 'i');

/** The first line of `text` that looks like an access field, with its number. */
export function accessLine(text: string): { n: number; line: string } | undefined {
  const lines = text.split(/\r?\n/);
  const i = lines.findIndex((l) => ACCESS_LINE.test(l));
  return i < 0 ? undefined : { n: i + 1, line: lines[i].trim().slice(0, 80) };
}

const isAccessKey = (k: string) => (ACCESS_KEYS as readonly string[]).includes(k.toLowerCase().trim());

/** The path of an access key below the top level ("meta.access"), if there is one. */
function nestedAccessKey(v: unknown, at: string, depth = 0, seen = new Set<object>()): string | undefined {
  // `seen`: YAML aliases share one object between several places; each is looked at once.
  if (depth > MAX_DEPTH || typeof v !== 'object' || v === null || seen.has(v)) return undefined;
  seen.add(v);
  for (const [k, child] of Object.entries(v)) {
    const here = at ? `${at}.${k}` : k;
    if (depth > 0 && isAccessKey(k)) return here;
    const found = nestedAccessKey(child, here, depth + 1, seen);
    if (found) return found;
  }
  return undefined;
}

/**
 * `data` as the fields of a document, unless it writes an access field that is not read as one:
 * a line of `text` (a folded YAML value or an unclosed quote swallowing it), or a key under
 * another key (a YAML mapping, a TOML table, a JSON object). The writer meant to restrict the
 * document, and the fields read say otherwise.
 */
export function checkAccessRead(data: Record<string, unknown>, text?: string): FieldsRead {
  const claim = readAccessField(data);
  if (claim.access !== undefined || claim.invalidAccess !== undefined) return { data };
  const nested = nestedAccessKey(data, '');
  if (nested) return { warning: `"${nested}" looks like an access field, but only a top-level one is read` };
  const line = text === undefined ? undefined : accessLine(text);
  if (line) return { warning: `line ${line.n} ("${line.line}") looks like an access field, but it is not read as one` };
  return { data };
}

/**
 * One YAML document of fields. "---" before it and "---" or "..." after it are YAML's own
 * document markers and are allowed; a file holding more than one document is refused, since
 * which one describes the file is unknown.
 */
export function parseYamlFields(text: string): FieldsRead {
  const body = text.replace(/^\uFEFF/, '');
  let docs: ReturnType<typeof parseAllDocuments>;
  try {
    // YAML 1.1, as most hand-written metadata assumes (dates, yes/no), like the reader used before.
    docs = parseAllDocuments(body, { schema: 'yaml-1.1', uniqueKeys: true, prettyErrors: false });
  } catch (err) {
    return { warning: `invalid YAML: ${firstLine(err)}` };
  }
  const list = Array.isArray(docs) ? docs : [];
  // A warning is refused too: an unknown tag ("!!js/function") would otherwise be read as its text.
  const broken = list.map((d) => d.errors[0] ?? d.warnings[0]).find((e) => e !== undefined);
  if (broken) return { warning: `invalid YAML: ${firstLine(broken)}` };
  let values: unknown[];
  try {
    values = list.map((d) => d.toJS({ maxAliasCount: MAX_ALIASES }) as unknown);
  } catch (err) {
    return { warning: `invalid YAML: ${firstLine(err)}` };
  }
  // An empty document (nothing, or only comments, between two markers) holds no fields.
  const filled = values.filter((v) => v !== null && v !== undefined);
  if (filled.length > 1) return { warning: 'YAML file holds more than one document' };
  if (filled.length === 0) return checkAccessRead({}, body);
  const value = filled[0];
  if (!isPlainObject(value)) return { warning: 'YAML is not a mapping of fields to values' };
  return checkAccessRead(value, body);
}

/** A TOML table of fields (a `.toml` sidecar, or front matter between "+++" lines). */
export function parseTomlFields(text: string): FieldsRead {
  const body = text.replace(/^\uFEFF/, '');
  let value: unknown;
  try {
    value = parseToml(body, { maxDepth: MAX_DEPTH, unsafeKeyBehaviour: 'drop' });
  } catch (err) {
    return { warning: `invalid TOML: ${firstLine(err)}` };
  }
  if (!isPlainObject(value)) return { warning: 'TOML is not a table of fields' };
  return checkAccessRead(value, body);
}

/** How many keys of `v`, at any depth, are access keys. */
function countAccessKeys(v: unknown, depth = 0): number {
  if (depth > MAX_DEPTH || typeof v !== 'object' || v === null) return 0;
  return Object.entries(v).reduce((n, [k, child]) => n + (isAccessKey(k) ? 1 : 0) + countAccessKeys(child, depth + 1), 0);
}

const JSON_ACCESS_KEY = new RegExp(`"[ \\t]*(?:${ACCESS_KEYS.join('|')})[ \\t]*"[ \\t\\r\\n]*:`, 'gi');

/**
 * A JSON object of fields, read from `text`. JSON.parse keeps the last of two equal keys without
 * a word, so an access key written twice ("access": "pi-only", …, "access": "public") is refused:
 * which one was meant is unknown.
 */
export function checkJsonFields(data: Record<string, unknown>, text: string): FieldsRead {
  if ((text.match(JSON_ACCESS_KEY) ?? []).length > countAccessKeys(data)) return { warning: 'an access key is written twice' };
  return checkAccessRead(data);
}

/** A JSON object of fields (front matter written as `---json`). */
export function parseJsonFields(text: string): FieldsRead {
  const body = text.replace(/^\uFEFF/, '');
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    return { warning: `invalid JSON: ${firstLine(err)}` };
  }
  if (!isPlainObject(value)) return { warning: 'JSON is not an object of fields' };
  return checkJsonFields(value, body);
}
