// Text that leaves labbot carries only characters a reader can see (and copy) as they are. Documents
// and models bring control characters (a PDF's \u0002, escape sequences, a model's NUL) and invisible
// formatting characters: zero-width spaces that end up inside a copied primer name, bidi overrides
// that show a file name backwards (Trojan Source), Unicode tag characters that smuggle text no
// reader sees. One rule, applied by every output (Slack's outgoing requests, the CLI).

// C0 and C1 controls except tab and line feed (line breaks are normalised to \n first).
const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;
// Format characters (Unicode Cf: zero-width space, bidi embeddings/overrides/isolates, word joiner,
// BOM, soft hyphen, tags, …) and the other default-ignorable code points (the Hangul fillers
// U+3164/U+FFA0 that render as nothing, the combining grapheme joiner, …), except ZWNJ and ZWJ,
// which Persian and Indic scripts and emoji sequences (👩‍🔬) need, and the variation selectors
// that choose an emoji's or an ideograph's form.
const INVISIBLE = /(?!\u200c|\u200d|[\ufe00-\ufe0f]|[\u{e0100}-\u{e01ef}])[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;
// Letters that draw as blank space without being whitespace (the Braille blank): a space, so a
// reader sees the gap it makes.
const BLANK = /\u2800/g;

// Half of a surrogate pair on its own is not a character (JSON encoders and Slack choke on it).
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** `text` with line breaks as \n, controls as spaces, invisible formatting removed, lone surrogates replaced. */
export function visibleText(text: string): string {
  return text
    .replace(/\r\n?|[\u2028\u2029]/g, '\n')
    .replace(CONTROLS, ' ')
    .replace(INVISIBLE, '')
    .replace(BLANK, ' ')
    .replace(LONE_SURROGATE, '\ufffd');
}

/** True when `text` holds a character visibleText would change (tests and the fake Slack use it). */
export function hasInvisible(text: string): boolean {
  return visibleText(text) !== text;
}

/** Every string in a JSON-like value through visibleText (object keys too); other values as they are. */
export function visibleDeep<T>(value: T): T {
  if (typeof value === 'string') return visibleText(value) as T;
  if (Array.isArray(value)) return value.map((v) => visibleDeep(v)) as T;
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[visibleText(k)] = visibleDeep(v);
    return out as T;
  }
  return value;
}
