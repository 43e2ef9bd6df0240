// A machine translation of the question, read as evidence (pure). A rule-based translator leaves
// the words it does not know as they were: "intercepciones", "centrifuga", "microlitros". The
// evidence rule would weigh each as the question's most telling word (the index never saw it) and
// refuse for lacking it, though the passage says "interceptions". Such a word is replaced by the
// passage word it is a cognate of (long shared beginning), when the passages have one; a word with
// no cognate there stays, so a question about what the documents do not hold is still refused.
import { detectLanguage, tokenize } from '../search/tokenize.ts';

/** Shared leading letters that make two words cognates (as the reranker's word families). */
const COGNATE_PREFIX = 6;
/** ...and the share of the shorter word they must cover ("centrifuga" / "centrifuged"). */
const COGNATE_SHARE = 0.6;

const fold = (w: string): string => w.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
const WORD = /\p{L}[\p{L}\p{M}]*/gu;

const sharedStart = (a: string, b: string): number => {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
};

/** The passage word `word` is a cognate of, if any: the one sharing the longest beginning. */
function cognateIn(word: string, passageWords: ReadonlySet<string>): string | undefined {
  const w = fold(word);
  let best: string | undefined;
  let bestLength = 0;
  for (const p of passageWords) {
    const n = sharedStart(w, p);
    if (n >= COGNATE_PREFIX && n >= COGNATE_SHARE * Math.min(w.length, p.length) && n > bestLength) {
      best = p;
      bestLength = n;
    }
  }
  return best;
}

/**
 * The translation with each word it left untranslated (written as in the original question) that
 * the index has never seen replaced by its cognate in the passages.
 */
export function withCognates(translation: string, original: string, passages: readonly string[], df: (term: string) => number): string {
  const originalWords = new Set(Array.from(original.matchAll(WORD), (m) => fold(m[0])));
  const unseen = (w: string) => {
    const terms = tokenize(w);
    return terms.length > 0 && terms.every((t) => df(t) === 0);
  };
  let passageWords: Set<string> | undefined;
  return translation.replace(WORD, (w) => {
    if (w.length < COGNATE_PREFIX || !originalWords.has(fold(w)) || !unseen(w)) return w;
    passageWords ??= new Set(passages.flatMap((p) => Array.from(p.matchAll(WORD), (m) => fold(m[0]))));
    return cognateIn(w, passageWords) ?? w;
  });
}

/**
 * The translation with each word whose sense the passages do not use replaced by a sense they do
 * use (see Translator.senses): Apertium writes "hymn" for "himno" where the page says "anthem", and
 * the evidence rule would weigh "hymn" as missing. Only a translation of the word is put in, so a
 * question the passages do not answer gains nothing but a better-chosen word.
 */
export function withSenses(translation: string, senses: readonly string[][], passages: readonly string[]): string {
  if (senses.length === 0) return translation;
  const language = detectLanguage(translation);
  const terms = (text: string) => tokenize(text, { language });
  let passageTerms: Set<string> | undefined;
  const inPassages = (text: string) => {
    passageTerms ??= new Set(passages.flatMap(terms));
    const t = terms(text);
    return t.length > 0 && t.every((x) => passageTerms!.has(x));
  };
  const groups = senses.map((g) => ({ lemmas: g, stems: new Set(g.flatMap((l) => (terms(l).length === 1 ? terms(l) : []))) }));
  return translation.replace(WORD, (w) => {
    const [stem, ...more] = terms(w);
    if (stem === undefined || more.length > 0) return w;
    const group = groups.find((g) => g.stems.has(stem));
    if (!group || inPassages(w)) return w;
    return group.lemmas.find(inPassages) ?? w;
  });
}
