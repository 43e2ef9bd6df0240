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
import { messages, noticeFlag, type Language } from '../answer/messages.ts';
import { citedLinks, decideLink, hostOf, NO_LINKS, webUrl, type LinkPolicy } from '../answer/links.ts';
import { visibleText } from '../answer/visible-text.ts';
import { slackStrings } from './strings.ts';

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
  /** true: Slack links no bare URL or channel name in the text (document-derived text). */
  verbatim?: boolean;
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
/** Slack's own 👍/👎 pair: one element, two buttons, one action id; the clicked button's value comes back. */
export interface FeedbackButtonsElement {
  type: 'feedback_buttons';
  action_id: string;
  positive_button: { text: PlainText; value: string; accessibility_label?: string };
  negative_button: { text: PlainText; value: string; accessibility_label?: string };
}
/** Rich text is not parsed as mrkdwn: its text elements are shown exactly as given. */
export interface RichTextText {
  type: 'text';
  text: string;
  style?: { bold?: boolean; italic?: boolean; strike?: boolean; code?: boolean };
}
export interface RichTextBlock {
  type: 'rich_text';
  elements: { type: 'rich_text_quote' | 'rich_text_section'; elements: RichTextText[] }[];
}
/** The subset of Block Kit this bot sends; structurally a subset of @slack/types KnownBlock. */
export type Block =
  | SectionBlock
  | RichTextBlock
  | { type: 'divider' }
  | { type: 'context'; elements: MrkdwnText[] }
  | { type: 'actions'; block_id?: string; elements: ButtonElement[] }
  | { type: 'context_actions'; elements: FeedbackButtonsElement[] };

export interface SlackMessage {
  text: string;
  blocks: Block[];
}

export const FEEDBACK_UP = 'labbot_feedback_up';
export const FEEDBACK_DOWN = 'labbot_feedback_down';
/** Action id of the native feedback buttons; the values are `up:<record id>` and `down:<record id>`. */
export const FEEDBACK_NATIVE = 'labbot_feedback';

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
  return webUrl(raw)?.href.replace(/[<>| ]/g, (c) => encodeURIComponent(c));
}

const unescapeEntities = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/**
 * A Markdown link in mrkdwn, by the one link rule (src/answer/links.ts): <url|text> only for a URL
 * of a cited document, with its host after it (a document may claim any URL as its own, so the
 * reader sees where "the official lab portal" goes); any other URL is its text and host, no link.
 */
function link(url: string, escapedText: string, linkLabel: string, policy: LinkPolicy): string {
  const d = decideLink(url, unescapeEntities(escapedText), policy);
  const safe = d.kind === 'link' ? safeUrl(d.url) : undefined;
  const host = hostOf(url);
  const shown =
    host &&
    unescapeEntities(escapedText)
      .trim()
      .replace(/^https?:\/\//, '')
      .replace(/\/.*$/, '') !== host
      ? ` (${escapeMrkdwn(host)})`
      : '';
  if (safe) return `<${safe}|${linkLabel.replace(/\|/g, '¦')}>${shown}`;
  return d.kind === 'text' && d.host ? `${escapedText} (${escapeMrkdwn(d.host)})` : escapedText;
}

// Placeholders that cannot occur in real text (visibleText removes controls from what goes in), so
// later rules do not re-match earlier output.
const BOLD = '\u0001';
const HOLD = '\u0002';
const HELD = new RegExp(`${HOLD}(\\d+)${HOLD}`, 'g');

/** Inline Markdown -> mrkdwn for one line outside code blocks. */
function inline(line: string, policy: LinkPolicy): string {
  // Each held piece has its mrkdwn and the plain text it stands for inside a link's text, where
  // Slack shows no code formatting: [`ab32389`](url) is linked as "ab32389".
  const held: { out: string; plain: string }[] = [];
  const hold = (out: string, plain = out) => `${HOLD}${held.push({ out, plain }) - 1}${HOLD}`;
  const restore = (t: string, as: 'out' | 'plain'): string => t.replace(HELD, (_m, i: string) => restore(held[Number(i)][as], as));
  // Slack parses <…> and &…; inside backticks too, so code is escaped like everything else.
  let s = visibleText(line).replace(/`[^`\n]+`/g, (m) => hold(escapeMrkdwn(m), escapeMrkdwn(m.slice(1, -1))));
  s = escapeMrkdwn(s);
  // Links first: their text may itself contain emphasis, and their URL must not be touched by it.
  s = s.replace(/!?\[([^\]\n]+)\]\(((?:[^\s()]|\([^\s()]*\))+)(?:\s+"[^"]*")?\)/g, (_m, t: string, u: string) =>
    hold(link(unescapeEntities(u), t, restore(t, 'plain'), policy)),
  );
  // Markdown autolinks <https://…>; a Slack-style <url|label> in the text stays escaped text.
  s = s.replace(/&lt;(https?:\/\/[^\s|]+?)&gt;/g, (m, u: string) =>
    safeUrl(unescapeEntities(u)) ? hold(link(unescapeEntities(u), u, u, policy)) : m,
  );
  s = s.replace(/(\*\*|__)(?=\S)([^\n]*?\S)\1/g, (_m, _d: string, t: string) => `${BOLD}${t}${BOLD}`);
  s = s.replace(/(^|[^\w*])\*(?=\S)([^*\n]*?\S)\*(?!\w)/g, '$1_$2_');
  s = s.replace(/~~(?=\S)([^\n]*?\S)~~/g, '~$1~');
  s = s.split(BOLD).join('*');
  return restore(s, 'out');
}

/**
 * Markdown (as the answerer writes it) -> Slack mrkdwn: **bold** -> *bold*, *em* -> _em_,
 * [t](u) -> <u|t> when `policy` allows u (a cited document), headings -> bold lines, "-"/"*"
 * bullets -> "•", numbered lists and code kept.
 */
export function markdownToMrkdwn(markdown: string, policy: LinkPolicy = NO_LINKS): string {
  const out: string[] = [];
  let inFence = false;
  for (const raw of markdown.replace(/\r\n?/g, '\n').split('\n')) {
    if (/^\s*```/.test(raw)) {
      inFence = !inFence;
      out.push(raw.trim().startsWith('```') ? '```' : raw);
      continue;
    }
    if (inFence) {
      out.push(escapeMrkdwn(visibleText(raw)));
      continue;
    }
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(raw);
    if (heading) {
      const text = inline(heading[1], policy).replace(/\*/g, '');
      out.push(text ? `*${text}*` : '');
      continue;
    }
    const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(raw);
    if (bullet) {
      const depth = Math.floor(bullet[1].replace(/\t/g, '    ').length / 2);
      out.push(`${'    '.repeat(depth)}• ${inline(bullet[2], policy)}`);
      continue;
    }
    const quote = /^\s*>\s?(.*)$/.exec(raw);
    if (quote) {
      out.push(`> ${inline(quote[1], policy)}`);
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(raw)) {
      out.push('');
      continue;
    }
    out.push(inline(raw, policy));
  }
  return out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
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

/** A quote's text as shown: one line, cut at a word past QUOTE_MAX, every character kept as it is. */
export function quoteText(quote: string): string {
  let t = visibleText(quote).replace(/\s+/g, ' ').trim();
  if (t.length > QUOTE_MAX) {
    const cut = t.lastIndexOf(' ', QUOTE_MAX - 1);
    t = `${t.slice(0, cut > QUOTE_MAX / 2 ? cut : QUOTE_MAX - 1)}…`;
  }
  return t;
}

/**
 * Document text as quotes: a rich_text block of rich_text_quote elements. Slack does not parse
 * rich text as mrkdwn, so a passage's "*", "_", "~", "`", "<!channel>" or "&" shows as written and
 * is copied as written (no escaping, no zero-width spaces between the characters of a primer name).
 */
export function quoteBlock(quotes: readonly string[]): RichTextBlock | undefined {
  const elements = quotes
    .map(quoteText)
    .filter((t) => t !== '')
    .map((text) => ({ type: 'rich_text_quote' as const, elements: [{ type: 'text' as const, text }] }));
  return elements.length ? { type: 'rich_text', elements } : undefined;
}

/** Shown after a source: a link into labbot's view of the whole document (protocols without a URL). */
export interface ShownCitation extends Citation {
  wholeDocument?: string;
}

const WHOLE = { en: 'open the whole document', es: 'abrir el documento completo' } as const;

/**
 * One Sources entry: "[S1] *<url|Title>* (host) — Okafor, Lee, 2023, Methods", linked to the exact
 * place when known (PDF page, wiki heading, a step in labbot's document view), with the link's host
 * in view. A document's url comes from front matter, BibTeX or HTML, so it is linked only when
 * safeUrl accepts it; anything else is shown as inert code text (Slack does not auto-link inside
 * backticks). Its quotes go under it as rich text (quoteBlock).
 */
export function sourceLine(c: ShownCitation, lang: Language = 'en'): string {
  const title = visibleText(c.title).trim() || c.doc_id;
  const href = c.link ?? c.url;
  const url = href ? safeUrl(href) : undefined;
  const host = url ? hostOf(url) : undefined;
  const titlePart = url ? `*<${url}|${linkText(title)}>*${host ? ` (${escapeMrkdwn(host)})` : ''}` : `*${escapeMrkdwn(title)}*`;
  const details = [authorList(c.authors), c.year !== null ? String(c.year) : 'n.d.', c.section.replace(/\s+/g, ' ').trim()]
    .filter((p) => p !== '')
    .map((p) => escapeMrkdwn(visibleText(p)))
    .join(', ');
  const refs = c.refs.length ? `[${escapeMrkdwn(c.refs.join(', '))}] ` : '';
  const shown =
    c.url && !url
      ? ` \`${escapeMrkdwn(
          visibleText(c.url)
            .replace(/[`\s]+/g, ' ')
            .trim()
            .slice(0, 200),
        )}\``
      : '';
  const whole = c.wholeDocument && safeUrl(c.wholeDocument) ? ` · <${safeUrl(c.wholeDocument)}|${WHOLE[lang]}>` : '';
  // A retracted paper (or one with an expression of concern) is flagged on its own line.
  const flag = c.notice ? `\n*${escapeMrkdwn(noticeFlag(lang, c.notice))}*` : '';
  return `${refs}${titlePart} — ${details}${shown}${whole}${flag}`;
}

/**
 * The Sources list: a heading and one line per citation in verbatim sections (consecutive lines
 * share a section), each citation's quotes right under its line; never one source split across
 * two sections.
 */
export function sourcesBlocks(citations: ShownCitation[], lang: Language): Block[] {
  const blocks: Block[] = [];
  let current = `*${messages(lang).sources}*`;
  const flush = () => {
    if (current) blocks.push(...sections(current, { verbatim: true }));
    current = '';
  };
  for (const c of citations) {
    const line = sourceLine(c, lang);
    const next = current ? `${current}\n${line}` : line;
    if (next.length > CHUNK_BUDGET && current) {
      flush();
      current = line;
    } else current = next;
    const quotes = quoteBlock(c.quotes ?? []);
    if (quotes) {
      flush();
      blocks.push(quotes);
    }
  }
  flush();
  return blocks;
}

/** "Answered by gpt-4o-mini" or the extractive note, in the answer's language. */
export function modelNote(model: string, language: Language): string {
  if (model === 'none') return slackStrings(language).noModelNeeded;
  if (model.startsWith('extractive')) {
    const note = messages(language).extractiveNote;
    return model.includes('unavailable') ? `${note} ${slackStrings(language).modelUnavailable}` : note;
  }
  return `${slackStrings(language).answeredBy} ${model}`;
}

function sections(mrkdwn: string, opts: { verbatim?: boolean } = {}): Block[] {
  return splitText(mrkdwn).map((text) => ({
    type: 'section',
    text: { type: 'mrkdwn', text, ...(opts.verbatim ? { verbatim: true } : {}) },
  }));
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
    else if (b.type === 'rich_text') n += b.elements.reduce((m, e) => m + e.elements.reduce((k, t) => k + t.text.length, 0), 0);
    else if (b.type === 'context') n += b.elements.reduce((m, e) => m + e.text.length, 0);
    else if (b.type === 'actions') n += b.elements.reduce((m, e) => m + e.text.text.length, 0);
    else if (b.type === 'context_actions')
      n += b.elements.reduce((m, e) => m + e.positive_button.text.text.length + e.negative_button.text.text.length, 0);
  }
  return n;
}

/**
 * Packs blocks into messages of <= 50 blocks and <= LIMITS.messageText characters (fallback
 * included). `tail` (Sources, model note, buttons) stays together on the last message when it fits
 * in one; a tail longer than a message is spread, its last blocks (the buttons) still last.
 */
export function packMessages(
  body: Block[],
  tail: Block[],
  fallbackText: string,
  continued: string,
  budget: number = LIMITS.messageText,
): SlackMessage[] {
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
    b.type === 'section' && b.text.text.length > budget / 2
      ? splitText(b.text.text, Math.floor(budget / 2)).map((text) => ({ type: 'section', text: { ...b.text, text } }))
      : [b],
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

/** The 👍/👎 under an answer, carrying its record id: Slack's native feedback buttons, or classic buttons. */
export function feedbackBlock(recordId: string, lang: Language, native: boolean): Block {
  const t = slackStrings(lang);
  if (native) {
    return {
      type: 'context_actions',
      elements: [
        {
          type: 'feedback_buttons',
          action_id: FEEDBACK_NATIVE,
          positive_button: { text: { type: 'plain_text', text: '👍' }, value: `up:${recordId}`, accessibility_label: t.helpful },
          negative_button: { text: { type: 'plain_text', text: '👎' }, value: `down:${recordId}`, accessibility_label: t.notHelpful },
        },
      ],
    };
  }
  return {
    type: 'actions',
    block_id: 'labbot_feedback',
    elements: [
      { type: 'button', action_id: FEEDBACK_UP, text: { type: 'plain_text', text: `👍 ${t.helpful}`, emoji: true }, value: recordId },
      { type: 'button', action_id: FEEDBACK_DOWN, text: { type: 'plain_text', text: `👎 ${t.notHelpful}`, emoji: true }, value: recordId },
    ],
  };
}

/**
 * The answer as one or more Slack messages: answer sections, a Sources list, a context line
 * naming the model, and (when a record id is given) 👍/👎 carrying that id: Slack's native
 * feedback buttons with `nativeFeedback` (answers posted in conversations), else classic buttons;
 * `lead` blocks (labbot's own mrkdwn) go first.
 */
export function answerMessages(
  result: AnswerView | AskResult,
  opts: { recordId?: string; nativeFeedback?: boolean; lead?: Block[] } = {},
): SlackMessage[] {
  const lang = result.language;
  // Links in the answer text only to the documents it cites; the text came from a model or a document.
  const mrkdwn = markdownToMrkdwn(result.answer, result.refused ? NO_LINKS : citedLinks(result.citations));
  // `lead` (a shared answer's attribution) is packed with the answer, so it counts against the budget.
  const body: Block[] = [...(opts.lead ?? []), ...sections(mrkdwn, { verbatim: true })];
  const tail: Block[] = [];
  if (!result.refused && result.citations.length > 0) tail.push({ type: 'divider' }, ...sourcesBlocks(result.citations, lang));
  tail.push({ type: 'context', elements: [{ type: 'mrkdwn', text: escapeMrkdwn(modelNote(result.model, lang)) }] });
  if (opts.recordId && opts.recordId.length <= LIMITS.buttonValue - 5)
    tail.push(feedbackBlock(opts.recordId, lang, opts.nativeFeedback === true));
  // The fallback is built from the escaped mrkdwn: Slack parses `text` as mrkdwn too.
  return packMessages(body, tail, mrkdwn, slackStrings(lang).continued);
}

/**
 * A message's blocks as one mrkdwn text, for the plain-text fallback when Slack refuses the blocks:
 * sections and context as they are, quotes as "> " lines (escaped, since `text` is mrkdwn), buttons
 * left out (they only work as blocks).
 */
export function blocksAsMrkdwn(blocks: Block[]): string {
  const parts: string[] = [];
  for (const b of blocks) {
    if (b.type === 'section') parts.push(b.text.text);
    else if (b.type === 'context') parts.push(b.elements.map((e) => e.text).join(' '));
    else if (b.type === 'rich_text')
      parts.push(
        b.elements
          .map((e) => `${e.type === 'rich_text_quote' ? '> ' : ''}${escapeMrkdwn(e.elements.map((t) => t.text).join(''))}`)
          .join('\n'),
      );
  }
  return parts.filter((p) => p.trim() !== '').join('\n\n');
}

/** A short message (errors, notices, the "Searching…" placeholder); `mrkdwn` is already escaped. */
export function noticeMessage(mrkdwn: string): SlackMessage {
  return { text: fallback(mrkdwn), blocks: sections(mrkdwn).slice(0, LIMITS.blocksPerMessage) };
}
