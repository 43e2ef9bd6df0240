// The answer given when no language model is configured (or the model is down): the few
// sentences from the top passages that best cover the question, each cited, or the refusal when
// nothing covers it well enough. Pure: values in, values out.
import { detectLanguage, tokenize } from '../search/tokenize.ts';
import type { Passage } from '../types.ts';
import { refusalText, type Language } from './messages.ts';
import { isInjectedInstruction } from './injection.ts';
import { splitSentences } from '../../ingest/chunk/text.ts';

export interface ExtractiveInput {
  question: string;
  /** Best first; passage i is cited as S(i+1). */
  passages: Passage[];
  /** The question's language; detected from the question when absent. */
  language?: Language;
}

export interface ExtractiveAnswer {
  answer: string;
  refused: boolean;
}

/** Only the head of the ranking is read: lower passages are rarely better and often off-topic. */
const MAX_PASSAGES = 5;
const MAX_SENTENCES = 4;
const MIN_WORDS = 3;
/**
 * Evidence rule. A sentence's coverage is the weighted share of the question's content terms it
 * accounts for: a term found in the sentence counts fully, a term found only in the passage's
 * title or section header counts half (the header says what the sentence is about: "Western
 * blot — Step 8"), identifiers (ab32389, HEK293T) weigh double because they pin the topic.
 * The answer needs one sentence covering at least half of the question, with at least one content
 * term in the sentence itself; below that the passages are about something else and we refuse
 * rather than quote them. Half is lenient enough for paraphrased questions with a filler word or
 * two, and strict enough that sharing one word of a five-word question ("liquid") is not enough.
 */
const MIN_COVERAGE = 0.5;
const HEADER_CREDIT = 0.5;
const IDENTIFIER_WEIGHT = 2;
/** Further sentences must come close to the best one, so weak ones do not dilute the answer. */
const RELATIVE_TO_BEST = 0.75;
/**
 * A lone good sentence may get one weaker supporting sentence, if it is still clearly on topic and
 * brings a question term the first one lacks (the other half of "with and without P5091");
 * a sentence that only repeats what is covered adds length, not evidence.
 */
const SUPPORT_RELATIVE = 0.5;

// Words people put in questions that say nothing about the topic ("what do we use for...").
// Sequence words ("what do I do after adding chloroform?") are here too: the answer is the next
// step, which rarely repeats "after".
const FILLER = new Set([
  ...tokenize('use used uses using tell know please need want find show explain describe give get lab after before then next', { language: 'en' }),
  ...tokenize(
    'usar usa usamos usan uso decir dime saber necesito quiero encontrar mostrar explicar describir dar después antes luego',
    { language: 'es' },
  ),
]);

/**
 * Answer types. Questions ask for a kind of value ("what dilution", "how long", "where") that the
 * answer sentence states in a form sharing no word with the question ("1:1000", "60 min",
 * "box AB-07"). When the question asks for one, its trigger words are replaced by a pseudo-term
 * that a sentence covers by containing a value of that kind.
 */
interface AnswerType {
  name: string;
  question: RegExp;
  sentence: RegExp;
  triggers: string;
}

const MONTHS_DAYS =
  'monday|tuesday|wednesday|thursday|friday|saturday|sunday|lunes|martes|mi[eé]rcoles|jueves|viernes|s[aá]bado|domingo|' +
  'january|february|march|april|may|june|july|august|september|october|november|december|' +
  'enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre';

const ANSWER_TYPES: AnswerType[] = [
  {
    name: 'dilution',
    question: /dilut|diluci[oó]n|diluir/i,
    sentence: /\b1\s*:\s*\d{2,}\b/,
    triggers: 'dilution dilute diluted ratio dilución diluir',
  },
  {
    name: 'concentration',
    question: /concentrat|concentraci[oó]n|\bdos(?:e|is)\b/i,
    sentence: /\d\s*(?:[µμunpm]M\b|(?:[µμunm]?g)\s*\/\s*m?L\b|%)/,
    triggers: 'concentration dose final concentración dosis final',
  },
  {
    name: 'temperature',
    question: /temperat|how (?:hot|cold|warm)/i,
    sentence: /-?\d+(?:[.,]\d+)?\s*°\s*C\b|room temperature|temperatura ambiente/i,
    triggers: 'temperature temperatura',
  },
  {
    name: 'speed',
    question: /\bspeed|velocidad|\brpm\b|how fast|g[- ]force/i,
    sentence: /\d\s*(?:×|x)\s*g\b|\brpm\b/i,
    triggers: 'speed fast rpm velocidad',
  },
  {
    name: 'duration',
    question: /how long|\bduration|duraci[oó]n|cu[aá]nto tiempo|how many (?:minutes|hours|days)|cu[aá]ntos (?:minutos|horas|d[ií]as)/i,
    sentence:
      /\d+(?:[.,]\d+)?\s*(?:s|sec|seconds?|min|minutes?|minutos?|h|hrs?|hours?|horas?|d|days?|d[ií]as?|weeks?|semanas?)\b|overnight|toda la noche/i,
    triggers: 'long time duration last minutes hours tiempo duración dura minutos horas',
  },
  {
    name: 'voltage',
    question: /volt/i,
    sentence: /\d+\s*V\b/,
    triggers: 'voltage volts voltaje voltios',
  },
  {
    name: 'catalogue',
    question: /catalog|cat\.?\s*no\b|cat[aá]logo|product number|order number|part number|referencia/i,
    sentence: /\b(?:[A-Za-z]{1,4}-?\d{3,}[A-Za-z]?|\d{4,}[A-Za-z]?)\b/,
    triggers: 'catalogue catalog number product order part catálogo número referencia',
  },
  {
    name: 'when',
    question: /\bwhen\b|\bcu[aá]ndo\b|what time|which day|what day|qu[eé] d[ií]a|qu[eé] hora/i,
    sentence: new RegExp(`\\b\\d{1,2}[:.]\\d{2}\\b|\\b(?:${MONTHS_DAYS})s?\\b`, 'i'),
    triggers: 'time day date hora día fecha',
  },
  {
    name: 'where',
    question: /\bwhere\b|\bd[oó]nde\b|location|ubicaci[oó]n|which (?:freezer|room|box|shelf)/i,
    sentence:
      /\b(?:room|freezer|fridge|box|shelf|rack|drawer|bay|canister|dewar|bench|cabinet|hood|sala|congelador|nevera|caja|estante|campana|cuarto)\b/i,
    triggers: 'location located stored store kept ubicación guardar guarda guardan',
  },
  {
    name: 'quantity',
    question: /how many|how much|by how much|cu[aá]nt[oa]s?\b/i,
    sentence: /\d/,
    triggers: 'many much',
  },
];

const TYPE_TRIGGERS = ANSWER_TYPES.map(
  (t) => new Set([...tokenize(t.triggers, { language: 'en' }), ...tokenize(t.triggers, { language: 'es' })]),
);

interface QueryTerm {
  term: string;
  weight: number;
  /** Set for answer-type pseudo-terms: covered by a value of that kind, not by a word. */
  type?: AnswerType;
}

// Identifiers mix letters and digits (ab32389, HEK293T, p53); catalogue numbers can be all digits
// but are long (15596026). Short numbers and years are ordinary terms.
const isIdentifier = (t: string): boolean => (/\d/.test(t) && /\p{L}/u.test(t)) || /^\d{5,}$/.test(t);

function queryTerms(question: string): QueryTerm[] {
  const types = ANSWER_TYPES.filter((t) => t.question.test(question));
  const triggers = new Set<string>();
  for (const t of types) for (const w of TYPE_TRIGGERS[ANSWER_TYPES.indexOf(t)]) triggers.add(w);
  const terms: QueryTerm[] = [];
  for (const term of new Set(tokenize(question))) {
    // Lone letters are unit or symbol debris ("x g", "4 °C" -> "c"), not topics.
    if (term.length < 2 && !/\d/.test(term)) continue;
    if (FILLER.has(term) || triggers.has(term)) continue;
    terms.push({ term, weight: isIdentifier(term) ? IDENTIFIER_WEIGHT : 1 });
  }
  for (const type of types) terms.push({ term: `<${type.name}>`, weight: 1, type });
  return terms;
}

interface Sentence {
  text: string;
  passage: number;
  position: number;
  coverage: number;
  /** Query terms (content and answer-type) the sentence itself covers. */
  covers: Set<string>;
}

function isHeaderLine(line: string, title: string, section: string): boolean {
  const l = line.trim();
  const t = title.trim();
  if (l === '') return false;
  if (l === t || (section !== '' && l === section.trim())) return true;
  if (t) {
    const prefix = t.slice(0, Math.min(15, t.length)).toLowerCase();
    if (l.toLowerCase().startsWith(prefix) && (l.includes(' — ') || l.endsWith('…'))) return true;
  }
  return section !== '' && l.endsWith(` — ${section.trim()}`);
}

interface PassageUnits {
  sentences: string[];
  context: string[];
}

const TABLE_ROW = /^\|?[^|]+(\|[^|]*)+\|?$/;
const TABLE_SEPARATOR = /^\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?$/;
const cells = (row: string): string[] => row.trim().replace(/^\||\|$/g, '').split('|').map((c) => c.trim());

function units(p: Passage): PassageUnits {
  const sentences: string[] = [];
  const context = [p.meta.title, p.section];
  const lines = p.text.split(/\n+/).map((l) => l.trim()).filter((l) => l !== '');
  let header: string[] | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    // Sub-headings the chunker kept inside the text ("Cell culture" under "Methods > Cell
    // culture; Hypoxia treatment") describe the sentences; they are not sentences themselves.
    const subHeading = line.length <= 80 && !/[.!?:]$/.test(line) && p.section.toLowerCase().includes(line.toLowerCase());
    if (subHeading || isHeaderLine(line, p.meta.title, p.section) || /^#{1,6}\s/.test(line)) {
      context.push(line.replace(/^#+\s*/, ''));
      continue;
    }
    if (TABLE_ROW.test(line)) {
      if (TABLE_SEPARATOR.test(line)) continue;
      if (TABLE_SEPARATOR.test(lines[i + 1] ?? '')) {
        // A Markdown table's header row: context for the rows below, not an answer by itself.
        header = cells(line);
        context.push(header.join(' '));
        continue;
      }
      // A row quoted alone loses its column names ("Freezer B | -20 °C"); spelled out with them
      // it reads as a statement and the column names count as its words.
      const row = cells(line);
      const names = header && header.length === row.length ? header : undefined;
      sentences.push(
        names
          ? row.map((c, j) => (names[j] ? `${names[j]}: ${c}` : c)).filter((c) => !/:\s*$/.test(c)).join('; ')
          : row.join(' | '),
      );
      continue;
    }
    header = undefined;
    // Keep a step or list number with the first sentence of its item ("6. Transfer ..."), and
    // drop bullets, which mean nothing once quoted.
    const item = line.match(/^(?:[-*•]\s+|(\d{1,3}[.)])\s+)/);
    const body = item ? line.slice(item[0].length) : line;
    const parts = splitSentences(body);
    if (item?.[1] && parts.length) parts[0] = `${item[1]} ${parts[0]}`;
    sentences.push(...parts);
  }
  return { sentences, context };
}

function cite(sentence: string, label: string): string {
  const m = sentence.match(/^(.*?)([.!?。]+["')\]]*)$/s);
  return m ? `${m[1]} [${label}]${m[2]}` : `${sentence} [${label}]`;
}

const sameSentence = (a: string, b: string): boolean => {
  const na = a.toLowerCase().replace(/\s+/g, ' ');
  const nb = b.toLowerCase().replace(/\s+/g, ' ');
  return na === nb || na.includes(nb) || nb.includes(na);
};

export function extractiveAnswer(input: ExtractiveInput): ExtractiveAnswer {
  const language = input.language ?? detectLanguage(input.question);
  const refusal: ExtractiveAnswer = { answer: refusalText(language), refused: true };
  const query = queryTerms(input.question);
  const totalWeight = query.reduce((s, q) => s + q.weight, 0);
  if (!query.some((q) => !q.type)) return refusal;

  const candidates: Sentence[] = [];
  input.passages.slice(0, MAX_PASSAGES).forEach((p, passage) => {
    // Stem the passage in its own language: a short Spanish step ("Centrifugar a 12.000 × g")
    // has too few function words to be recognised alone.
    const lang = detectLanguage(p.text);
    const { sentences, context } = units(p);
    const contextTerms = new Set(tokenize(context.join('\n'), { language: lang }));
    sentences.forEach((text, position) => {
      if (isInjectedInstruction(text)) return; // planted instructions are never quoted as answers
      const terms = new Set(tokenize(text, { language: lang }));
      let covered = 0;
      let direct = 0;
      const covers = new Set<string>();
      for (const q of query) {
        if (q.type) {
          if (q.type.sentence.test(text)) {
            covered += q.weight;
            covers.add(q.term);
          }
        } else if (terms.has(q.term)) {
          covered += q.weight;
          covers.add(q.term);
          direct++;
        } else if (contextTerms.has(q.term)) {
          covered += q.weight * HEADER_CREDIT;
        }
      }
      // A sentence with no content word of the question is not evidence, whatever its header says.
      // Fragments ("Cell culture", "Notes") carry no statement to quote.
      if (direct > 0 && text.split(/\s+/).length >= MIN_WORDS) {
        candidates.push({ text, passage, position, coverage: covered / totalWeight, covers });
      }
    });
  });

  candidates.sort((a, b) => b.coverage - a.coverage || a.passage - b.passage || a.position - b.position);
  const best = candidates[0];
  if (!best || best.coverage < MIN_COVERAGE) return refusal;

  const chosen: Sentence[] = [];
  const add = (s: Sentence) => {
    if (chosen.length < MAX_SENTENCES && !chosen.some((c) => sameSentence(c.text, s.text))) chosen.push(s);
  };
  for (const s of candidates) {
    if (s.coverage < Math.max(MIN_COVERAGE, best.coverage * RELATIVE_TO_BEST)) break;
    add(s);
  }
  if (chosen.length < 2) {
    const support = candidates.find(
      (s) =>
        s.coverage >= best.coverage * SUPPORT_RELATIVE &&
        !chosen.includes(s) &&
        [...s.covers].some((t) => !chosen.some((c) => c.covers.has(t))),
    );
    if (support) add(support);
  }

  // Passages in the order of their best chosen sentence (the one that answers comes first), and
  // within a passage the document's own order, so steps and arguments read in sequence.
  const rank = new Map<number, number>();
  chosen.forEach((s, i) => rank.has(s.passage) || rank.set(s.passage, i));
  chosen.sort((a, b) => rank.get(a.passage)! - rank.get(b.passage)! || a.position - b.position);
  const lines: string[] = [];
  let current = -1;
  for (const s of chosen) {
    const text = cite(s.text, `S${s.passage + 1}`);
    if (s.passage === current) lines[lines.length - 1] += ` ${text}`;
    else lines.push(text);
    current = s.passage;
  }
  return { answer: lines.join('\n'), refused: false };
}
