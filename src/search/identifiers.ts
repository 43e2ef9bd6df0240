// Exact terms in a question that must be matched literally: quoted phrases and identifier-like
// tokens (gene names like TP53, cell lines like HEK293T, catalogue numbers like ab32389 or
// sc-7392, "#1234"). Stemming and hashing blur these; a lab asking for "ab32389" wants exactly it.

export interface ExactTerms {
  phrases: string[];
  identifiers: string[];
}

// Common all-caps words in questions that are not identifiers.
const CAPS_STOP = new Set([
  'WHAT',
  'WHICH',
  'WHEN',
  'WHERE',
  'HOW',
  'WHY',
  'WHO',
  'THE',
  'AND',
  'FOR',
  'QUE',
  'PARA',
  'CON',
  'DNA',
  'RNA',
  'PCR',
  'FAQ',
]);

/**
 * Ordinals and quantities with their unit ("2nd", "4-year", "10mg", "37C", "3x") mix digits and
 * letters like an identifier but name no reagent or gene: matched literally they favour whichever
 * passage happens to write the same unit, and weighed as identifiers they drown the question's topic.
 */
const MEASURE = new RegExp(
  String.raw`^\d+(?:[.,]\d+)?-?(?:st|nd|rd|th|x|fold|years?|yrs?|months?|mo|weeks?|wks?|days?|d|hours?|` +
    String.raw`hrs?|h|min|minut(?:es?)?|s|sec|seconds?|ms|mg|g|kg|µg|ug|ng|ml|l|µl|ul|dl|mm|cm|m|km|nm|` +
    String.raw`µm|um|mmol|mol|kda|bp|kb|mb|kcal|mmhg|bpm|rpm|v|mv|c|hz|khz|iu|ppm|percent|yo)$`,
  'i',
);

export function isMeasure(token: string): boolean {
  return MEASURE.test(token);
}

export function extractExactTerms(question: string): ExactTerms {
  const phrases: string[] = [];
  for (const m of question.matchAll(/["“”«»]([^"“”«»]{2,200})["“”«»]/g)) phrases.push(collapse(m[1]));
  const identifiers = new Set<string>();
  for (const m of question.matchAll(/#?[\p{L}\p{N}][\p{L}\p{N}._/-]*[\p{L}\p{N}]|#\d+/gu)) {
    const raw = m[0];
    if (raw.startsWith('#') && /^\d+$/.test(raw.slice(1))) identifiers.add(raw);
    else if (isIdentifierToken(raw.replace(/^#/, ''))) identifiers.add(raw.replace(/^#/, ''));
    // A name written with a prefix ("anti-GAPDH") is still that name.
    else for (const part of raw.split('-')) if (part !== raw && isIdentifierToken(part)) identifiers.add(part);
  }
  return { phrases, identifiers: [...identifiers] };
}

function isIdentifierToken(token: string): boolean {
  const hasDigit = /\p{N}/u.test(token);
  const hasLetter = /\p{L}/u.test(token);
  const upper = token.replace(/[^\p{L}]/gu, '');
  const isCaps = upper.length >= 3 && upper === upper.toUpperCase() && upper !== upper.toLowerCase();
  if (hasDigit && hasLetter) return token.length >= 3 && !isMeasure(token);
  return isCaps && !CAPS_STOP.has(upper) && token.length <= 12;
}

function collapse(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Builds matchers for the exact terms. Identifiers match case-insensitively at token boundaries,
 * tolerating a hyphen/space difference inside (IL-6 = IL6, sc-7392 = sc 7392).
 */
export function exactMatchers(terms: ExactTerms): RegExp[] {
  const out: RegExp[] = [];
  for (const p of terms.phrases) out.push(new RegExp(escapeRe(p).replace(/ /g, '\\s+'), 'iu'));
  for (const id of terms.identifiers) {
    const parts = id
      .replace(/^#/, '')
      .split(/[-_./\s]+/)
      .filter(Boolean)
      .map(escapeRe);
    const body = parts.join('[-_./\\s]?');
    const prefix = id.startsWith('#') ? '#?' : '';
    out.push(new RegExp(`(?<![\\p{L}\\p{N}])${prefix}${body}(?![\\p{L}\\p{N}])`, 'iu'));
  }
  return out;
}

/**
 * Weighted fraction of the exact terms present in a text (0 when there are none to match).
 * Weights default to 1; callers lower them for identifiers common in the corpus.
 */
export function exactMatchFraction(text: string, matchers: RegExp[], weights: number[] = []): number {
  if (matchers.length === 0) return 0;
  let hit = 0;
  matchers.forEach((m, i) => {
    if (m.test(text)) hit += weights[i] ?? 1;
  });
  return hit / matchers.length;
}
