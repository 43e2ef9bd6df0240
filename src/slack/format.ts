// Pure Slack formatting: Markdown -> mrkdwn, and an answer -> Block Kit messages that respect
// Slack's limits (section text <= 3000 chars, <= 50 blocks per message, a plain-text fallback).
// No I/O here, so the limits are unit-tested without Slack.
import type { AskResult } from '../answer/answer.ts';
import type { Citation } from '../answer/cite.ts';
import { messages, type Language } from '../answer/messages.ts';
import { slackText } from './messages.ts';

/** Slack's documented limits; the fake Slack in the tests enforces the same numbers. */
export const LIMITS = {
  sectionText: 3000,
  blocksPerMessage: 50,
  contextElements: 10,
  buttonValue: 2000,
  /** chat.postMessage truncates `text` beyond 40k; notifications only need the start. */
  fallbackText: 3000,
} as const;

// Leave room for the code-fence repair ("```\n" / "\n```") added when a split lands inside a block.
const CHUNK_BUDGET = LIMITS.sectionText - 16;

export interface MrkdwnText {
  type: 'mrkdwn';
  text: string;
}
export interface PlainText {
  type: 'plain_text';
  text: string;
  emoji?: boolean;
}

export interface SectionBlock {
  type: 'section';
  text: MrkdwnText;
  block_id?: string;
}
export interface ButtonElement {
  type: 'button';
  action_id: string;
  text: PlainText;
  value: string;
  style?: 'primary' | 'danger';
}
/** The subset of Block Kit this bot sends; structurally a subset of @slack/types KnownBlock. */
export type Block =
  | SectionBlock
  | { type: 'divider' }
  | { type: 'context'; elements: MrkdwnText[] }
  | { type: 'actions'; block_id?: string; elements: ButtonElement[] };

export interface SlackMessage {
  text: string;
  blocks: Block[];
}

export const FEEDBACK_UP = 'labbot_feedback_up';
export const FEEDBACK_DOWN = 'labbot_feedback_down';

/** Escapes the three characters Slack reserves in mrkdwn (&, <, >). */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Text usable inside <url|text>: "|" and ">" would end the link early. */
function linkText(text: string): string {
  return escapeMrkdwn(text).replace(/\|/g, '¦');
}

// Placeholders that cannot occur in real text, so later rules do not re-match earlier output.
const BOLD = '\u0001';
const CODE = '\u0002';

/** Inline Markdown -> mrkdwn for one line outside code blocks. */
function inline(line: string, codeSpans: string[]): string {
  let s = line.replace(/`[^`\n]+`/g, (m) => {
    codeSpans.push(m);
    return `${CODE}${codeSpans.length - 1}${CODE}`;
  });
  s = escapeMrkdwn(s);
  // Links first: their text may itself contain emphasis, and their URL must not be touched.
  s = s.replace(/!?\[([^\]\n]+)\]\((\S+?)(?:\s+"[^"]*")?\)/g, (_m, t: string, u: string) => {
    const url = u.replace(/&amp;/g, '&');
    return `<${url}|${t.replace(/\|/g, '¦')}>`;
  });
  s = s.replace(/<(https?:\/\/[^>\s|]+)>/g, '<$1>'); // autolinks stay as they are
  s = s.replace(/(\*\*|__)(?=\S)([^\n]*?\S)\1/g, (_m, _d: string, t: string) => `${BOLD}${t}${BOLD}`);
  s = s.replace(/(^|[^\w*])\*(?=\S)([^*\n]*?\S)\*(?!\w)/g, '$1_$2_');
  s = s.replace(/~~(?=\S)([^\n]*?\S)~~/g, '~$1~');
  s = s.split(BOLD).join('*');
  return s.replace(new RegExp(`${CODE}(\\d+)${CODE}`, 'g'), (_m, i: string) => codeSpans[Number(i)]);
}

/**
 * Markdown (as the answerer writes it) -> Slack mrkdwn: **bold** -> *bold*, *em* -> _em_,
 * [t](u) -> <u|t>, headings -> bold lines, "-"/"*" bullets -> "•", numbered lists and code kept.
 */
export function markdownToMrkdwn(markdown: string): string {
  const out: string[] = [];
  let inFence = false;
  for (const raw of markdown.replace(/\r\n?/g, '\n').split('\n')) {
    if (/^\s*```/.test(raw)) {
      inFence = !inFence;
      out.push(raw.trim().startsWith('```') ? '```' : raw);
      continue;
    }
    if (inFence) {
      out.push(escapeMrkdwn(raw));
      continue;
    }
    const spans: string[] = [];
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(raw);
    if (heading) {
      const text = inline(heading[1], spans).replace(/\*/g, '');
      out.push(text ? `*${text}*` : '');
      continue;
    }
    const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(raw);
    if (bullet) {
      const depth = Math.floor(bullet[1].replace(/\t/g, '    ').length / 2);
      out.push(`${'    '.repeat(depth)}• ${inline(bullet[2], spans)}`);
      continue;
    }
    const quote = /^\s*>\s?(.*)$/.exec(raw);
    if (quote) {
      out.push(`> ${inline(quote[1], spans)}`);
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(raw)) {
      out.push('');
      continue;
    }
    out.push(inline(raw, spans));
  }
  return out.join('\n').replace(/\n{3,}/g, '\n\n').trim();
}

/** Where to cut `text` so the piece is <= max: paragraph, then line, then sentence, then word. */
function cutPoint(text: string, max: number): number {
  const window = text.slice(0, max + 1);
  for (const sep of ['\n\n', '\n', '. ', ' ']) {
    const at = window.lastIndexOf(sep, max - sep.length);
    if (at > max / 3) return at + sep.length;
  }
  // One unbroken run (a long URL or sequence): cut hard, but never inside a surrogate pair.
  const code = text.charCodeAt(max - 1);
  return code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
}

/**
 * Splits mrkdwn into pieces of at most `max` characters without losing anything. A piece that
 * ends inside a ``` block is closed and the next one reopens it, so code renders in both.
 */
export function splitText(text: string, max: number = CHUNK_BUDGET): string[] {
  const pieces: string[] = [];
  let rest = text;
  let reopen = false;
  while (rest.length > 0) {
    const prefix: string = reopen ? '```\n' : '';
    const budget = max - prefix.length - 4;
    let piece: string;
    if (prefix.length + rest.length <= max) {
      piece = rest;
      rest = '';
    } else {
      const at = cutPoint(rest, budget);
      piece = rest.slice(0, at);
      rest = rest.slice(at);
    }
    let body: string = prefix + piece;
    const fences: number = (body.match(/```/g) ?? []).length;
    reopen = fences % 2 === 1 && rest.length > 0;
    if (reopen) body = `${body.replace(/\n?$/, '\n')}\`\`\``;
    if (body.trim() !== '') pieces.push(body);
  }
  return pieces;
}

function authorList(authors: string[]): string {
  if (authors.length === 0) return '';
  if (authors.length <= 3) return authors.join(', ');
  return `${authors.slice(0, 3).join(', ')} et al.`;
}

/** A quote under a source is cut to this many characters: enough to check the claim at a glance. */
const QUOTE_MAX = 220;

/**
 * Document text as a quote line. Besides &, < and >, the formatting characters get a zero-width
 * space before them so a passage's "*", "_", "~" or "`" cannot open bold, italics, strike or code.
 */
export function quoteLine(quote: string): string {
  let t = quote.replace(/\s+/g, ' ').trim();
  if (t.length > QUOTE_MAX) {
    const cut = t.lastIndexOf(' ', QUOTE_MAX - 1);
    t = `${t.slice(0, cut > QUOTE_MAX / 2 ? cut : QUOTE_MAX - 1)}…`;
  }
  return `> ${escapeMrkdwn(t).replace(/[*_~`]/g, '\u200b$&')}`;
}

/**
 * One Sources entry: "[S1] *<url|Title>* — Okafor, Lee, 2023, Methods", linked to the exact place
 * when known (PDF page, wiki heading), then the sentences the answer rests on as quotes.
 */
export function sourceLine(c: Citation): string {
  const title = c.title.trim() || c.doc_id;
  const href = c.link ?? c.url;
  const titlePart = href ? `*<${href}|${linkText(title)}>*` : `*${escapeMrkdwn(title)}*`;
  const details = [authorList(c.authors), c.year !== null ? String(c.year) : 'n.d.', c.section.replace(/\s+/g, ' ').trim()]
    .filter((p) => p !== '')
    .map(escapeMrkdwn)
    .join(', ');
  const refs = c.refs.length ? `[${c.refs.join(', ')}] ` : '';
  return [`${refs}${titlePart} — ${details}`, ...(c.quotes ?? []).map(quoteLine)].join('\n');
}

/** "Answered by gpt-4o-mini" or the extractive note, in the answer's language. */
export function modelNote(model: string, language: Language): string {
  if (model === 'none') return slackText(language).noModelNeeded;
  if (model.startsWith('extractive')) {
    const note = messages(language).extractiveNote;
    return model.includes('unavailable') ? `${note} ${slackText(language).modelUnavailable}` : note;
  }
  return `${slackText(language).answeredBy} ${model}`;
}

function sections(mrkdwn: string): Block[] {
  return splitText(mrkdwn).map((text) => ({ type: 'section', text: { type: 'mrkdwn', text } }));
}

function fallback(text: string): string {
  const plain = text.replace(/\s+/g, ' ').trim();
  return plain.length <= LIMITS.fallbackText ? plain : `${plain.slice(0, LIMITS.fallbackText - 1)}…`;
}

/** Chunks blocks into messages of <= 50 blocks, each with a plain-text fallback. */
export function toMessages(blocks: Block[], fallbackText: string, continued: string): SlackMessage[] {
  const out: SlackMessage[] = [];
  for (let i = 0; i < blocks.length; i += LIMITS.blocksPerMessage) {
    out.push({ text: i === 0 ? fallback(fallbackText) : continued, blocks: blocks.slice(i, i + LIMITS.blocksPerMessage) });
  }
  return out.length ? out : [{ text: fallback(fallbackText), blocks: [] }];
}

export interface AnswerView {
  answer: string;
  refused: boolean;
  citations: Citation[];
  model: string;
  language: Language;
}

/**
 * The answer as one or more Slack messages: answer sections, a Sources list, a context line
 * naming the model, and (when a record id is given) 👍/👎 buttons carrying that id.
 */
export function answerMessages(result: AnswerView | AskResult, opts: { recordId?: string } = {}): SlackMessage[] {
  const lang = result.language;
  const blocks: Block[] = sections(markdownToMrkdwn(result.answer));
  if (!result.refused && result.citations.length > 0) {
    blocks.push({ type: 'divider' });
    const lines = [`*${messages(lang).sources}*`, ...result.citations.map(sourceLine)];
    // Sources are joined into as few sections as fit, never splitting one source across two.
    let current = '';
    for (const line of lines) {
      const next = current ? `${current}\n${line}` : line;
      if (next.length > CHUNK_BUDGET && current) {
        blocks.push(...sections(current));
        current = line;
      } else current = next;
    }
    if (current) blocks.push(...sections(current));
  }
  blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: escapeMrkdwn(modelNote(result.model, lang)) }] });
  if (opts.recordId && opts.recordId.length <= LIMITS.buttonValue) {
    const t = slackText(lang);
    blocks.push({
      type: 'actions',
      block_id: 'labbot_feedback',
      elements: [
        { type: 'button', action_id: FEEDBACK_UP, text: { type: 'plain_text', text: `👍 ${t.helpful}`, emoji: true }, value: opts.recordId },
        { type: 'button', action_id: FEEDBACK_DOWN, text: { type: 'plain_text', text: `👎 ${t.notHelpful}`, emoji: true }, value: opts.recordId },
      ],
    });
  }
  return toMessages(blocks, result.answer, slackText(lang).continued);
}

/** A short message (errors, notices, the "Searching…" placeholder); `mrkdwn` is already escaped. */
export function noticeMessage(mrkdwn: string): SlackMessage {
  return { text: fallback(mrkdwn), blocks: sections(mrkdwn).slice(0, LIMITS.blocksPerMessage) };
}
