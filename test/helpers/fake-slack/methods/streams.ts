// chat.startStream, chat.appendStream and chat.stopStream: a stream starts in a thread (outside a
// DM it needs the recipient user and team), takes appends until stopped, and may end with blocks
// under the text. Its text is markdown_text and markdown_text chunks, each at most 12,000 characters.
import { jsonArg, refuse, str, type Body, type Method } from '../args.ts';
import { validateBlocks } from '../blocks.ts';
import type { ConversationStore } from '../conversation.ts';

const STREAM_TEXT_LIMIT = 12_000;

/** Text of markdown_text and markdown_text chunks; undefined when a chunk is malformed or over the limit. */
function streamText(body: Body): string | undefined {
  const chunks = jsonArg(body.chunks) as { type?: string; text?: unknown }[] | undefined;
  if (chunks !== undefined && !Array.isArray(chunks)) return undefined;
  let text = typeof body.markdown_text === 'string' ? body.markdown_text : '';
  if (text.length > STREAM_TEXT_LIMIT) return undefined;
  for (const c of chunks ?? []) {
    if (c.type !== 'markdown_text') continue;
    if (typeof c.text !== 'string' || c.text.length > STREAM_TEXT_LIMIT) return undefined;
    text += c.text;
  }
  return text;
}

export function streamMethods(o: { conversation: ConversationStore; nextTs: () => string }): Record<string, Method> {
  const { conversation, nextTs } = o;
  /** An append or the stop: the stream must exist in that channel and still be streaming. */
  const more = (method: 'chat.appendStream' | 'chat.stopStream', body: Body) => {
    const m = conversation.stream(String(body.ts));
    if (!str(body.channel) || !m || m.channel !== body.channel) return refuse('message_not_found');
    if (m.stream!.stopped) return refuse('message_not_in_streaming_state');
    const text = streamText(body);
    if (text === undefined || (method === 'chat.appendStream' && text === '')) return refuse('invalid_arguments');
    if (method === 'chat.stopStream') {
      const bad = validateBlocks(body.blocks);
      if (bad) return refuse(bad);
    }
    conversation.streamed(
      m,
      text,
      method === 'chat.stopStream' ? { blocks: body.blocks ? (jsonArg(body.blocks) as unknown[]) : undefined } : undefined,
    );
    return { ok: true, channel: body.channel, ts: body.ts };
  };
  return {
    'chat.startStream': (body) => {
      const text = streamText(body);
      if (!str(body.channel) || !str(body.thread_ts) || text === undefined) return refuse('invalid_arguments');
      if (!String(body.channel).startsWith('D') && (!str(body.recipient_user_id) || !str(body.recipient_team_id)))
        return refuse('invalid_arguments');
      const ts = nextTs();
      const blocks = jsonArg(body.blocks) as unknown[] | undefined;
      conversation.add({
        channel: String(body.channel),
        ts,
        threadTs: String(body.thread_ts),
        text,
        blocks,
        via: 'chat.startStream',
        stream: { text, stopped: false },
      });
      return { ok: true, channel: body.channel, ts };
    },
    'chat.appendStream': (body) => more('chat.appendStream', body),
    'chat.stopStream': (body) => more('chat.stopStream', body),
  };
}
