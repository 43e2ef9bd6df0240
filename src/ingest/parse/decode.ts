// Bytes -> string for the text formats (Markdown, plain text, HTML), refusing what is not text.
import { ParseError } from './errors.ts';

export interface DecodedText {
  text: string;
  warnings: string[];
}

const SAMPLE = 64 * 1024;

/** True for C0 control bytes that never occur in ordinary text files (tab, newlines, form feed are fine). */
const isOddControl = (b: number) => b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c;

function looksBinary(bytes: Uint8Array): boolean {
  if (bytes.includes(0)) return true;
  const n = Math.min(bytes.length, SAMPLE);
  let odd = 0;
  for (let i = 0; i < n; i++) if (isOddControl(bytes[i])) odd++;
  // A stray escape or two (terminal colours pasted into notes) is still text; dozens are not.
  return odd > 4 && odd / n > 0.01;
}

function countSubsequence(bytes: Uint8Array, a: number, b: number, c: number): number {
  let n = 0;
  for (let i = 0; i + 2 < bytes.length; i++) if (bytes[i] === a && bytes[i + 1] === b && bytes[i + 2] === c) n++;
  return n;
}

const normaliseNewlines = (s: string) => s.replace(/\r\n?/g, '\n');

/**
 * Decode a text file as UTF-8 (or UTF-16 with a byte-order mark). A handful of invalid bytes are
 * replaced with U+FFFD and reported; more than that means the file is in another encoding or
 * not text at all, and guessing would index mojibake, so it is refused.
 */
export function decodeText(bytes: Uint8Array): DecodedText {
  if (bytes.length === 0) throw new ParseError('empty file');

  if (bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))) {
    const encoding = bytes[0] === 0xff ? 'utf-16le' : 'utf-16be';
    try {
      const text = new TextDecoder(encoding, { fatal: true }).decode(bytes.subarray(2));
      return { text: normaliseNewlines(text), warnings: [] };
    } catch (cause) {
      throw new ParseError(`invalid ${encoding.toUpperCase()} text`, { cause });
    }
  }

  if (looksBinary(bytes)) throw new ParseError('binary content in a text file');

  const body = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
  try {
    return { text: normaliseNewlines(new TextDecoder('utf-8', { fatal: true }).decode(body)), warnings: [] };
  } catch {
    const text = new TextDecoder('utf-8').decode(body);
    let replaced = 0;
    for (const ch of text) if (ch === '\uFFFD') replaced++;
    const bad = replaced - countSubsequence(body, 0xef, 0xbf, 0xbd);
    if (bad > Math.max(3, text.length / 2000)) {
      throw new ParseError(`invalid UTF-8 (${bad} bad byte sequences; save the file as UTF-8)`);
    }
    return {
      text: normaliseNewlines(text),
      warnings: [`${bad} invalid UTF-8 byte sequence${bad === 1 ? '' : 's'} replaced with U+FFFD`],
    };
  }
}

/** Decode XML parts inside Office files: they are UTF-8 by specification, so be lenient. */
export const decodeXml = (bytes: Uint8Array): string => {
  const body = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
  return new TextDecoder('utf-8').decode(body);
};
