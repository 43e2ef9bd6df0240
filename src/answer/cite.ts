// Citations: checking the [S#] labels a model (or the extractive answerer) wrote against the
// passages it was actually given, and rendering sources as [authors, year, section] with a link.
// The model is never trusted to cite correctly; this code is the last word on what is shown.
import { splitSentences } from '../ingest/chunk/text.ts';
import { detectLanguage, tokenize } from '../search/tokenize.ts';
import type { EditorialNotice, Passage, PassageMeta } from '../types.ts';
import { isRefusal, refusalText, type Language } from './messages.ts';
import { letterVariants, onlyOtherVariants } from './variants.ts';
import { joinedRuns } from './citable.ts';

export interface CitationCheck {
  /** The answer with unknown labels removed and label groups written uniformly ("[S1, S3]"). */
  text: string;
  /** Valid labels, in order of first use, each once. */
  cited: string[];
  /** Labels that matched no passage, in order of first use, each once. */
  removed: string[];
}

/** One entry of the Sources list under an answer. */
export interface Citation {
  /** Rendered for people: "[Okafor et al., 2023, Methods]". */
  label: string;
  doc_id: string;
  title: string;
  authors: string[];
  /** null, not absent, so the JSON shape is the same for every citation. */
  year: number | null;
  section: string;
  url: string | null;
  /**
   * The exact place where the format allows: a PDF page (#page=N), a wiki heading anchor; else
   * the same as `url`.
   */
  link: string | null;
  /** The passage labels in the answer text ("S1", "S3") that point to this source. */
  refs: string[];
  /** The passage sentences the answer rests on, verbatim from the cited passage (checked). */
  quotes: string[];
  /** A retraction or expression of concern registered for the document's DOI; null when none (always set by finalizeAnswer). */
  notice?: EditorialNotice | null;
}

export interface FinalAnswer {
  answer: string;
  refused: boolean;
  citations: Citation[];
}

// A bracketed group of labels: [S1], [S1, S3], [S1; S2], [S2-S4] / [S2–4]. Adjacent groups
// ([S1][S2]) are simply two matches. Lower-case "s1" is accepted: models do write it.
const GROUP = /([ \t]*)\[\s*(S\s*\d+(?:\s*(?:[,;]|[-–]|,?\s*and|&)\s*S?\s*\d+)*)\s*\]/gi;
// A range wider than this is a typo or an attack ([S1-S99999]), not a citation.
const MAX_RANGE = 20;

function expandGroup(inner: string): string[] {
  const out: string[] = [];
  for (const piece of inner.split(/\s*(?:[,;&]|\band\b)\s*/i)) {
    const range = piece.match(/^S?\s*(\d+)\s*[-–]\s*S?\s*(\d+)$/i);
    if (range) {
      const [a, b] = [Number(range[1]), Number(range[2])];
      if (b >= a && b - a < MAX_RANGE) for (let n = a; n <= b; n++) out.push(`S${n}`);
      else out.push(`S${a}`, `S${b}`);
      continue;
    }
    const single = piece.match(/^S?\s*(\d+)$/i);
    if (single) out.push(`S${Number(single[1])}`);
  }
  return out;
}

const normaliseLabel = (label: string): string => label.replace(/[[\]\s]/g, '').toUpperCase();

/**
 * Keeps the labels that exist, drops the rest from the text. A group left with no valid label
 * disappears together with the space before it, so "claim [S9]." becomes "claim.".
 */
export function checkCitations(answer: string, labels: string[]): CitationCheck {
  const known = new Set(labels.map(normaliseLabel));
  const cited: string[] = [];
  const removed: string[] = [];
  const text = answer.replace(GROUP, (_match, space: string, inner: string) => {
    const keep: string[] = [];
    for (const label of expandGroup(inner)) {
      if (known.has(label)) {
        if (!keep.includes(label)) keep.push(label);
        if (!cited.includes(label)) cited.push(label);
      } else if (!removed.includes(label)) {
        removed.push(label);
      }
    }
    return keep.length ? `${space}[${keep.join(', ')}]` : '';
  });
  return { text: text.replace(/[ \t]+\n/g, '\n').trim(), cited, removed };
}

// Lower-case name particles belong to the family name: "Ludwig van Beethoven" -> "van Beethoven".
const PARTICLES = new Set([
  'van',
  'von',
  'der',
  'den',
  'de',
  'del',
  'della',
  'da',
  'das',
  'di',
  'do',
  'dos',
  'du',
  'la',
  'le',
  'ten',
  'ter',
  'bin',
  'al',
  'el',
  'y',
]);
const SUFFIXES = /^(jr|sr|ii|iii|iv)\.?$/i;
// "A", "A.", "AN", "A.N.", "J.-P." : the initials of a "Family I" style name (PubMed, Vancouver).
const INITIALS = /^(?:\p{Lu}\.?-?){1,3}$/u;
const COLLECTIVE = /\b(consortium|group|lab|laboratory|team|institute|committee|network|project)\b/i;

/** The family name of one author written as "Adaeze Okafor", "Okafor, Adaeze", "Okafor A" or "A. Okafor". */
export function familyName(author: string): string {
  const name = author.replace(/[{}]/g, '').replace(/\s+/g, ' ').trim();
  if (name === '') return '';
  if (COLLECTIVE.test(name)) return name;
  const comma = name.indexOf(',');
  if (comma > 0) {
    // "Okafor, Adaeze" but also "Okafor, Jr., Adaeze": the family name is before the first comma.
    return name.slice(0, comma).trim();
  }
  const tokens = name.split(' ').filter((t) => !SUFFIXES.test(t));
  if (tokens.length <= 1) return tokens[0] ?? name;
  const last = tokens[tokens.length - 1];
  if (INITIALS.test(last) && !INITIALS.test(tokens[0])) {
    // "Okafor A" / "van der Berg JP": everything before the initials.
    return tokens.slice(0, -1).join(' ');
  }
  let start = tokens.length - 1;
  while (start > 1 && PARTICLES.has(tokens[start - 1])) start--;
  return tokens.slice(start).join(' ');
}

const TITLE_MAX = 40;

function shortTitle(title: string): string {
  const t = title.replace(/\s+/g, ' ').trim();
  if (t === '') return 'Untitled';
  if (t.length <= TITLE_MAX) return t;
  const cut = t.lastIndexOf(' ', TITLE_MAX - 1);
  return `${t.slice(0, cut > TITLE_MAX / 2 ? cut : TITLE_MAX - 1).replace(/[\s,;:.-]+$/, '')}…`;
}

function who(meta: PassageMeta): string {
  const names = meta.authors.map(familyName).filter((n) => n !== '');
  if (names.length === 0) return shortTitle(meta.title);
  if (names.length === 1) return names[0];
  if (names.length === 2) return `${names[0]} & ${names[1]}`;
  return `${names[0]} et al.`;
}

function where(meta: PassageMeta, section: string): string {
  const s = section.replace(/\s+/g, ' ').trim();
  if (s) return s;
  // Chunkers normally fill the section; these keep a citation pointing somewhere when they did not.
  if (meta.step !== undefined) return `Step ${meta.step}`;
  if (meta.slide !== undefined) return `Slide ${meta.slide}`;
  if (meta.page !== undefined) return `p. ${meta.page}`;
  return '';
}

/** "[Okafor et al., 2023, Methods]", "[Okafor & Lee, 2021, Step 4]", "[Lab safety rules, n.d.]". */
export function citationLabel(meta: PassageMeta, section: string): string {
  const parts = [who(meta), meta.year !== undefined ? String(meta.year) : 'n.d.', where(meta, section)];
  return `[${parts.filter((p) => p !== '').join(', ')}]`;
}

/** A DOI link when there is a DOI (it outlives publisher URLs), else the document's own web URL. */
export function citationLink(meta: PassageMeta): string | undefined {
  const doi = meta.doi?.trim().replace(/^(?:https?:\/\/(?:dx\.)?doi\.org\/|doi:\s*)/i, '');
  if (doi && /^10\.\d{4,9}\/\S+$/.test(doi)) {
    return `https://doi.org/${doi.split('/').map(encodeURIComponent).join('/')}`;
  }
  const url = meta.url?.trim();
  // Only web links: a file path or a relative wiki link would be dead in Slack.
  if (url && /^https?:\/\/\S+$/i.test(url)) return url;
  return undefined;
}

// An answer made only of questions ("Do you mean the Western blot or the RNA protocol?") asserts
// nothing, so it needs no source. Anything else is treated as a claim and must be cited.
function hasFactualContent(text: string): boolean {
  const sentences = text
    .split(/(?<=[.!?。])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => /[\p{L}\p{N}]/u.test(s));
  if (sentences.length === 0) return false;
  return !sentences.every((s) => /[?？]$/.test(s));
}

const refused = (language: Language): FinalAnswer => ({ answer: refusalText(language), refused: true, citations: [] });

/**
 * The last step before an answer is shown: invalid labels removed, uncited claims replaced by the
 * refusal, a refusal always in the question's language and never with sources, and one Sources
 * entry per cited document section, in order of first use.
 */
export function finalizeAnswer(input: { answer: string; passages: Passage[]; language: Language }): FinalAnswer {
  const { passages, language } = input;
  const raw = input.answer.trim();
  if (raw === '' || isRefusal(raw)) return refused(language);

  const labels = passages.map((_, i) => `S${i + 1}`);
  const check = checkCitations(raw, labels);
  if (check.text === '' || isRefusal(check.text)) return refused(language);
  if (check.cited.length === 0) {
    return hasFactualContent(check.text) ? refused(language) : { answer: check.text, refused: false, citations: [] };
  }

  const supported = checkSupport(check.text, passages);
  if (supported.text === '' || supported.quotes.size === 0) return refused(language);
  const cited = checkCitations(supported.text, labels).cited;

  const citations: Citation[] = [];
  const byKey = new Map<string, Citation>();
  for (const label of cited) {
    const p = passages[Number(label.slice(1)) - 1];
    const quotes = supported.quotes.get(label) ?? [];
    // Two chunks of the same section (a long Methods split in two) are one source for the reader.
    const key = `${p.docId}\u0000${p.section}`;
    const seen = byKey.get(key);
    if (seen) {
      seen.refs.push(label);
      for (const q of quotes) if (seen.quotes.length < MAX_QUOTES && !seen.quotes.includes(q)) seen.quotes.push(q);
      continue;
    }
    const url = citationLink(p.meta) ?? null;
    const c: Citation = {
      label: citationLabel(p.meta, p.section),
      doc_id: p.docId,
      title: p.meta.title,
      authors: [...p.meta.authors],
      year: p.meta.year ?? null,
      section: p.section,
      url,
      link: deepLink(p.meta, p.section) ?? url,
      refs: [label],
      quotes: quotes.slice(0, MAX_QUOTES),
      notice: p.meta.notice ?? null,
    };
    byKey.set(key, c);
    citations.push(c);
  }
  return { answer: supported.text, refused: false, citations };
}

/** Quotes shown per source: enough to check the claim, short enough for a chat message. */
const MAX_QUOTES = 2;
/**
 * A claim is supported by a cited passage when at least this share of its content terms occur in
 * the passage. A faithful paraphrase keeps most of the nouns and all numbers; a claim pinned to
 * the wrong passage shares almost none (function words are not terms, so they never count).
 */
const MIN_OVERLAP = 0.34;

const LABEL_GROUP = /[ \t]*\[(S\d+(?:, S\d+)*)\]/g;
const contentTerms = (text: string, language: Language): string[] =>
  [...new Set(tokenize(text, { language }))].filter((t) => t.length > 1 || /\d/.test(t));

/** A passage's sentences, without the "<title> — <section>" header line, list bullets or step numbers. */
export function passageSentences(p: Passage): string[] {
  const lines = p.text.split('\n');
  // Chunk text always starts with its header line (see makeChunk).
  const body = lines.length > 1 ? lines.slice(1) : lines;
  return body
    .map((l) => l.trim().replace(/^(?:[-*•]\s+|\d{1,3}[.)]\s+|#{1,6}\s+)/, ''))
    .filter((l) => l !== '' && !/^\|?\s*:?-{2,}/.test(l))
    .flatMap((l) => splitSentences(l));
}

const squash = (t: string): string => t.replace(/\s+/g, ' ').trim();

/**
 * Checks every cited claim against the passages it cites. A claim is the text before a label
 * group, back to the previous group or the start of its sentence. Labels whose passage does not
 * share enough content with the claim are dropped; a claim left with no label is dropped with
 * them (trimmed, not shown unsupported). Uncited sentences are left as they are (the caller
 * decides whether any cited claim remains). For each kept label, the passage sentence that best
 * matches its claim is returned as the quote.
 */
export function checkSupport(answer: string, passages: Passage[]): { text: string; quotes: Map<string, string[]> } {
  const quotes = new Map<string, string[]>();
  const sentencesOf = new Map<number, string[]>();
  const sentences = (i: number) => {
    let s = sentencesOf.get(i);
    if (!s) sentencesOf.set(i, (s = passageSentences(passages[i])));
    return s;
  };
  // Each passage's sentences as terms, read only when a claim names a lettered variant.
  const sentenceTermsOf = new Map<number, Array<Set<string>>>();
  const sentenceTerms = (i: number, language: Language) => {
    let t = sentenceTermsOf.get(i);
    if (!t) sentenceTermsOf.set(i, (t = sentences(i).map((x) => new Set(tokenize(x, { language })))));
    return t;
  };
  const runOf: number[][] = [];
  for (const run of joinedRuns(passages)) for (const i of run) runOf[i] = run;
  const kept: string[] = [];
  for (const line of answer.split('\n')) {
    const out: string[] = [];
    // Label groups written after the full stop ("Claim. [S1]") belong to the sentence before.
    for (const sentence of line.replace(/([.!?])([ \t]+\[S\d)/g, '$1\u0000$2').split(/(?<=[.!?])\s+(?!\u0000)/)) {
      const s = sentence.replace(/\u0000/g, '');
      const groups = [...s.matchAll(LABEL_GROUP)];
      if (groups.length === 0) {
        out.push(s);
        continue;
      }
      let rebuilt = '';
      let from = 0;
      let keptAny = false;
      for (const g of groups) {
        const claim = s.slice(from, g.index).replace(LABEL_GROUP, '');
        const variants = letterVariants(claim);
        const good: string[] = [];
        for (const cited of g[1].split(', ')) {
          let i = Number(cited.slice(1)) - 1;
          if (!passages[i]) continue;
          // Both stemmed in the passage's language: a short claim is too short to detect its own.
          const language = detectLanguage(passages[i].text);
          const terms = contentTerms(claim, language);
          if (terms.length === 0) continue;
          i = ownChunk(i, terms, runOf[i], (j) => sentenceTerms(j, language));
          const label = `S${i + 1}`;
          const p = passages[i];
          if (good.includes(label)) continue;
          const passageTerms = new Set(tokenize(p.text, { language }));
          const overlap = terms.filter((t) => passageTerms.has(t)).length;
          if (overlap === 0 || overlap / terms.length < MIN_OVERLAP) continue;
          // "Hepatitis C ..." pinned to a passage about hepatitis G shares every other word.
          if (variants.length && onlyOtherVariants(variants, sentenceTerms(i, language))) continue;
          good.push(label);
          const quote = bestSentence(terms, sentences(i), language);
          if (quote && squash(p.text).includes(squash(quote))) {
            const list = quotes.get(label) ?? [];
            if (!list.includes(quote)) list.push(quote);
            quotes.set(label, list);
          }
        }
        if (good.length) {
          rebuilt += `${claim} [${good.join(', ')}]`;
          keptAny = true;
        }
        from = g.index + g[0].length;
      }
      rebuilt += s.slice(from);
      if (keptAny) out.push(rebuilt.replace(/^\s*[;,]\s*/, ''));
      else if (!/\[S\d/.test(s)) out.push(s);
    }
    const joined = out.join(' ').trim();
    if (joined !== '' && /[\p{L}\p{N}]/u.test(joined)) kept.push(joined);
  }
  return { text: kept.join('\n').trim(), quotes };
}

/** How many of the terms the passage's best-matching sentence holds. */
function bestSentenceHits(terms: string[], sentences: Array<Set<string>>): number {
  let best = 0;
  for (const st of sentences) best = Math.max(best, terms.filter((t) => st.has(t)).length);
  return best;
}

/**
 * The chunk a claim comes from, among the chunks handed over together with the one it cites (a
 * best hit and its neighbours, which were one passage before they were labelled apart). A claim
 * none of whose cited chunk's sentences supports it, but a sentence of a neighbour does, is cited
 * by that neighbour: "heat shock at 42 °C for 45 s" is step 4's, not step 3's, even when the
 * model cited step 3, whose header shares the words "heat shock".
 */
function ownChunk(cited: number, terms: string[], run: number[] | undefined, sentenceTerms: (i: number) => Array<Set<string>>): number {
  if (!run || run.length < 2) return cited;
  const own = bestSentenceHits(terms, sentenceTerms(cited));
  if (own / terms.length >= MIN_OVERLAP) return cited;
  let best = cited;
  let bestHits = own;
  for (const j of run) {
    if (j === cited) continue;
    const hits = bestSentenceHits(terms, sentenceTerms(j));
    if (hits > bestHits) [best, bestHits] = [j, hits];
  }
  return best;
}

function bestSentence(terms: string[], sentences: string[], language: Language): string | undefined {
  let best: string | undefined;
  let bestScore = 0;
  for (const s of sentences) {
    const st = new Set(tokenize(s, { language }));
    const score = terms.filter((t) => st.has(t)).length;
    if (score > bestScore) {
      best = s;
      bestScore = score;
    }
  }
  return best;
}

/** GitHub/GitLab-style heading anchor: lower case, punctuation dropped, spaces to hyphens. */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/**
 * A link to the exact place: a PDF's page (`#page=N` is read by every browser's PDF viewer), a wiki
 * page's heading. A DOI resolves to a landing page, where neither applies.
 */
export function deepLink(meta: PassageMeta, section: string): string | undefined {
  const url = citationLink(meta);
  if (!url || url.startsWith('https://doi.org/')) return url;
  const bare = url.replace(/#.*$/, '');
  if (meta.page !== undefined && /\.pdf(?:$|\?)/i.test(bare)) return `${bare}#page=${meta.page}`;
  const heading = section.split(/\s*>\s*/).pop() ?? '';
  if (meta.kind === 'wiki' && heading !== '' && headingAnchor(heading) !== '') return `${bare}#${headingAnchor(heading)}`;
  return url;
}
