// Citations: checking the [S#] labels a model (or the extractive answerer) wrote against the
// passages it was actually given, and rendering sources as [authors, year, section] with a link.
// The model is never trusted to cite correctly; this code is the last word on what is shown.
import type { Passage, PassageMeta } from '../types.ts';
import { isRefusal, refusalText, type Language } from './messages.ts';

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
  /** The passage labels in the answer text ("S1", "S3") that point to this source. */
  refs: string[];
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
const PARTICLES = new Set(['van', 'von', 'der', 'den', 'de', 'del', 'della', 'da', 'das', 'di', 'do', 'dos', 'du', 'la', 'le', 'ten', 'ter', 'bin', 'al', 'el', 'y']);
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

  const citations: Citation[] = [];
  const byKey = new Map<string, Citation>();
  for (const label of check.cited) {
    const p = passages[Number(label.slice(1)) - 1];
    // Two chunks of the same section (a long Methods split in two) are one source for the reader.
    const key = `${p.docId}\u0000${p.section}`;
    const seen = byKey.get(key);
    if (seen) {
      seen.refs.push(label);
      continue;
    }
    const c: Citation = {
      label: citationLabel(p.meta, p.section),
      doc_id: p.docId,
      title: p.meta.title,
      authors: [...p.meta.authors],
      year: p.meta.year ?? null,
      section: p.section,
      url: citationLink(p.meta) ?? null,
      refs: [label],
    };
    byKey.set(key, c);
    citations.push(c);
  }
  return { answer: check.text, refused: false, citations };
}
