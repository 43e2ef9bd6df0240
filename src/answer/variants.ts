// Lettered variants: "hepatitis C", "vitamin D", "group B". Two texts that share every other word
// are about different things when one says "hepatitis C" and the other "hepatitis G", so the
// letter is checked wherever an answer is held to its evidence: the extractive answerer's sentence
// choice and the model path's support check. Hand-written because no splitter or retriever
// library reads single-letter names. Pure.
import { tokenize } from '../search/tokenize.ts';

/** A capital letter naming a variant of the word before it, both as the tokenizer writes them. */
export interface Variant {
  head: string;
  letter: string;
}

/**
 * The lettered variants a text names. Not a unit after a number ("4 °C"), a lower-case symbol
 * ("x g") or a prefix ("T-stage"). The tokenizer drops "A" and "I" as words, so "influenza A" is
 * not told from "influenza B" here.
 */
export function letterVariants(text: string): Variant[] {
  const out: Variant[] = [];
  for (const m of text.matchAll(/(\p{L}{3,})[ -](\p{Lu})(?![\p{L}\p{N}°]|-\p{L})/gu)) {
    const [head] = tokenize(m[1]);
    const [letter] = tokenize(m[2]);
    if (head && letter && !out.some((v) => v.head === head && v.letter === letter)) out.push({ head, letter });
  }
  return out;
}

/**
 * Whether sentence `i` (of a passage whose sentences' terms `termsAt` gives) names the head word
 * of a variant without its letter in it or in a sentence beside it: it speaks of another variant.
 */
export function namesOtherVariant(variants: Variant[], termsAt: (i: number) => Set<string> | undefined, i: number): boolean {
  return variants.some((v) => termsAt(i)?.has(v.head) && ![-1, 0, 1].some((d) => holdsLetter(termsAt(i + d), v.letter)));
}

/** The letter alone, or with a number after it: "vitamin D3" is a vitamin D, "B12" a vitamin B. */
function holdsLetter(terms: Set<string> | undefined, letter: string): boolean {
  if (!terms) return false;
  if (terms.has(letter)) return true;
  for (const t of terms) if (t.startsWith(letter) && /^\p{L}\d{1,3}$/u.test(t)) return true;
  return false;
}

/**
 * Whether a passage speaks of the variants only as others: it names a head word, and never with
 * its letter beside it. A passage that does not name the head word is left to the other checks.
 */
export function onlyOtherVariants(variants: Variant[], sentenceTerms: Array<Set<string>>): boolean {
  return variants.some((v) => {
    const mentions = sentenceTerms.map((t, i) => (t.has(v.head) ? i : -1)).filter((i) => i >= 0);
    return mentions.length > 0 && mentions.every((i) => namesOtherVariant([v], (j) => sentenceTerms[j], i));
  });
}
