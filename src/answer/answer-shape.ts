// The shape of the sentence that answers a question, where the question itself gives it away
// (pure). "How many nucleotides…" is answered by a count of nucleotides ("30,847 nucleotides"),
// not by any sentence holding a number; "What is IFITM?" by the sentence that spells the
// abbreviation out ("interferon-induced transmembrane (IFITM)"). Read by the extractive
// answerer to choose among sentences that already meet the evidence rule: a shape never makes
// a sentence evidence, so it moves no refusal.

/** Counts papers and protocols spell out ("three genotypes", "dos lavados"); the quantity rule reads them too. */
export const NUMBER_WORDS =
  'one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|fifty|hundreds?|thousands?|millions?|' +
  'billions?|dozens?|single|double|twice|half|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|doce|veinte|cien|mil|millones';

const literal = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** How many letters of the counted word a sentence must write: its stem, give or take an ending. */
function stemOf(word: string): string {
  return word.slice(0, Math.max(4, Math.min(word.length - 2, 8)));
}

/** A count of `word`: a number, then at most two words ("30,847 nucleotides", "12 adult patients"), then the word. */
function countOf(word: string): RegExp {
  const number = String.raw`(?:\d[\d,.]*|\b(?:${NUMBER_WORDS}))`;
  return new RegExp(String.raw`${number}\s+(?:[\p{L}\d-]+\s+){0,2}${literal(stemOf(word))}`, 'iu');
}

/** A sentence that spells out or defines `term`: "… (IFITM)", "IFITM (interferon…", "IFITM is a …". */
function definitionOf(term: string): RegExp {
  const t = literal(term);
  return new RegExp(
    String.raw`\(\s*${t}s?\s*[),;]|\b${t}s?\s*\(\s*\p{L}|\b${t}s?,?\s+(?:is|are|es|son)\s+(?:an?|the|un[ao]?|el|la)\b`,
    'u',
  );
}

const COUNTED = /\b(?:how many|cu[aá]nt[oa]s)\s+([\p{L}][\p{L}-]{2,})/iu;
// The whole question asks what one term is: "What is IFITM?", "What does ACE2 stand for?", "¿Qué es la PCR?".
const DEFINED = new RegExp(
  String.raw`^\s*¿?\s*(?:what (?:is|are|does)|qu[eé] (?:es|son|significa))\s+(?:(?:an?|the|la|el|los|las)\s+)?` +
    String.raw`([\p{L}\d][\p{L}\d-]{1,24})(?:\s+stand for)?\s*[?？]?\s*$`,
  'iu',
);

/** The pattern a sentence answering `question` in the expected shape matches, if the question gives one. */
export function answerShape(question: string): RegExp | undefined {
  const defined = DEFINED.exec(question);
  if (defined) return definitionOf(defined[1]);
  const counted = COUNTED.exec(question);
  return counted ? countOf(counted[1]) : undefined;
}
