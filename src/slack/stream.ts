// Streaming a model's answer into Slack as it is written (chat.startStream / appendStream /
// stopStream through the Web API's ChatStreamer, which Bolt's sayStream() wraps): in DMs, and in
// channel threads with the asker as recipient (recipient_user_id / recipient_team_id, which Slack
// requires outside DMs). The streamed text is a preview of text not yet checked: it never carries a
// link or markup (links show their label, URLs their host as code), and when the model ends, the
// Sources and feedback go under it; if checking the citations changed the answer, or the preview
// had to differ from the model's text, the message is replaced by the checked answer.
import type { webApi } from '@slack/bolt';
import type { AskResult } from '../answer/answer.ts';
import { answerMessages, type Block } from './format.ts';

type WebClient = webApi.WebClient;

/** Characters streamed at most: one streamed message stays well inside Slack's 12,000-character text budget. */
const STREAM_BUDGET = 8000;

export interface AnswerStream {
  /** Feed for app.ask's onToken. */
  push(delta: string): void;
  /** True once the first text went to Slack (or is on its way). */
  started(): boolean;
  /** Ends the stream with Sources and feedback; returns the message ts, and whether the text needs replacing. */
  finish(result: AskResult, recordId: string | undefined): Promise<{ ts: string | undefined; replace: boolean }>;
  /** The stream failed: stop feeding it (the answer is delivered the ordinary way). */
  failed(): boolean;
}

/**
 * Text that came from a model never becomes Slack markup: `<`, `>` and `&` are escaped the way
 * Slack expects, so `<!channel>` or `<@U…>` written by the model cannot ping anyone; and `[`, `]`
 * (with `\` itself) are backslash-escaped, which Slack's markdown honours, so a streamed
 * `[the official lab portal](https://evil.example/login)` can never render as a disguised link
 * (the preview links nothing; the finished answer links only cited documents, src/answer/links.ts).
 */
export function escapeStreamText(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\\[\]]/g, '\\$&');
}

const MD_LINK = /\[([^\]\n]*)\]\(([^)\s]*)\)/g;
const URL_RE = /\bhttps?:\/\/[^\s<>()[\]]+/g;

function hostOf(url: string): string {
  try {
    return new URL(url).host || 'link';
  } catch {
    return 'link';
  }
}

/**
 * The preview of (a stable prefix of) model text: Markdown links show their label only and bare
 * URLs their host in a code span, so nothing in an unchecked preview is a link; then escaped.
 */
export function previewMarkdown(text: string): string {
  const unlinked = text.replace(MD_LINK, (_m, label: string) => label).replace(URL_RE, (u) => `\`${hostOf(u)}\``);
  return escapeStreamText(unlinked);
}

/**
 * How much of the text so far can be previewed without changing later: up to the last whitespace
 * (the last word may be a URL still being written) and before any `[…](…)` not closed by then.
 */
export function stablePrefixLength(raw: string): number {
  let cut = Math.max(raw.lastIndexOf(' '), raw.lastIndexOf('\n')) + 1;
  for (let i = raw.indexOf('['); i >= 0 && i < cut; i = raw.indexOf('[', i + 1)) {
    const close = raw.indexOf(']', i);
    const end = close < 0 ? -1 : raw[close + 1] === '(' ? raw.indexOf(')', close) : close;
    if (end < 0 || end >= cut) {
      cut = i;
      break;
    }
  }
  return cut;
}

/** The blocks of an answer after its text: the Sources, the model line and the feedback. */
function closingBlocks(result: AskResult, recordId: string | undefined): Block[] {
  const blocks = answerMessages(result, { recordId, nativeFeedback: true }).flatMap((m) => m.blocks);
  const firstNonSection = blocks.findIndex((b) => b.type !== 'section');
  return firstNonSection < 0 ? [] : blocks.slice(firstNonSection);
}

export function createAnswerStream(
  client: WebClient,
  where: { channel: string; threadTs: string; user: string | undefined; team: string | undefined },
  hooks: { onError: (err: Error) => void; onStarted?: (ts: string) => void },
): AnswerStream {
  const streamer = client.chatStream({
    channel: where.channel,
    thread_ts: where.threadTs,
    ...(where.user ? { recipient_user_id: where.user } : {}),
    ...(where.team ? { recipient_team_id: where.team } : {}),
    // Appends go out every ~200 characters: smooth to read, far below appendStream's rate limit.
    buffer_size: 200,
  });
  let raw = '';
  /** Characters of `raw` already previewed (a stable prefix). */
  let shown = 0;
  let chain: Promise<unknown> = Promise.resolve();
  let broken = false;
  let overflow = false;
  let told = false;
  const tellStarted = () => {
    if (!told && streamer.ts) {
      told = true;
      hooks.onStarted?.(streamer.ts);
    }
  };
  return {
    push(delta) {
      if (broken) return;
      raw += delta;
      // Past the budget the preview stops growing; the whole answer is split into messages at the end.
      if (raw.length > STREAM_BUDGET) {
        overflow = true;
        return;
      }
      const stable = stablePrefixLength(raw);
      if (stable <= shown) return;
      const piece = previewMarkdown(raw.slice(shown, stable));
      shown = stable;
      chain = chain
        .then(() => streamer.append({ markdown_text: piece }))
        .then(tellStarted)
        .catch((err: Error) => {
          broken = true;
          hooks.onError(err);
        });
    },
    started: () => raw.length > 0 && !broken,
    failed: () => broken,
    async finish(result, recordId) {
      await chain;
      if (broken) return { ts: streamer.ts, replace: true };
      const rest = overflow ? '' : previewMarkdown(raw.slice(shown));
      await streamer.stop({ ...(rest ? { markdown_text: rest } : {}), blocks: closingBlocks(result, recordId) });
      tellStarted();
      const previewDiffers = previewMarkdown(raw) !== escapeStreamText(raw);
      // Backslash escapes are literal inside code spans: a streamed `[run]\\*` showed its backslashes.
      const escapedInCode = raw.includes('`') && /[\\[\]]/.test(raw);
      return { ts: streamer.ts, replace: overflow || previewDiffers || escapedInCode || result.answer.trim() !== raw.trim() };
    },
  };
}
