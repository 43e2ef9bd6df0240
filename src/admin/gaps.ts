// Knowledge gaps: questions the bot refused or answered from weak evidence, grouped by topic.
// Pure functions: the dashboard passes activity records in and renders what comes out.
import { tokenize } from '../search/tokenize.ts';

export interface GapQuestion {
  question: string;
  channel?: string;
  ts: string;
  refused: boolean;
  citations: unknown[];
  topScore?: number;
  feedback?: { up: number; down: number };
}

export interface GapOptions {
  /** Answers whose best passage scored below this count as weak (unset: score not used). */
  minTopScore?: number;
  /** Terms shared by at least this many questions form a topic (default 2). */
  minShared?: number;
}

export type GapReason = 'refused' | 'no citations' | 'low score' | 'thumbs down';

export interface GapGroup {
  /** Readable topic: the most common surface words of the shared terms. */
  topic: string;
  /** Analysed (stemmed) terms the questions share. */
  terms: string[];
  count: number;
  refused: number;
  weak: number;
  /** Channel -> number of questions ("public" for none). */
  channels: Record<string, number>;
  questions: { question: string; channel: string; ts: string; reason: GapReason }[];
  lastAsked: string;
}

/** Why a record is a gap, or undefined when it was answered from good evidence. */
export function gapReason(q: GapQuestion, opts: GapOptions = {}): GapReason | undefined {
  if (q.refused) return 'refused';
  if (q.citations.length === 0) return 'no citations';
  if (opts.minTopScore !== undefined && q.topScore !== undefined && q.topScore < opts.minTopScore) return 'low score';
  if (q.feedback && q.feedback.down > q.feedback.up) return 'thumbs down';
  return undefined;
}

/** Salient terms of a question: analysed terms (stemmed, stop words gone) that carry a topic. */
export function salientTerms(text: string): string[] {
  return [...new Set(tokenize(text).filter((t) => t.length >= 3 && !/^\d+(\.\d+)?$/.test(t)))];
}

/** Stem -> the surface word most often seen for it, for readable topic names. */
function surfaceWords(texts: string[]): Map<string, string> {
  const counts = new Map<string, Map<string, number>>();
  for (const text of texts) {
    for (const word of text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}-]*/gu) ?? []) {
      for (const term of tokenize(word)) {
        const m = counts.get(term) ?? new Map<string, number>();
        m.set(word, (m.get(word) ?? 0) + 1);
        counts.set(term, m);
      }
    }
  }
  const out = new Map<string, string>();
  for (const [term, m] of counts)
    out.set(term, [...m].sort((a, b) => b[1] - a[1] || a[0].length - b[0].length || (a[0] < b[0] ? -1 : 1))[0][0]);
  return out;
}

/**
 * Groups gap questions by shared salient terms, greedily: the term shared by the most ungrouped
 * questions founds a topic with all of them (other terms shared by at least half of the group join
 * its name); questions sharing nothing stay topics of their own. Largest topics first.
 */
export function groupGaps(records: GapQuestion[], opts: GapOptions = {}): GapGroup[] {
  const minShared = opts.minShared ?? 2;
  const gaps = records
    .map((r) => ({ r, reason: gapReason(r, opts) }))
    .filter((g): g is { r: GapQuestion; reason: GapReason } => g.reason !== undefined)
    .map((g) => ({ ...g, terms: salientTerms(g.r.question) }));
  const surface = surfaceWords(gaps.map((g) => g.r.question));
  const groups: GapGroup[] = [];
  let left = gaps;

  const build = (members: typeof gaps, founding: string[]): GapGroup => {
    const shared = new Map<string, number>();
    for (const m of members) for (const t of m.terms) shared.set(t, (shared.get(t) ?? 0) + 1);
    const extra = [...shared]
      .filter(([t, c]) => !founding.includes(t) && members.length > 1 && c >= Math.max(2, Math.ceil(members.length / 2)))
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .map(([t]) => t);
    const terms = [...founding, ...extra].slice(0, 4);
    // Null-prototype: channel names come from requests ("constructor", "__proto__").
    const channels: Record<string, number> = Object.create(null);
    for (const m of members) {
      const ch = m.r.channel || 'public';
      channels[ch] = (channels[ch] ?? 0) + 1;
    }
    const questions = members
      .map((m) => ({ question: m.r.question, channel: m.r.channel || 'public', ts: m.r.ts, reason: m.reason }))
      .sort((a, b) => (a.ts < b.ts ? 1 : a.ts > b.ts ? -1 : 0));
    return {
      topic: terms.length ? terms.map((t) => surface.get(t) ?? t).join(' ') : '(no salient terms)',
      terms,
      count: members.length,
      refused: members.filter((m) => m.reason === 'refused').length,
      weak: members.filter((m) => m.reason !== 'refused').length,
      channels,
      questions,
      lastAsked: questions[0]?.ts ?? '',
    };
  };

  for (;;) {
    const df = new Map<string, number>();
    for (const g of left) for (const t of g.terms) df.set(t, (df.get(t) ?? 0) + 1);
    const best = [...df].sort((a, b) => b[1] - a[1] || b[0].length - a[0].length || (a[0] < b[0] ? -1 : 1))[0];
    if (!best || best[1] < minShared) break;
    const members = left.filter((g) => g.terms.includes(best[0]));
    groups.push(build(members, [best[0]]));
    left = left.filter((g) => !g.terms.includes(best[0]));
  }
  for (const g of left) groups.push(build([g], g.terms.slice(0, 3)));
  return groups.sort((a, b) => b.count - a.count || (a.lastAsked < b.lastAsked ? 1 : -1));
}

/**
 * One CSV cell: formula-looking values are neutralised, then the cell is always quoted. Quoting
 * every field matters where spreadsheets split on ";" (many European locales): an unquoted
 * "calibration;=HYPERLINK(...)" would become two cells, the second one a live formula.
 */
export function csvCell(value: unknown): string {
  let s = String(value ?? '');
  // Spreadsheets execute cells starting with these as formulas (CSV injection).
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return `"${s.replace(/"/g, '""')}"`;
}

export function toCsv(rows: unknown[][]): string {
  return `${rows.map((r) => r.map(csvCell).join(',')).join('\r\n')}\r\n`;
}

export function gapsCsv(groups: GapGroup[]): string {
  const rows: unknown[][] = [['topic', 'terms', 'questions', 'refused', 'weak', 'channels', 'last_asked', 'examples']];
  for (const g of groups) {
    rows.push([
      g.topic,
      g.terms.join(' '),
      g.count,
      g.refused,
      g.weak,
      Object.entries(g.channels)
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .map(([c, n]) => `${c} (${n})`)
        .join('; '),
      g.lastAsked,
      g.questions
        .slice(0, 5)
        .map((q) => q.question)
        .join(' | '),
    ]);
  }
  return toCsv(rows);
}
