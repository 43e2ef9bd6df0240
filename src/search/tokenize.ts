// Text analysis shared by the lexical index, the offline reranker and the hash embedder.
// Documents and queries go through the same function so their terms agree; every rule below is
// therefore case-insensitive unless noted, because a user types "tp53" as often as "TP53".
import { newStemmer } from 'snowball-stemmers';
import { eng, spa } from 'stopword';

export type Language = 'en' | 'es';

export interface Token {
  term: string;
  /**
   * Word position in the text. Removed stop words still take a position, so distances between
   * terms reflect the original text; the joined form of a compound ("il6" for "IL-6") shares the
   * position of its first part and comes just before it, so positions never decrease.
   */
  position: number;
}

export interface TokenizeOptions {
  /** Stemming language; detected from the text when absent. Pass a document's declared language to pin it. */
  language?: Language;
}

export interface Analysed {
  terms: string[];
  /** positions[i] is the word position of terms[i]. */
  positions: number[];
  language: Language;
}

const fold = (w: string): string => w.normalize('NFKD').replace(/\p{M}+/gu, '');

// Library lists are short; the extras are function words that dominate questions ("does",
// "whether") or Spanish prose, yet carry no topic. Words that double as lab abbreviations
// ("ha" hectare) are deliberately not added.
const EN_EXTRA = ['does', 'doing', 'whether', 'its', 'itself', 'therefore', 'thus', 'however', 'within', 'upon'];
const ES_EXTRA = [
  'es',
  'son',
  'fue',
  'fueron',
  'este',
  'esta',
  'estos',
  'estas',
  'esto',
  'entre',
  'ser',
  'hay',
  'cual',
  'cuales',
  'otros',
  'otras',
  'otra',
  'todo',
  'todos',
  'toda',
  'todas',
  'tiene',
  'puede',
  'pueden',
  'segun',
  'cada',
  'asi',
  'mediante',
  'tras',
  'les',
  'nuestro',
  'nuestra',
];
const STOP = new Set([...eng, ...spa, ...EN_EXTRA, ...ES_EXTRA].map((w) => fold(w.toLowerCase())));

// Markers for language detection: frequent words that are unambiguous between the two languages
// ("a", "no", "me", "son", "con" are left out because both languages, or lab jargon, use them).
const EN_MARKERS = new Set([
  'the',
  'and',
  'of',
  'to',
  'is',
  'are',
  'was',
  'were',
  'that',
  'this',
  'with',
  'for',
  'from',
  'by',
  'on',
  'which',
  'what',
  'how',
  'does',
  'be',
  'it',
  'as',
  'at',
  'an',
  'or',
  'have',
  'has',
  'not',
  'in',
]);
const ES_MARKERS = new Set([
  'el',
  'la',
  'los',
  'las',
  'del',
  'de',
  'que',
  'y',
  'en',
  'es',
  'por',
  'para',
  'una',
  'un',
  'se',
  'lo',
  'como',
  'al',
  'su',
  'sus',
  'pero',
  'mas',
  'esta',
  'este',
  'fue',
  'entre',
  'cual',
  'cuando',
  'donde',
  'muy',
  'tambien',
  'desde',
  'hasta',
  'hay',
  'sobre',
]);
// Letters and marks typical of Spanish; each is weak evidence (an accented surname in an English
// question must not flip it), so they count half a marker word.
const ES_CHARS = /[ñáéíóú¿¡]/gi;

// Greek letters are spelled out so "TNF-α", "TNF-alpha" and "TNFalpha" meet on one term.
const GREEK: Record<string, string> = {
  α: 'alpha',
  β: 'beta',
  γ: 'gamma',
  δ: 'delta',
  ε: 'epsilon',
  ζ: 'zeta',
  η: 'eta',
  θ: 'theta',
  ι: 'iota',
  κ: 'kappa',
  λ: 'lambda',
  μ: 'mu',
  ν: 'nu',
  ξ: 'xi',
  ο: 'omicron',
  π: 'pi',
  ρ: 'rho',
  σ: 'sigma',
  ς: 'sigma',
  τ: 'tau',
  υ: 'upsilon',
  φ: 'phi',
  ϕ: 'phi',
  χ: 'chi',
  ψ: 'psi',
  ω: 'omega',
};
const GREEK_NAMES = new Set(Object.values(GREEK));
const NON_ASCII = /[^\x00-\x7f]/;
// Unicode hyphen variants inside names ("IL‐6") behave like "-"; en dashes stay separators
// because they mark ranges ("10–20").
const HYPHENS = /[\u2010\u2011]/g;

function foldText(text: string): string {
  let s = text.normalize('NFKD');
  s = s.replace(/[\u0370-\u03ff]/g, (c, offset: number, whole: string) => {
    const lower = c.toLowerCase();
    // μ before a unit letter is the micro prefix ("μg", "µL"), written "u" when typed in ASCII.
    if (lower === 'μ' && /[glms]/i.test(whole.charAt(offset + 1))) return 'u';
    return GREEK[lower] ?? c;
  });
  return s.replace(/\p{M}+/gu, '').replace(HYPHENS, '-');
}

/** Lower-cases, folds diacritics and spells out Greek letters, as the analyser does before splitting. */
export function normalizeText(text: string): string {
  return (NON_ASCII.test(text) ? foldText(text) : text).toLowerCase();
}

/**
 * The single-term key of an identifier as the analyser indexes it: "IL-6" -> "il6",
 * "sc-7392" -> "sc7392", "#1234" -> "1234", "TP53" -> "tp53".
 */
export function normalizeIdentifier(raw: string): string {
  return normalizeText(raw).replace(/[^\p{L}\p{N}]+/gu, '');
}

const stemmers = { en: newStemmer('english'), es: newStemmer('spanish') };
const stemCaches = { en: new Map<string, string>(), es: new Map<string, string>() };
// The vocabulary of a lab corpus is bounded, but a long-running process should not grow without limit.
const STEM_CACHE_LIMIT = 200_000;
// Longer letter runs are sequences (primers, peptides) or junk, not words: kept as they are.
const MAX_STEMMED_LENGTH = 40;

function stem(word: string, language: Language): string {
  const cache = stemCaches[language];
  let s = cache.get(word);
  if (s !== undefined) return s;
  let input = word;
  if (language === 'es') {
    // The Spanish stemmer only strips "-ción"/"-sión" when accented; users often type without
    // accents, so restore the accent to make "purificacion" and "purificación" meet.
    if (input.endsWith('cion') || input.endsWith('sion')) input = `${input.slice(0, -3)}ión`;
  }
  s = stemmers[language].stem(input);
  if (NON_ASCII.test(s)) s = fold(s);
  if (cache.size >= STEM_CACHE_LIMIT) cache.clear();
  cache.set(word, s);
  return s;
}

function upperRatio(text: string): number {
  let upper = 0;
  let letters = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 65 && c <= 90) {
      upper++;
      letters++;
    } else if (c >= 97 && c <= 122) letters++;
  }
  return letters === 0 ? 0 : upper / letters;
}

// Character classes for the scanner. The scanner is hand-written because it runs over every
// chunk at index build time, where a regex with match objects cost twice as much.
const OTHER = 0;
const LETTER = 1;
const DIGIT = 2;
const CONNECTOR = 3; // "-", "_", "." between alphanumerics join a compound
const APOSTROPHE = 4;
const ASCII_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  ASCII_CLASS[c] = /[a-zA-Z]/.test(ch) ? LETTER : /[0-9]/.test(ch) ? DIGIT : /[-_.]/.test(ch) ? CONNECTOR : ch === "'" ? APOSTROPHE : OTHER;
}
const wideClass = new Map<number, number>();
function classOf(c: number): number {
  if (c < 128) return ASCII_CLASS[c];
  let k = wideClass.get(c);
  if (k === undefined) {
    const ch = String.fromCharCode(c);
    k = c === 0x2019 ? APOSTROPHE : /\p{N}/u.test(ch) ? DIGIT : /\p{L}/u.test(ch) ? LETTER : OTHER;
    wideClass.set(c, k);
  }
  return k;
}

// English clitics dropped after an apostrophe: "patient's" -> "patient".
const CLITICS = new Set(['s', 't', 'd', 'll', 're', 've', 'm']);

// Per-word flags from one lookup: stop word, English marker, Spanish marker.
const F_STOP = 1;
const F_EN = 2;
const F_ES = 4;
const WORD_FLAGS = new Map<string, number>();
for (const w of STOP) WORD_FLAGS.set(w, F_STOP);
for (const w of EN_MARKERS) WORD_FLAGS.set(w, (WORD_FLAGS.get(w) ?? 0) | F_EN);
for (const w of ES_MARKERS) WORD_FLAGS.set(w, (WORD_FLAGS.get(w) ?? 0) | F_ES);

// Flags set by the scanner.
const W_DIGIT = 8;
const W_CAPS = 16; // written all upper case (only computed for stop words)

interface Scan {
  words: string[];
  positions: number[];
  flags: number[];
  en: number;
  es: number;
  upperRatio: () => number;
}

/**
 * Splits text into words, counting language markers on the way so detection costs no second
 * pass. A compound is alphanumeric runs joined by single "-", "_" or "." ("IL-6", "sc-7392",
 * "p.R175H"); digit runs joined by "." stay one part ("0.05", "1.5-fold" -> "1.5", "fold").
 */
function scan(text: string): Scan {
  let s = text;
  let es = 0;
  if (NON_ASCII.test(s)) {
    const m = s.match(ES_CHARS);
    if (m) es += 0.5 * Math.min(m.length, 8);
    s = foldText(s);
  }
  const lower = s.toLowerCase();
  // Lower-casing that changes length (rare scripts) would misalign offsets: scan the lower-case
  // text alone then, at the price of the upper-case stop-word rule.
  if (lower.length !== s.length) s = lower;
  const words: string[] = [];
  const positions: number[] = [];
  const flags: number[] = [];
  let en = 0;
  let pos = 0;
  const n = s.length;
  // Parts of the current compound (start, end, all digits, has a digit), reused across
  // compounds; np counts the parts in use (resetting array lengths was measurably slow).
  const ps: number[] = [];
  const pe: number[] = [];
  const pAllDigits: boolean[] = [];
  const pDigit: boolean[] = [];
  let np = 0;

  const wordFlags = (w: string, start: number, end: number, digit: boolean): number => {
    if (digit) return W_DIGIT;
    let f = WORD_FLAGS.get(w) ?? 0;
    if (f & F_STOP && end - start >= 2) {
      // Upper case means every letter differs from its lower-case form.
      let caps = true;
      for (let j = start; j < end && caps; j++) caps = s.charCodeAt(j) !== lower.charCodeAt(j);
      if (caps) f |= W_CAPS;
    }
    return f;
  };

  let i = 0;
  while (i < n) {
    let k = classOf(s.charCodeAt(i));
    if (k !== LETTER && k !== DIGIT) {
      i++;
      continue;
    }
    np = 0;
    for (;;) {
      const start = i;
      let digits = 0;
      while (i < n && ((k = classOf(s.charCodeAt(i))) === LETTER || k === DIGIT)) {
        if (k === DIGIT) digits++;
        i++;
      }
      const all = digits === i - start;
      const last = np - 1;
      if (last >= 0 && all && pAllDigits[last] && s.charCodeAt(start - 1) === 46) {
        pe[last] = i; // "0.05": extend the decimal
      } else {
        ps[np] = start;
        pe[np] = i;
        pAllDigits[np] = all;
        pDigit[np] = digits > 0;
        np++;
      }
      if (i + 1 < n && k === CONNECTOR) {
        const next = classOf(s.charCodeAt(i + 1));
        if (next === LETTER || next === DIGIT) {
          i++;
          continue;
        }
      }
      break;
    }
    if (i < n && k === APOSTROPHE) {
      // Skip an English clitic ("patient's", "don't") so it does not become a word.
      let j = i + 1;
      while (j < n && classOf(s.charCodeAt(j)) === LETTER) j++;
      if (j - i <= 3 && CLITICS.has(lower.slice(i + 1, j)) && (j >= n || classOf(s.charCodeAt(j)) !== DIGIT)) i = j;
    }
    if (np === 1) {
      const w = lower.slice(ps[0], pe[0]);
      const f = wordFlags(w, ps[0], pe[0], pDigit[0]);
      if (f & F_EN) en++;
      else if (f & F_ES) es++;
      words.push(w);
      positions.push(pos++);
      flags.push(f);
      continue;
    }
    // The joined form is what a name looks like as one word ("il6", "sc7392", "tnfalpha"):
    // emitted for short compounds that carry a letter and a digit, a tiny part or a Greek letter,
    // not for ordinary hyphenated words ("follow-up") or numeric ranges and dates. It comes
    // first, at the first part's position, so positions never decrease.
    let joined = '';
    let short = false;
    let digit = false;
    let letter = false;
    for (let p = 0; p < np; p++) {
      const lp = lower.slice(ps[p], pe[p]);
      joined += lp;
      if (pDigit[p]) digit = true;
      if (!pAllDigits[p]) letter = true;
      if ((lp.length <= 2 && !STOP.has(lp)) || GREEK_NAMES.has(lp)) short = true;
    }
    if (np <= 4 && letter && (short || digit)) {
      words.push(joined);
      positions.push(pos);
      // Never a stop word, so not looked up.
      flags.push(digit ? W_DIGIT : 0);
    }
    for (let p = 0; p < np; p++) {
      const w = lower.slice(ps[p], pe[p]);
      words.push(w);
      positions.push(pos++);
      flags.push(wordFlags(w, ps[p], pe[p], pDigit[p]));
    }
  }
  let ratio: number | undefined;
  return { words, positions, flags, en, es, upperRatio: () => (ratio ??= upperRatio(text)) };
}

const pickLanguage = (en: number, es: number): Language => (es >= 1 && es > en ? 'es' : 'en');

/** 'es' when Spanish function words (and accents) outnumber English ones; 'en' otherwise, including when there is no evidence. */
export function detectLanguage(text: string): Language {
  const { en, es } = scan(text);
  return pickLanguage(en, es);
}

/** Full analysis: terms, their word positions and the language used for stemming. */
export function analyse(text: string, opts: TokenizeOptions = {}): Analysed {
  const { words, positions: pos, flags, en, es, upperRatio: ratio } = scan(text);
  const language = opts.language ?? pickLanguage(en, es);
  const terms: string[] = [];
  const positions: number[] = [];
  for (let i = 0; i < words.length; i++) {
    const f = flags[i];
    let term = words[i];
    if (f & W_DIGIT) {
      // Identifiers and numbers (tp53, ab32389, 1234, 0.05) are kept whole and never stemmed.
    } else if (f & F_STOP) {
      // An upper-case stop word is usually an abbreviation (ALL leukaemia, NO nitric oxide,
      // MI infarction), unless the whole text is upper case.
      if (!(f & W_CAPS) || ratio() > 0.5) continue;
    } else if (term.length <= MAX_STEMMED_LENGTH) {
      term = stem(term, language);
    }
    terms.push(term);
    positions.push(pos[i]);
  }
  return { terms, positions, language };
}

/** The analysed terms of a text, in order, with repeats: the unit of indexing and querying. */
export function tokenize(text: string, opts?: TokenizeOptions): string[] {
  return analyse(text, opts).terms;
}

/** Terms with their word positions, for proximity and phrase features. */
export function tokenizeWithPositions(text: string, opts?: TokenizeOptions): Token[] {
  const { terms, positions } = analyse(text, opts);
  return terms.map((term, i) => ({ term, position: positions[i] }));
}
