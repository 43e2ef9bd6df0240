// The form of a text that the instruction and fence matchers compare: what a reader (or a model)
// would read, not which code points spell it. "Ignоre" with a Cyrillic о, "ｉｇｎｏｒｅ", "ign\u200bore",
// "igno\u0301re" and "𝐢𝐠𝐧𝐨𝐫𝐞" all read "ignore". Pure: text in, text out.
//
// Unicode TR39 skeletons (NFD, each character to its confusables.txt prototype, NFD), adapted to
// matching English patterns: compatibility decomposition (NFKD, which also takes full-width and
// mathematical letters to ASCII) instead of NFD, ASCII left as written (the skeleton maps "m" to
// "rn" and "I" to "l", which no pattern could be written against), a lower-cased form looked up
// first (the skeleton of Cyrillic "І" is "l", of its lower case "і" is "i"), then combining marks
// and characters that render as nothing (default-ignorable code points such as U+034F and U+FE0F)
// dropped, blanks the width of a letter (Hangul fillers U+3164, the blank Braille pattern U+2800)
// read as spaces, and the result lower-cased.
import { CONFUSABLE_ASCII } from './confusables-table.ts';

const PROTOTYPE = new Map<string, string>(CONFUSABLE_ASCII.map(([cp, to]) => [String.fromCodePoint(cp), to]));

// Characters that render as a blank the width of a letter: Hangul fillers and the blank Braille
// pattern separate words as a space does ("Ignore\u3164previous").
const BLANK = /[\u115F\u1160\u3164\uFFA0\u2800]/gu;
// Marks and the default-ignorable code points (format characters, variation selectors, U+034F).
const INVISIBLE = /[\p{M}\p{Default_Ignorable_Code_Point}]/gu;
const NON_ASCII = /[^\x00-\x7f]/gu;
const ASCII_ONLY = /^[\x00-\x7f]*$/;

function prototypeOf(ch: string): string {
  const lower = ch.toLowerCase();
  return PROTOTYPE.get(lower) ?? (/^[\x00-\x7f]+$/.test(lower) ? lower : undefined) ?? PROTOTYPE.get(ch) ?? ch;
}

/** `text` as the matchers read it: look-alikes folded to ASCII, invisible characters and accents gone, lower case. */
export function skeleton(text: string): string {
  // Plain ASCII (most of a lab's English) has nothing to fold: only spaces, case and quotes.
  if (ASCII_ONLY.test(text)) return text.replace(/[^\S\n]+/g, ' ').toLowerCase();
  return (
    text
      .normalize('NFKD')
      .replace(NON_ASCII, prototypeOf)
      .normalize('NFKD')
      .replace(BLANK, ' ')
      .replace(INVISIBLE, '')
      .replace(/[^\S\n]+/g, ' ')
      .toLowerCase()
      // The prototype of a curly double quote is two apostrophes.
      .replace(/''/g, '"')
  );
}

// Full-width and small "<" (and "≮", "<" with an overlay) come to "<" by NFKD; the rest are
// TR39's look-alikes ("˂", "‹", "ᐸ", …) and angle brackets TR39 leaves apart but that read as the
// opening of a tag ("⟨/passage⟩", "〈passage〉").
const ANGLE_BRACKETS = ['\u2329', '\u3008', '\u27E8', '\u29FC', '\u276C', '\u2770', '\uFE3F'];

/** Every character that reads as the "<" opening a tag, ASCII first. */
export const LESS_THAN_SIGNS: readonly string[] = [
  '<',
  '\uFF1C',
  '\uFE64',
  '\u226E',
  // ("≪" reads as "<<".)
  ...CONFUSABLE_ASCII.filter(([, to]) => to.startsWith('<')).map(([cp]) => String.fromCodePoint(cp)),
  ...ANGLE_BRACKETS,
];
