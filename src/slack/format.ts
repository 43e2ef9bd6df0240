// Pure Slack formatting: Markdown -> mrkdwn, and an answer -> Block Kit messages that respect
// Slack's limits (section text <= 3000 chars, <= 50 blocks and ~12,000 characters of block text
// per message, a plain-text fallback). No I/O here, so the limits are unit-tested without Slack.
//
// Why a converter of our own and not Slack's `markdown` block: that block takes standard Markdown
// (cumulative limit 12,000 characters per message) and Slack translates it into blocks of its own,
// "possibly several". Its documentation says nothing of what it does with `<!channel>`, `<@U…>`,
// `&lt;` or a `[text](javascript:…)` link, so labbot could not prove that text from documents and
// models never pings or links; and the blocks it expands into are out of our control for the
// 50-block and cumulative limits. Here every character that leaves is escaped by us, and a link is
// emitted only for a URL we validated. Hand-written because no library in package.json does
// Markdown -> mrkdwn with these escaping guarantees.
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
  /** Slack answers msg_too_long well below the documented 40k; notifications only need the start. */
  fallbackText: 1000,
  /**
   * Characters of text per message (blocks plus the fallback `text`). Slack refuses more than about
   * 12,000 in one message's blocks (msg_blocks_too_long, slackapi/bolt-js#2509, #2867), counted in a
   * way it does not document (#2867 was refused at 11,341 by its own count): keep a margin.
   */
  messageText: 11_000,
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

/**
 * The one way labbot's own code writes a user mention on purpose (e.g. "shared by <@U123>"): only a
 * well-formed user id becomes a token; anything else is shown as escaped text. Tests allow the
 * resulting token explicitly (fake Slack's allowMentions); any other token in output is a bug.
 */
export function userMention(userId: string): string {
  return /^[UW][A-Z0-9]{2,}$/.test(userId) ? `<@${userId}>` : escapeMrkdwn(userId);
}

/** Text usable inside <url|text>: "|" and ">" would end the link early. */
function linkText(text: string): string {
  return escapeMrkdwn(text).replace(/\|/g, '¦');
}

/**
 * A URL that may go inside <url|text>, or undefined. Only http(s) URLs that the WHATWG parser
 * accepts, without credentials (`https://slack.com@evil.example`); `<`, `>`, `|` and spaces, which
 * would end or split the link token (and let `><!everyone><` through), are percent-encoded.
 */
export function safeUrl(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname || url.username || url.password) return undefined;
  return url.href.replace(/[<>| ]/g, (c) => encodeURIComponent(c));
}

/** <url|text> for a valid URL; otherwise the text alone (a link is never emitted unvalidated). */
function link(url: string, escapedText: string): string {
  const safe = safeUrl(url);
  const text = escapedText.replace(/\|/g, '¦');
  return safe ? `<${safe}|${text}>` : text;
}

const unescape = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

// Placeholders that cannot occur in real text, so later rules do not re-match earlier output.
const BOLD = '\u0001';
const HOLD = '\u0002';

/** Inline Markdown -> mrkdwn for one line outside code blocks. */
function inline(line: string): string {
  const held: string[] = [];
  const hold = (out: string) => {
    held.push(out);
    return `${HOLD}${held.length - 1}${HOLD}`;
  };
  // Slack parses <…> and &…; inside backticks too, so code is escaped like everything else.
  let s = line.replace(/`[^`\n]+`/g, (m) => hold(escapeMrkdwn(m)));
  s = escapeMrkdwn(s);
  // Links first: their text may itself contain emphasis, and their URL must not be touched by it.
  s = s.replace(/!?\[([^\]\n]+)\]\(((?:[^\s()]|\([^\s()]*\))+)(?:\s+"[^"]*")?\)/g, (_m, t: string, u: string) => hold(link(unescape(u), t)));
  // Markdown autolinks <https://…>; a Slack-style <url|label> in the text stays escaped text.
  s = s.replace(/&lt;(https?:\/\/[^\s|]+?)&gt;/g, (m, u: string) => (safeUrl(unescape(u)) ? hold(link(unescape(u), u)) : m));
  s = s.replace(/(\*\*|__)(?=\S)([^\n]*?\S)\1/g, (_m, _d: string, t: string) => `${BOLD}${t}${BOLD}`);
  s = s.replace(/(^|[^\w*])\*(?=\S)([^*\n]*?\S)\*(?!\w)/g, '$1_$2_');
  s = s.replace(/~~(?=\S)([^\n]*?\S)~~/g, '~$1~');
  s = s.split(BOLD).join('*');
  return s.replace(new RegExp(`${HOLD}(\\d+)${HOLD}`, 'g'), (_m, i: string) => held[Number(i)]);
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
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(raw);
    if (heading) {
      const text = inline(heading[1]).replace(/\*/g, '');
      out.push(text ? `*${text}*` : '');
      continue;
    }
    const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(raw);
    if (bullet) {
      const depth = Math.floor(bullet[1].replace(/\t/g, '    ').length / 2);
      out.push(`${'    '.repeat(depth)}• ${inline(bullet[2])}`);
      continue;
    }
    const quote = /^\s*>\s?(.*)$/.exec(raw);
    if (quote) {
      out.push(`> ${inline(quote[1])}`);
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(raw)) {
      out.push('');
      continue;
    }
    out.push(inline(raw));
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
 * when known (PDF page, wiki heading), then the sentences the answer rests on as quotes. A
 * document's url comes from front matter, BibTeX or HTML, so it is linked only when safeUrl
 * accepts it; anything else is shown as inert code text (Slack does not auto-link inside backticks).
 */
export function sourceLine(c: Citation): string {
  const title = c.title.trim() || c.doc_id;
  const href = c.link ?? c.url;
  const url = href ? safeUrl(href) : undefined;
  const titlePart = url ? `*<${url}|${linkText(title)}>*` : `*${escapeMrkdwn(title)}*`;
  const details = [authorList(c.authors), c.year !== null ? String(c.year) : 'n.d.', c.section.replace(/\s+/g, ' ').trim()]
    .filter((p) => p !== '')
    .map(escapeMrkdwn)
    .join(', ');
  const refs = c.refs.length ? `[${escapeMrkdwn(c.refs.join(', '))}] ` : '';
  const shown = c.url && !url ? ` \`${escapeMrkdwn(c.url.replace(/[`\s]+/g, ' ').trim().slice(0, 200))}\`` : '';
  return [`${refs}${titlePart} — ${details}${shown}`, ...(c.quotes ?? []).map(quoteLine)].join('\n');
}

/** The Sources list as sections: a heading and one line per citation, never one source split across two sections. */
export function sourcesBlocks(citations: Citation[], lang: Language): Block[] {
  const blocks: Block[] = [];
  const lines = [`*${messages(lang).sources}*`, ...citations.map(sourceLine)];
  let current = '';
  for (const line of lines) {
    const next = current ? `${current}\n${line}` : line;
    if (next.length > CHUNK_BUDGET && current) {
      blocks.push(...sections(current));
      current = line;
    } else current = next;
  }
  if (current) blocks.push(...sections(current));
  return blocks;
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

/** The notification text: the start of already-escaped mrkdwn, never cut inside an entity. */
function fallback(mrkdwn: string): string {
  const plain = mrkdwn.replace(/\s+/g, ' ').trim();
  if (plain.length <= LIMITS.fallbackText) return plain;
  return `${plain.slice(0, LIMITS.fallbackText - 1).replace(/&[a-z]*$/, '')}…`;
}

/** Characters of text in blocks, counted as Slack counts them for msg_blocks_too_long. */
export function blocksTextLength(blocks: Block[]): number {
  let n = 0;
  for (const b of blocks) {
    if (b.type === 'section') n += b.text.text.length;
    else if (b.type === 'context') n += b.elements.reduce((m, e) => m + e.text.length, 0);
    else if (b.type === 'actions') n += b.elements.reduce((m, e) => m + e.text.text.length, 0);
  }
  return n;
}

/**
 * Packs blocks into messages of <= 50 blocks and <= LIMITS.messageText characters (fallback
 * included). `tail` (Sources, model note, buttons) stays together on the last message when it fits
 * in one; a tail longer than a message is spread, its last blocks (the buttons) still last.
 */
export function packMessages(body: Block[], tail: Block[], fallbackText: string, continued: string, budget: number = LIMITS.messageText): SlackMessage[] {
  const first = fallback(fallbackText);
  const groups: Block[][] = [];
  let current: Block[] = [];
  let size = 0;
  const room = () => budget - (groups.length === 0 ? first.length : continued.length);
  const close = () => {
    if (current.length) groups.push(current);
    current = [];
    size = 0;
  };
  const add = (b: Block) => {
    const n = blocksTextLength([b]);
    if (current.length && (size + n > room() || current.length >= LIMITS.blocksPerMessage)) close();
    current.push(b);
    size += n;
  };
  for (const b of body) add(b);
  const tailSize = blocksTextLength(tail);
  if (tailSize <= budget - first.length && tail.length <= LIMITS.blocksPerMessage) {
    if (current.length && (size + tailSize > room() || current.length + tail.length > LIMITS.blocksPerMessage)) close();
    current.push(...tail);
    size += tailSize;
  } else for (const b of tail) add(b);
  close();
  if (groups.length === 0) return [{ text: first, blocks: [] }];
  return groups.map((blocks, i) => ({ text: i === 0 ? first : continued, blocks }));
}

/** Chunks blocks into messages within Slack's limits, each with a plain-text fallback. */
export function toMessages(blocks: Block[], fallbackText: string, continued: string): SlackMessage[] {
  return packMessages(blocks, [], fallbackText, continued);
}

/**
 * When Slack answers msg_blocks_too_long anyway (its count is undocumented), the same message as
 * smaller ones (half the text each), nothing dropped; undefined for any other error or when the
 * message is already too small for size to be the cause.
 */
export function resplitIfTooLong(err: unknown, msg: SlackMessage, continued = '…'): SlackMessage[] | undefined {
  if ((err as { data?: { error?: string } } | undefined)?.data?.error !== 'msg_blocks_too_long') return undefined;
  const size = blocksTextLength(msg.blocks);
  if (size < 1000) return undefined;
  const budget = Math.ceil(size / 2);
  const blocks = msg.blocks.flatMap((b): Block[] =>
    b.type === 'section' && b.text.text.length > budget / 2 ? splitText(b.text.text, Math.floor(budget / 2)).map((text) => ({ type: 'section', text: { type: 'mrkdwn', text } })) : [b],
  );
  const out = packMessages(blocks, [], '', continued, budget).map((m, i) => (i === 0 ? { ...m, text: msg.text } : m));
  return out.length > 1 ? out : undefined;
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
 * naming the model, and (when a record id is given) 👍/👎 buttons carrying that id; `lead`
 * blocks (labbot's own mrkdwn) go first.
 */
export function answerMessages(result: AnswerView | AskResult, opts: { recordId?: string; lead?: Block[] } = {}): SlackMessage[] {
  const lang = result.language;
  const mrkdwn = markdownToMrkdwn(result.answer);
  // `lead` (a shared answer's attribution) is packed with the answer, so it counts against the budget.
  const body: Block[] = [...(opts.lead ?? []), ...sections(mrkdwn)];
  const tail: Block[] = [];
  if (!result.refused && result.citations.length > 0) tail.push({ type: 'divider' }, ...sourcesBlocks(result.citations, lang));
  tail.push({ type: 'context', elements: [{ type: 'mrkdwn', text: escapeMrkdwn(modelNote(result.model, lang)) }] });
  if (opts.recordId && opts.recordId.length <= LIMITS.buttonValue) {
    const t = slackText(lang);
    tail.push({
      type: 'actions',
      block_id: 'labbot_feedback',
      elements: [
        { type: 'button', action_id: FEEDBACK_UP, text: { type: 'plain_text', text: `👍 ${t.helpful}`, emoji: true }, value: opts.recordId },
        { type: 'button', action_id: FEEDBACK_DOWN, text: { type: 'plain_text', text: `👎 ${t.notHelpful}`, emoji: true }, value: opts.recordId },
      ],
    });
  }
  // The fallback is built from the escaped mrkdwn: Slack parses `text` as mrkdwn too.
  return packMessages(body, tail, mrkdwn, slackText(lang).continued);
}

/** A short message (errors, notices, the "Searching…" placeholder); `mrkdwn` is already escaped. */
export function noticeMessage(mrkdwn: string): SlackMessage {
  return { text: fallback(mrkdwn), blocks: sections(mrkdwn).slice(0, LIMITS.blocksPerMessage) };
}
