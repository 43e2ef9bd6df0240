// Sentence splitting, packing with overlap, and chunk headers: the pieces every chunker shares.
//
// Why not @langchain/textsplitters here: RecursiveCharacterTextSplitter's splitText is async
// (chunkDocument is a pure synchronous function), it splits on separators only, so it cuts inside
// "et al.", "Fig. 2" or "e.g." as soon as ". " is a separator, and its overlap is counted in
// characters, so a chunk can begin mid-sentence. Retrieval measured best on chunks cut at
// sentence boundaries (docs/architecture.md), so the splitter and packer below are hand-written.

import type { Block, ChunkDraft, ChunkOptions } from '../../types.ts';

/** What every kind's chunker takes: the kind itself was decided before. */
export interface ParsedDoc {
  title: string;
  blocks: Block[];
}

/** Longest title kept in a chunk header; long titles would crowd out the body in embeddings. */
const TITLE_MAX = 120;
const SECTION_MAX = 120;

/** Words that end with a period without ending the sentence (compared lower-cased, no dot). */
const ABBREVIATIONS = new Set([
  // citations and cross-references
  'al',
  'fig',
  'figs',
  'eq',
  'eqs',
  'ref',
  'refs',
  'tab',
  'suppl',
  'vol',
  'vols',
  'pp',
  'no',
  'nos',
  'ch',
  'chap',
  'sec',
  'sect',
  'ed',
  'eds',
  'cf',
  'vs',
  'viz',
  'ibid',
  'op',
  'cit',
  // quantities; not "min", "h" or "ms", which end protocol sentences ("Incubate 5 min. Wash.")
  'approx',
  'ca',
  'cat',
  'resp',
  'wt',
  'conc',
  // taxonomy
  'sp',
  'spp',
  'subsp',
  'var',
  'cv',
  'nov',
  // titles and companies
  'dr',
  'mr',
  'mrs',
  'prof',
  'st',
  'inc',
  'ltd',
  'co',
  'corp',
  'jr',
  'sr',
  'sra',
  'dra',
  // months
  'jan',
  'feb',
  'mar',
  'apr',
  'jun',
  'jul',
  'aug',
  'sep',
  'sept',
  'oct',
  'nov',
  'dec',
  // Spanish
  'aprox',
  'ej',
  'núm',
  'pág',
  'págs',
  'tabla',
]);

const OPENERS = `"'“‘«([{¿¡`;

/** Collapse runs of whitespace (PDF line wraps, indentation) and drop soft hyphens. */
export function normalizeSpace(text: string): string {
  return text
    .replace(/\u00ad/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function stripOpeners(word: string): string {
  let i = 0;
  while (i < word.length && OPENERS.includes(word[i])) i++;
  return word.slice(i);
}

function startsSentence(nextWord: string): boolean {
  const w = stripOpeners(nextWord);
  if (w === '') return OPENERS.includes(nextWord[0] ?? '');
  // Gene and molecule names often start lower-case (mRNA, siRNA, p53): they may open a sentence.
  return /^[\p{Lu}\p{N}]/u.test(w) || /^\p{Ll}+[\p{Lu}\p{N}]/u.test(w);
}

function isAbbreviation(prevWord: string): boolean {
  const w = stripOpeners(prevWord);
  if (w === '') return false;
  // Initials ("Smith J. Title", "A. B. Jones"). A lone lower-case letter is usually a unit
  // ("for 1 h. Wash"): it only protects a following number ("p. 3"), handled by the caller.
  if (/^\p{Lu}$/u.test(w)) return true;
  // Dotted forms: e.g, i.e, U.S, a.m, p.ej
  if (/^(?:\p{L}{1,3}\.)+\p{L}{1,3}$/u.test(w)) return true;
  return ABBREVIATIONS.has(w.toLowerCase());
}

/**
 * Split prose into sentences. A boundary is terminal punctuation followed by whitespace and a
 * word that can start a sentence, unless the word before the period is an abbreviation, an
 * initial or "et al.". Decimals (0.5) never qualify because no whitespace follows their dot.
 */
export function splitSentences(text: string): string[] {
  const s = normalizeSpace(text);
  if (s === '') return [];
  const out: string[] = [];
  let from = 0;
  const terminal = /[.!?…]+["'”’»)\]]*(?=\s)/gu;
  for (const m of s.matchAll(terminal)) {
    const punctEnd = m.index + m[0].length;
    const nextMatch = /\s+(\S+)/y;
    nextMatch.lastIndex = punctEnd;
    const next = nextMatch.exec(s);
    if (!next) continue;
    if (!startsSentence(next[1])) continue;
    const punct = m[0].replace(/["'”’»)\]]+$/u, '');
    if (punct === '.') {
      const prevWord = s.slice(Math.max(from, s.lastIndexOf(' ', m.index - 1) + 1), m.index);
      if (isAbbreviation(prevWord)) continue;
      if (/^\p{Ll}$/u.test(stripOpeners(prevWord)) && /^\p{N}/u.test(next[1])) continue;
    }
    out.push(s.slice(from, punctEnd).trim());
    from = punctEnd;
  }
  const tail = s.slice(from).trim();
  if (tail) out.push(tail);
  return out;
}

/**
 * Cut text longer than `limit` at the last space before the limit; only a run with no space at
 * all (a sequence, a URL) is cut mid-word. Used for single sentences or lines that cannot fit.
 */
export function hardCut(text: string, limit: number): string[] {
  const out: string[] = [];
  let rest = text.trim();
  const max = Math.max(1, Math.floor(limit));
  while (rest.length > max) {
    let cut = rest.lastIndexOf(' ', max);
    if (cut < max * 0.5) cut = max;
    out.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  if (rest) out.push(rest);
  return out;
}

export function truncate(text: string, max: number): string {
  const t = normalizeSpace(text);
  return t.length <= max ? t : `${t.slice(0, max - 1).trimEnd()}…`;
}

/** A chunk's text starts with "<title> — <section>" so that it can be read (and embedded) alone. */
export function makeChunk(
  title: string,
  section: string,
  body: string,
  extra: Pick<ChunkDraft, 'step' | 'slide' | 'page'> = {},
): ChunkDraft {
  const sec = truncate(section, SECTION_MAX);
  const header = [truncate(title, TITLE_MAX), sec].filter((s) => s !== '').join(' — ');
  const trimmed = body.trim();
  const chunk: ChunkDraft = { text: header ? `${header}\n${trimmed}` : trimmed, section: sec };
  if (extra.step !== undefined) chunk.step = extra.step;
  if (extra.slide !== undefined) chunk.slide = extra.slide;
  if (extra.page !== undefined) chunk.page = extra.page;
  return chunk;
}

/** The smallest piece the packer moves: a sentence, a list item, a table piece, a code block. */
export interface Unit {
  text: string;
  /** What joins this unit to the previous one inside a chunk: same paragraph, next line, new paragraph. */
  sep: ' ' | '\n' | '\n\n';
  page?: number;
  /** False for tables and code: repeating those as overlap would duplicate whole blocks. */
  overlap?: boolean;
}

export interface Packed {
  text: string;
  /** Page of the first unit that is new in this chunk (not overlap). */
  page?: number;
}

export interface Limits {
  size: number;
  max: number;
  overlap: number;
}

/** Sizes every chunker obeys: target `size`, hard ceiling 1.5x, overlap at most half a chunk. */
export function limits(opts: ChunkOptions): Limits {
  const size = Math.max(50, Math.floor(opts.size));
  return {
    size,
    max: Math.floor(size * 1.5),
    overlap: Math.max(0, Math.min(Math.floor(opts.overlap), Math.floor(size / 2))),
  };
}

function joined(units: Unit[], from: number, to: number): string {
  let text = '';
  for (let i = from; i <= to; i++) text += i === from ? units[i].text : units[i].sep + units[i].text;
  return text;
}

/**
 * Pack units greedily to about `size` characters, never past 1.5x. Consecutive chunks share whole
 * trailing sentences worth about `overlap` characters; when the last sentence alone is longer,
 * it is still repeated if it is no longer than twice the overlap (a third of a chunk at most),
 * because a chunk that starts with the question's context retrieves better than one without.
 */
export function packUnits(input: Unit[], opts: ChunkOptions): Packed[] {
  const { size, max, overlap } = limits(opts);
  const units: Unit[] = [];
  for (const u of input) {
    const text = u.text.trim();
    if (!text) continue;
    if (text.length <= max) {
      units.push({ ...u, text });
      continue;
    }
    hardCut(text, size).forEach((piece, i) => units.push({ ...u, text: piece, sep: i === 0 ? u.sep : ' ' }));
  }
  const n = units.length;
  const out: Packed[] = [];
  // Suffix sums let the packer see whether the remainder is a runt worth absorbing.
  const rest: number[] = new Array(n + 1).fill(0);
  for (let i = n - 1; i >= 0; i--) rest[i] = rest[i + 1] + units[i].text.length + units[i].sep.length;

  let ovStart = 0;
  let newStart = 0;
  while (newStart < n) {
    let len = ovStart < newStart ? joined(units, ovStart, newStart - 1).length : 0;
    if (ovStart < newStart && len + units[newStart].sep.length + units[newStart].text.length > max) {
      ovStart = newStart;
      len = 0;
    }
    len += (ovStart < newStart ? units[newStart].sep.length : 0) + units[newStart].text.length;
    let end = newStart;
    while (end + 1 < n) {
      const next = units[end + 1];
      const add = next.sep.length + next.text.length;
      const remainder = rest[end + 1];
      if (remainder < size * 0.3 && len + remainder <= max) {
        len += add;
        end++;
        continue;
      }
      if (len + add <= size) {
        // Prefer ending a well-filled chunk at a paragraph break over starting a new paragraph.
        if (next.sep === '\n\n' && len >= size * 0.75) break;
        len += add;
        end++;
        continue;
      }
      if (len < size * 0.5 && len + add <= max) {
        len += add;
        end++;
        continue;
      }
      break;
    }
    out.push({ text: joined(units, ovStart, end), page: units[newStart].page });
    if (end + 1 >= n) break;

    let k = end + 1;
    let total = 0;
    while (k - 1 >= newStart && units[k - 1].overlap !== false) {
      const add = units[k - 1].text.length + (total > 0 ? units[k].sep.length : 0);
      if (total + add > overlap) break;
      total += add;
      k--;
    }
    if (k === end + 1 && overlap > 0 && end > newStart && units[end].overlap !== false) {
      if (units[end].text.length <= Math.min(2 * overlap, size / 3)) k = end;
    }
    ovStart = k;
    newStart = end + 1;
  }
  return out;
}

/** Units for one paragraph of prose: its sentences, the first marked as a new paragraph. */
export function sentenceUnits(text: string, page?: number, firstSep: Unit['sep'] = '\n\n'): Unit[] {
  return splitSentences(text).map((s, i) => ({ text: s, sep: i === 0 ? firstSep : ' ', page }));
}

/** Units that fit in 1.5x the size stay one chunk (a step or a slide is one answer); else pack. */
export function packWhole(units: Unit[], opts: ChunkOptions): Packed[] {
  const kept = units.filter((u) => u.text.trim() !== '');
  if (kept.length === 0) return [];
  const text = joined(kept, 0, kept.length - 1);
  if (text.length <= limits(opts).max) return [{ text, page: kept[0].page }];
  return packUnits(kept, opts);
}
