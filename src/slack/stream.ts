// Streaming a model's answer into Slack as it is written (chat.startStream / appendStream /
// stopStream through the Web API's ChatStreamer, which Bolt's sayStream wraps). The streamed text
// is a preview: when the model ends, the Sources and the buttons go under it, and if checking the
// citations changed the answer, the message is replaced by the checked one.
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
  /** Ends the stream with Sources and buttons; returns the message ts, and whether the text needs replacing. */
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
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/[\\[\]]/g, '\\$&');
}

/** The blocks of an answer after its text: the Sources, the model line and the buttons. */
export function closingBlocks(result: AskResult, recordId: string | undefined): Block[] {
  const blocks = answerMessages(result, { recordId }).flatMap((m) => m.blocks);
  const firstNonSection = blocks.findIndex((b) => b.type !== 'section');
  return firstNonSection < 0 ? [] : blocks.slice(firstNonSection);
}

export function createAnswerStream(
  client: WebClient,
  where: { channel: string; threadTs: string; user: string | undefined; team: string | undefined },
  onError: (err: Error) => void,
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
  let chain: Promise<unknown> = Promise.resolve();
  let broken = false;
  let overflow = false;
  return {
    push(delta) {
      if (broken) return;
      raw += delta;
      // Past the budget the preview stops growing; the whole answer is split into messages at the end.
      if (raw.length > STREAM_BUDGET) {
        overflow = true;
        return;
      }
      chain = chain
        .then(() => streamer.append({ markdown_text: escapeStreamText(delta) }))
        .catch((err: Error) => {
          broken = true;
          onError(err);
        });
    },
    started: () => raw.length > 0 && !broken,
    failed: () => broken,
    async finish(result, recordId) {
      await chain;
      if (broken) return { ts: undefined, replace: true };
      await streamer.stop({ blocks: closingBlocks(result, recordId) });
      // Backslash escapes are literal inside code spans: a streamed `[run]\*` showed its backslashes.
      const escapedInCode = raw.includes('`') && /[\\[\]]/.test(raw);
      return { ts: streamer.ts, replace: overflow || escapedInCode || result.answer.trim() !== raw.trim() };
    },
  };
}
