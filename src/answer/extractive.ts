// The answer given when no language model is configured (or the model is down): the few
// sentences from the top passages that best cover the question, each cited, or the refusal when
// nothing covers it well enough. Pure: values in, values out.
import { detectLanguage, tokenize } from '../search/tokenize.ts';
import type { Passage } from '../types.ts';
import { answerShape, NUMBER_WORDS } from './answer-shape.ts';
import { refusalText, type Language } from './messages.ts';
import { isInjectedInstruction, WITHHELD } from './injection.ts';
import { splitSentences } from '../ingest/chunk/text.ts';
import { extractExactTerms, isMeasure } from '../search/identifiers.ts';
import { letterVariants, namesOtherVariant } from './variants.ts';
import { joinedRuns } from './citable.ts';

export interface ExtractiveInput {
  question: string;
  /** Best first; passage i is cited as S(i+1). Passages joined to one hit (citablePassages) are read as one text. */
  passages: Passage[];
  /** The question's language; detected from the question when absent. */
  language?: Language;
  /**
   * How informative a question term is (see `termWeightFromDf`). Absent: every
   * term weighs the same. With it, "guitar" in "how many strings does a standard guitar have"
   * outweighs "standard", so a passage that only shares the common words is not evidence.
   */
  termWeight?: (term: string) => number;
  /**
   * The weight at which terms stop meeting by chance: the log of the index's size (see
   * `chanceWeight`). Words whose weights sum to less co-occur in some chunk of an index that size
   * whatever it is about. Absent: every window is held to the phrase rule.
   */
  chanceWeight?: number;
}

export interface ExtractiveAnswer {
  answer: string;
  refused: boolean;
}

/** Only the head of the ranking is read: lower passages are rarely better and often off-topic. */
const MAX_PASSAGES = 5;
const MAX_SENTENCES = 3;
const MIN_WORDS = 3;
/**
 * Evidence rule, in two parts. Support: some window of the passage (a sentence with its
 * neighbours, plus the title and section header) must account for most of the question's weight:
 * each content term counts by its informativeness, identifiers (ab32389, HEK293T) double, and an
 * asked-for kind of value (a number, a duration, a name) counts when the window states one. A
 * window of a few sentences, not the whole passage, so the terms must meet near each other ("population" in the
 * introduction and "Tokyo" in the methods is not an answer about Tokyo's population). Then the
 * quoted sentence itself must hold at least one content term. Calibrated on dev halves of
 * PubMedQA and COVID-QA plus out-of-corpus questions (questions of one set against another's
 * documents, and general-knowledge questions): see the README's Evaluation section.
 */
const MIN_SUPPORT = 0.5;
/**
 * Nor may the window lack a term that carries more than this share of the question's weight: the
 * question's one telling word ("tuberculosis" in "how many cases of tuberculosis were estimated in
 * China in 2010?") is what it is about, and the rest of its words ("cases", "estimated", "China",
 * "2010") meet in many passages about something else. Measured with `labbot eval --answers` on
 * the dev halves (PubMedQA, COVID-QA, the sample lab): 0.4 cut false answers on out-of-corpus
 * questions by 4% to 30% of their number for 0.2 to 1.6 points more refusals; 0.35 cut more but
 * refused over 5% of answerable COVID-QA questions.
 */
const MAX_MISSING = 0.4;
/**
 * Phrases. Two words the question writes side by side ("respiratory viruses", "storage of
 * vaccines") that a window also writes together (at most PHRASE_GAP terms apart, in either order)
 * are stronger evidence than the same words scattered over it: "viruses ... in children with
 * respiratory infection" shares the words of "what can respiratory viruses cause?" but not its
 * subject. A window with none of the question's phrases needs PHRASE_LESS_SUPPORT, unless the
 * sentence states the value asked for, or the words it shares are too rare to meet by chance (their
 * weights sum past CHANCE_MARGIN times the log of the index's size, about where fewer than one chunk
 * would hold them all if words fell independently) and cover CHANCE_SUPPORT of the question: a user's
 * "renewal code word" for a page's "renewal ... code-named" is a paraphrase, not an accident. A window
 * with PHRASE_HITS phrases may miss more of a question's rhetoric ("... a weak link in the cold
 * chain?"). Measured with `labbot eval --answers` on the dev halves (PubMedQA, COVID-QA, the sample
 * lab, each against the other sets' questions and the off-corpus file): see the README's
 * Evaluation section.
 */
const PHRASE_LESS_SUPPORT = 0.65;
const PHRASE_HITS = 2;
const PHRASED_SUPPORT = 0.45;
const PHRASED_MISSING = 0.5;
const PHRASE_GAP = 2;
const CHANCE_MARGIN = 1.5;
const CHANCE_SUPPORT = 0.6;
/** Rarity is computed as if the index held at least this many chunks (see termWeightFromDf). */
const MIN_CORPUS_CHUNKS = 1000;
/**
 * An asked-for kind of value weighs half a typical content term: most sentences of a paper hold
 * some number or some capitalised name, so finding one is weak evidence on its own.
 */
const TYPE_WEIGHT = 0.5;
/** Sentences on each side of a sentence that form its window. */
const WINDOW = 2;
/** A sentence's own coverage: a term only in the title or section header counts this much. */
const HEADER_CREDIT = 0.5;
const IDENTIFIER_WEIGHT = 2;
/** The sentences around the one quoted count a little towards choosing it (they give its context). */
const NEIGHBOUR_CREDIT = 0.3;
/** Further sentences must come close to the best one, so weak ones do not dilute the answer. */
const RELATIVE_TO_BEST = 0.8;
/** Lower-ranked passages need a slightly better sentence to win: retrieval order is evidence too. */
const RANK_DECAY = 0.03;
/**
 * A sentence made mostly of the question's own words ("We asked whether hypoxia changes p53
 * half-life") restates the question; the one that answers brings new words (a value, a name).
 * Below this share of new content terms a sentence's score is scaled down.
 */
const MIN_NOVELTY = 0.5;
/**
 * When the question asks for a kind of value (a number, a name, a method), a sentence that states
 * none is at best context: its score is scaled by this.
 */
const WITHOUT_VALUE = 0.7;
/**
 * A sentence in the shape the question asks for (a count of what it counts, a definition of what
 * it names) is preferred by this. COVID-QA dev: answers holding a gold span 59.8% -> 60.7% at 1.5
 * (60.5% at 1.25, 60.7% at 2); XQuAD English dev 88.8% -> 88.9%; refusals unchanged, as they must be.
 */
const SHAPE_BONUS = 1.5;

// Words people put in questions that say nothing about the topic ("what do we use for...").
// Sequence words ("what do I do after adding chloroform?") are here too: the answer is the next
// step, which rarely repeats "after". Question words the stemmer keeps ("when", "which") ask; the
// answer-type rules read them, and as terms they would only count the passages that repeat them.
const FILLER = new Set([
  ...tokenize(
    'use used uses using tell know please need want find show explain describe give get lab after before then next when which whom whose',
    { language: 'en' },
  ),
  ...tokenize('usar usa usamos usan uso decir dime saber necesito quiero encontrar mostrar explicar describir dar después antes luego', {
    language: 'es',
  }),
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
    name: 'frequency',
    question: /\bhow (?:often|frequently)\b|\bcon qu[eé] frecuencia\b|\bcada cu[aá]nto\b/i,
    sentence: new RegExp(
      String.raw`\b(?:every|each|daily|weekly|monthly|yearly|hourly|once|twice|cada|diario|semanal|` +
        String.raw`mensual)\b|\b\d+\s*(?:times|x|veces)\b|\bper (?:day|week|month|hour|year)\b|\bal d[ií]a\b`,
      'i',
    ),
    triggers: 'often frequently frequency frecuencia',
  },
  {
    name: 'percentage',
    question:
      /\b(?:what|which) (?:percent(?:age)?|proportion|fraction|share)\b|\bhow (?:common|frequent|prevalent)\b|porcentaje|proporci[oó]n/i,
    sentence: /\d\s*%|\bper ?cent\b|por ciento/i,
    triggers: 'percent percentage proportion fraction share common frequent prevalent porcentaje proporción',
  },
  {
    // A name: a capitalised word inside the sentence (not its first word), "et al.", or a team.
    name: 'who',
    question: /^\s*(?:who|whom|whose)\b|\bby whom\b|\bqui[eé]n(?:es)?\b/i,
    sentence: /\S\s+\p{Lu}\p{Ll}[\p{L}'-]*|\bet al\b/u,
    triggers: '',
  },
  {
    name: 'method',
    question: new RegExp(
      String.raw`\b(?:what|which) (?:method|technique|assay|approach|test|tool|model)s?\b|\bhow (?:is|are|` +
        String.raw`was|were|do|does|did|can|could|should|to)\b.*\b(?:measur|detect|diagnos|quantif|determin|` +
        String.raw`assess|identif|test|perform|done|made|prepar|purif|isolat|estimat|calculat|analy[sz]|` +
        String.raw`confirm|screen|sequenc|model)|\bqu[eé] (?:m[eé]todo|t[eé]cnica|ensayo)\b|\bc[oó]mo se\b`,
      'i',
    ),
    sentence: new RegExp(
      String.raw`\b(?:using|used|by|via|through|with|method|assay|technique|approach|model|performed|` +
        String.raw`measured|detected|determined|estimated|PCR|ELISA|sequencing|microscopy|cytometry|analysis|` +
        String.raw`mediante|usando|con)\b`,
      'i',
    ),
    triggers: 'method technique assay approach tool método técnica ensayo',
  },
  {
    // A reagent is named with a maker's code or catalogue number ("Abcam ab32389", "Sigma A5441"),
    // an acronym (TBST, DMEM) or its maker in brackets.
    name: 'reagent',
    question: new RegExp(
      String.raw`\b(?:what|which) (?:antibod(?:y|ies)|reagents?|buffers?|kits?|primers?|enzymes?|drugs?|` +
        String.raw`media|medium|inhibitors?|vectors?|plasmids?|cell lines?|compounds?|substrates?)\b|` +
        String.raw`\bqu[eé] (?:anticuerpo|reactivo|tamp[oó]n|kit|enzima|medio)\b`,
      'i',
    ),
    sentence: /\b\p{L}{0,6}-?\d{2,}[\p{L}\d-]*\b|\b\p{Lu}{2,}[\p{Lu}\d-]*\b|\((?:\p{Lu}[\p{L}&.-]*\s?)+[,)]/u,
    triggers: '',
  },
  {
    name: 'why',
    question: /^\s*why\b|\bpor qu[eé]\b|\bfor what reason\b/i,
    sentence: new RegExp(
      String.raw`\b(?:because|due to|caused by|as a result|results? (?:in|from)|leads? to|led to|owing to|` +
        String.raw`since|therefore|thus|hence|mediated by|so that|debido|porque|causad[oa]|por lo tanto)\b`,
      'i',
    ),
    triggers: 'reason razón',
  },
  {
    name: 'quantity',
    question: /how many|how much|by how much|cu[aá]nt[oa]s?\b/i,
    // Papers spell small counts out ("three genotypes", "dos lavados").
    sentence: new RegExp(String.raw`\d|\b(?:${NUMBER_WORDS})\b`, 'i'),
    triggers: 'many much',
  },
];

const TYPE_TRIGGERS = ANSWER_TYPES.map(
  (t) => new Set([...tokenize(t.triggers, { language: 'en' }), ...tokenize(t.triggers, { language: 'es' })]),
);

/** See `ExtractiveInput.chanceWeight`; the index is taken as at least MIN_CORPUS_CHUNKS, as in termWeightFromDf. */
export function chanceWeight(chunks: number): number {
  return Math.log(Math.max(chunks, MIN_CORPUS_CHUNKS));
}

/**
 * A term weight from the index: its BM25 idf over the chunks the question may read, given the
 * number of those chunks that contain it (`df`) and the size of the index (`n`). A term the index
 * has never seen gets the highest weight: it is the most informative word of the question, and
 * the strongest sign that the lab's material is about something else. Counted over the allowed
 * groups only, so a word found only in a restricted document weighs as if absent.
 */
export function termWeightFromDf(df: (term: string) => number, n: number): (term: string) => number {
  // In a small index (the sample lab, a new lab's first documents) every word it holds looks common
  // and any word it lacks ("go", "use") outweighs the whole question; rarity only means something
  // against a corpus of some size, so the count is taken as at least this many chunks.
  const size = Math.max(n, MIN_CORPUS_CHUNKS);
  return (term) => {
    const d = Math.min(df(term), size);
    return Math.log(1 + (size - d + 0.5) / (d + 0.5));
  };
}

interface QueryTerm {
  term: string;
  weight: number;
  /** Set for answer-type pseudo-terms: covered by a value of that kind, not by a word. */
  type?: AnswerType;
}

// Identifiers mix letters and digits (ab32389, HEK293T, p53); catalogue numbers can be all digits
// but are long (15596026). Short numbers, years and quantities ("2nd", "4-year") are ordinary terms.
const isIdentifier = (t: string): boolean => ((/\d/.test(t) && /\p{L}/u.test(t)) || /^\d{5,}$/.test(t)) && !isMeasure(t);

function queryTerms(question: string, termWeight?: (term: string) => number): QueryTerm[] {
  const types = ANSWER_TYPES.filter((t) => t.question.test(question));
  const triggers = new Set<string>();
  for (const t of types) for (const w of TYPE_TRIGGERS[ANSWER_TYPES.indexOf(t)]) triggers.add(w);
  // The names retrieval matches literally (GAPDH, IL-6, sc-965) are identifiers here too: one rule
  // for what a question names exactly.
  const named = new Set(extractExactTerms(question).identifiers.flatMap((id) => wordsOf(tokenize(id)).slice(0, 1)));
  const terms: QueryTerm[] = [];
  for (const term of new Set(tokenize(question))) {
    // Lone letters are unit or symbol debris ("x g", "4 °C" -> "c"), not topics.
    if (term.length < 2 && !/\d/.test(term)) continue;
    if (FILLER.has(term) || triggers.has(term)) continue;
    const base = termWeight ? termWeight(term) : 1;
    terms.push({ term, weight: base * (isIdentifier(term) || named.has(term) ? IDENTIFIER_WEIGHT : 1) });
  }
  const content = terms.length ? terms.reduce((s, t) => s + t.weight, 0) / terms.length : 1;
  for (const type of types) terms.push({ term: `<${type.name}>`, weight: content * TYPE_WEIGHT, type });
  return terms;
}

interface Scored {
  text: string;
  /** The run of joined passages (see joinedRuns) it is read in, by rank. */
  passage: number;
  /** The passage (chunk) it comes from and is cited by. */
  unit: number;
  position: number;
  /** Weighted share of the question the sentence covers (header terms at partial credit). */
  coverage: number;
  /** The sentence with its neighbours and header: the support for quoting it. */
  support: number;
  /** The support it needs, by how many of the question's phrases its window writes. */
  minSupport: number;
  score: number;
  /** Query terms (content and answer-type) the sentence itself covers. */
  covers: Set<string>;
  novelty: number;
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
const cells = (row: string): string[] =>
  row
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((c) => c.trim());

function units(p: Passage): PassageUnits {
  const sentences: string[] = [];
  const context = [p.meta.title, p.section];
  const lines = p.text
    .split(/\n+/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
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
          ? row
              .map((c, j) => (names[j] ? `${names[j]}: ${c}` : c))
              .filter((c) => !/:\s*$/.test(c))
              .join('; ')
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

/**
 * The sentences of a run of joined passages, each with the passage it is cited by and the terms
 * of that passage's title and headings. Stemmed in the run's own language: a short Spanish step
 * ("Centrifugar a 12.000 × g") has too few function words to be recognised alone.
 */
function readRun(run: number[], passages: Passage[]) {
  const lang = detectLanguage(run.map((i) => passages[i].text).join('\n'));
  const sentences: string[] = [];
  const unitOf: number[] = [];
  const contextOf: Set<string>[] = [];
  for (const i of run) {
    const u = units(passages[i]);
    const terms = new Set(tokenize(u.context.join('\n'), { language: lang }));
    for (const text of u.sentences) {
      sentences.push(text);
      unitOf.push(i);
      contextOf.push(terms);
    }
  }
  return { lang, sentences, unitOf, contextOf };
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

/**
 * The tokenizer writes a hyphenated compound and then its parts ("6-well" -> 6well, 6; "co-infection"
 * -> coinfect, co, infect); for phrases the compound stands alone, or "6-well" would make a phrase
 * with itself.
 */
function wordsOf(terms: string[]): string[] {
  return terms.filter((t, i) => !terms.slice(Math.max(0, i - 2), i).some((prev) => prev.length > t.length && prev.includes(t)));
}

/** Unordered pairs of words at most `gap` words apart: the phrases a text writes. */
function pairsOf(allTerms: string[], gap: number): Set<string> {
  const terms = wordsOf(allTerms);
  const out = new Set<string>();
  for (let i = 0; i < terms.length; i++) {
    for (let d = 1; d <= gap && i + d < terms.length; d++) {
      const [a, b] = [terms[i], terms[i + d]];
      if (a !== b) out.add(a < b ? `${a} ${b}` : `${b} ${a}`);
    }
  }
  return out;
}

/** What the question asks, read once and shared by the scoring of every sentence. */
interface Question {
  query: QueryTerm[];
  totalWeight: number;
  asksType: boolean;
  /** The question's content terms (not its asked-for values). */
  questionTerms: Set<string>;
  variants: ReturnType<typeof letterVariants>;
  questionPhrases: Set<string>;
  chanceWeight: number | undefined;
  /** The sentence shape that answers it, when the question gives one away (answer-shape.ts). */
  shape: RegExp | undefined;
}

export function extractiveAnswer(input: ExtractiveInput): ExtractiveAnswer {
  const language = input.language ?? detectLanguage(input.question);
  const refusal: ExtractiveAnswer = { answer: refusalText(language), refused: true };
  const query = queryTerms(input.question, input.termWeight);
  const totalWeight = query.reduce((s, q) => s + q.weight, 0);
  if (!query.some((q) => !q.type) || totalWeight <= 0) return refusal;
  const asksType = query.some((q) => q.type);
  const questionTerms = new Set(query.filter((q) => !q.type).map((q) => q.term));
  const variants = letterVariants(input.question);
  const questionPhrases = pairsOf(
    tokenize(input.question).filter((t) => questionTerms.has(t)),
    1,
  );
  const question: Question = {
    query,
    totalWeight,
    asksType,
    questionTerms,
    variants,
    questionPhrases,
    chanceWeight: input.chanceWeight,
    shape: answerShape(input.question),
  };

  const candidates: Scored[] = [];
  const texts: string[][] = [];
  const unitsOf: number[][] = [];
  // The chunks of an expanded hit are read as one stretch of text (a sentence's window reaches
  // into the next chunk), each sentence keeping the chunk it is cited by.
  joinedRuns(input.passages)
    .slice(0, MAX_PASSAGES)
    .forEach((run, passage) => {
      const { sentences, unitOf } = scoreRun(run, passage, input.passages, question, candidates);
      texts[passage] = sentences;
      unitsOf[passage] = unitOf;
    });

  const supported = candidates.filter((c) => c.support >= c.minSupport);
  supported.sort((a, b) => b.score - a.score || a.passage - b.passage || a.position - b.position);
  const best = supported[0];
  if (!best) return refusal;
  return { answer: composeAnswer(chooseSentences(best, supported, question, texts, unitsOf)), refused: false };
}

/**
 * Scores every sentence of one run of joined passages (the `passage`-th by rank) against the
 * question, adding those that may be quoted to `candidates`. Returns the run's sentences and the
 * passage each is cited by.
 */
function scoreRun(
  run: number[],
  passage: number,
  passages: Passage[],
  { query, totalWeight, asksType, questionTerms, variants, questionPhrases, chanceWeight, shape }: Question,
  candidates: Scored[],
): { sentences: string[]; unitOf: number[] } {
  const { lang, sentences, unitOf, contextOf } = readRun(run, passages);
  const termLists = sentences.map((text) => tokenize(text, { language: lang }));
  const termSets = termLists.map((terms) => new Set(terms));
  const phraseSets = termLists.map((terms) => pairsOf(terms, PHRASE_GAP));
  const phrasesNear = (i: number): number => {
    let n = 0;
    for (const phrase of questionPhrases) {
      for (let j = Math.max(0, i - WINDOW); j <= Math.min(sentences.length - 1, i + WINDOW); j++) {
        if (phraseSets[j].has(phrase)) {
          n++;
          break;
        }
      }
    }
    return n;
  };
  const holds = (i: number, q: QueryTerm): boolean =>
    i >= 0 && i < sentences.length && (q.type ? q.type.sentence.test(sentences[i]) : termSets[i].has(q.term));
  const near = (i: number, q: QueryTerm): boolean => {
    for (let d = 1; d <= WINDOW; d++) if (holds(i - d, q) || holds(i + d, q)) return true;
    return false;
  };
  sentences.forEach((text, position) => {
    // Planted instructions are never quoted as answers, nor what stands in for one withheld.
    if (text.includes(WITHHELD) || isInjectedInstruction(text)) return;
    // A sentence about hepatitis G is not evidence about hepatitis C, however many words it shares.
    if (namesOtherVariant(variants, (i) => termSets[i], position)) return;
    let own = 0;
    let window = 0;
    let direct = 0;
    let missing = 0;
    const covers = new Set<string>();
    // The weight of the question's words (not its asked-for values) the window holds.
    let met = 0;
    for (const q of query) {
      if (holds(position, q)) {
        own += q.weight;
        window += q.weight;
        covers.add(q.term);
        if (!q.type) {
          direct++;
          met += q.weight;
        }
      } else if (near(position, q) || (!q.type && contextOf[position].has(q.term))) {
        window += q.weight;
        if (!q.type) met += q.weight;
        if (!q.type && contextOf[position].has(q.term)) own += q.weight * HEADER_CREDIT;
      } else if (!q.type) {
        missing = Math.max(missing, q.weight);
      }
    }
    const phrases = phrasesNear(position);
    const phrased = phrases >= PHRASE_HITS;
    // A value of the asked-for kind in the sentence itself ("100 V" for "what voltage") is as
    // specific as a phrase: the window is not held to the phrase-less bar.
    const phraseless =
      questionPhrases.size > 0 &&
      phrases === 0 &&
      !query.some((q) => q.type && covers.has(q.term)) &&
      !(met >= (chanceWeight ?? Infinity) * CHANCE_MARGIN && window / totalWeight >= CHANCE_SUPPORT);
    const minSupport = phrased ? PHRASED_SUPPORT : phraseless ? PHRASE_LESS_SUPPORT : MIN_SUPPORT;
    if (missing > (phrased ? PHRASED_MISSING : MAX_MISSING) * totalWeight) return;
    // A sentence with no content word of the question is not evidence, whatever its header says.
    // Fragments ("Cell culture", "Notes") carry no statement to quote.
    // A sentence that asks ("does hypoxia change p53 half-life?") states nothing.
    if (direct === 0 || text.split(/\s+/).length < MIN_WORDS || /[?？]["')\]]*$/.test(text)) return;
    const coverage = own / totalWeight;
    const support = window / totalWeight;
    const terms = [...termSets[position]].filter((t) => t.length > 1 || /\d/.test(t));
    const novelty = terms.length ? terms.filter((t) => !questionTerms.has(t)).length / terms.length : 0;
    const answersType = !asksType || query.some((q) => q.type && covers.has(q.term));
    const score =
      (coverage + NEIGHBOUR_CREDIT * (support - coverage)) *
        Math.min(1, 0.5 + novelty / (2 * MIN_NOVELTY)) *
        (answersType ? 1 : WITHOUT_VALUE) *
        (shape?.test(text) ? SHAPE_BONUS : 1) -
      RANK_DECAY * passage;
    candidates.push({ text, passage, unit: unitOf[position], position, coverage, support, minSupport, score, covers, novelty });
  });
  return { sentences, unitOf };
}

/**
 * The best sentence and up to MAX_SENTENCES - 1 others close to it, in the order chosen.
 * `texts` and `unitsOf` are every run's sentences and the passage each is cited by.
 */
function chooseSentences(
  best: Scored,
  supported: Scored[],
  { query, asksType, questionTerms }: Question,
  texts: string[][],
  unitsOf: number[][],
): Scored[] {
  const chosen: Scored[] = [best];
  const add = (s: Scored) => {
    if (chosen.length < MAX_SENTENCES && !chosen.some((c) => sameSentence(c.text, s.text))) chosen.push(s);
  };
  const holdsValue = (s: Scored) => query.some((q) => q.type && s.covers.has(q.term));
  // The answer often straddles two sentences: the best one names the topic ("NDV has a number of
  // appealing qualities as a vaccine vector.": colon-ended, or made mostly of the question's own
  // words) and the next one, still on the question's topic, states it; or the next one continues it
  // ("These ...", "However, ..."). Quote both. Dev halves, answers holding a gold span: COVID-QA
  // 58.9% -> 60.2% (median answer 378 -> 403 characters), XQuAD English 88.0% -> 88.8%; quoting the
  // previous sentence instead lost 1.3 points.
  const next = texts[best.passage][best.position + 1];
  // A sentence that states the value asked for ("1:1000", "every 30 minutes") is the answer already.
  if (
    next &&
    !(asksType && holdsValue(best)) &&
    leadsIn(best, next, questionTerms) &&
    !/[?？]["')\]]*$/.test(next) &&
    !next.includes(WITHHELD) &&
    !isInjectedInstruction(next)
  )
    add({ ...best, text: next, unit: unitsOf[best.passage][best.position + 1], position: best.position + 1, covers: new Set() });
  for (const s of supported.slice(1)) {
    if (s.score < best.score * RELATIVE_TO_BEST) break;
    // Its own words must cover the question nearly as well: a neighbour of the answer is not a
    // second answer.
    if (s.coverage < best.coverage * RELATIVE_TO_BEST) continue;
    // When a value was asked for and found, a further sentence must state one too: one that only
    // restates the topic adds length, not the answer.
    if (asksType && holdsValue(best) && !holdsValue(s)) continue;
    add(s);
  }
  const types = query.filter((q) => q.type);
  if (chosen.length < 2 && types.length && !types.some((q) => best.covers.has(q.term))) {
    // The best sentence may name the topic while the next one states the value asked for ("We
    // measured the half-life. It was 38 ± 4 min."): quote that one too.
    const next = texts[best.passage][best.position + 1];
    if (next && types.some((q) => q.type!.sentence.test(next))) {
      add({ ...best, text: next, unit: unitsOf[best.passage][best.position + 1], position: best.position + 1, covers: new Set() });
    }
  } else if (chosen.length < 2) {
    // A lone good sentence may get one supporting sentence that brings a question term it lacks
    // (the other half of "with and without P5091").
    const support = supported.find(
      (s) =>
        s !== best &&
        s.score >= best.score * 0.5 &&
        !(asksType && holdsValue(best) && !holdsValue(s)) &&
        [...s.covers].some((t) => !best.covers.has(t)),
    );
    if (support) add(support);
  }
  return chosen;
}

const CONTINUES = new RegExp(
  String.raw`^(?:it|its|this|these|those|they|their|such|both|each|here|however|moreover|furthermore|in addition|in contrast|` +
    String.raw`thus|therefore|as a result|namely|for example|for instance|specifically|in particular|esto|estos|estas|esta|este|` +
    String.raw`sin embargo|además|por ello|así)\b`,
  'i',
);
/** Below this share of new terms the sentence mostly restates the question. */
const LEAD_IN_NOVELTY = 0.6;

/**
 * Whether `next` completes `best`: a continuation, or the sentence after a lead-in (colon-ended, or
 * restating the question) that stays on the question's topic (shares one of its terms).
 */
function leadsIn(best: Scored, next: string, questionTerms: Set<string>): boolean {
  if (CONTINUES.test(next)) return true;
  if (!/:\s*$/.test(best.text) && best.novelty >= LEAD_IN_NOVELTY) return false;
  return tokenize(next).some((t) => questionTerms.has(t));
}

/** The chosen sentences as the answer's lines, each cited by its passage. */
function composeAnswer(chosen: Scored[]): string {
  // The sentence that answers best comes first; the others follow by passage (in the order of
  // their best chosen sentence) and, within a passage, in the document's order, so steps and
  // arguments read in sequence.
  const rank = new Map<number, number>();
  chosen.forEach((s, i) => rank.has(s.passage) || rank.set(s.passage, i));
  const rest = chosen.slice(1).sort((a, b) => rank.get(a.passage)! - rank.get(b.passage)! || a.position - b.position);
  chosen.splice(1, chosen.length - 1, ...rest);
  const lines: string[] = [];
  let current = -1;
  for (const s of chosen) {
    const text = cite(s.text, `S${s.unit + 1}`);
    if (s.passage === current) lines[lines.length - 1] += ` ${text}`;
    else lines.push(text);
    current = s.passage;
  }
  return lines.join('\n');
}
