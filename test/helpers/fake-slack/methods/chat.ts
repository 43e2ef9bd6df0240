// chat.postMessage, chat.update, chat.postEphemeral and chat.delete, on the conversation store.
import { refuse, str, type Body, type Method } from '../args.ts';
import { validateMessage } from '../blocks.ts';
import { dmChannel, threadOf, type ConversationStore } from '../conversation.ts';
import type { PostPacing } from '../rate-limits.ts';

export function chatMethods(o: { conversation: ConversationStore; pacing: PostPacing; nextTs: () => string }): Record<string, Method> {
  const { conversation, pacing, nextTs } = o;
  const shown = (body: Body) => ({ text: body.text as string | undefined, blocks: body.blocks as unknown[] | undefined });
  const answer = (channel: string, ts: string, body: Body) => ({
    ok: true,
    channel,
    ts,
    message: { text: body.text, ts, bot_id: 'BBOT', user: 'UBOT' },
  });
  return {
    'chat.postMessage': (body) => {
      const bad = validateMessage(body) ?? (!body.text && !body.blocks ? 'no_text' : undefined);
      if (bad) return refuse(bad);
      // A user id as channel posts in the app's DM with that user; Slack answers with the DM's id.
      const channel = dmChannel(String(body.channel ?? ''));
      const ts = nextTs();
      pacing.posted(channel);
      conversation.add({ channel, ts, threadTs: threadOf(body), ...shown(body), via: 'chat.postMessage' });
      return answer(channel, ts, body);
    },
    'chat.update': (body) => {
      const bad = validateMessage(body) ?? (!body.text && !body.blocks ? 'no_text' : undefined) ?? conversation.change('chat.update', body);
      return bad ? refuse(bad) : answer(String(body.channel), String(body.ts), body);
    },
    'chat.postEphemeral': (body) => {
      const bad = validateMessage(body);
      if (bad) return refuse(bad);
      const ts = nextTs();
      conversation.add({
        channel: String(body.channel ?? ''),
        ts,
        threadTs: threadOf(body),
        ...shown(body),
        ephemeralTo: String(body.user),
        via: 'chat.postEphemeral',
      });
      return { ok: true, message_ts: ts };
    },
    'chat.delete': (body) => {
      if (!str(body.channel) || !str(body.ts)) return refuse('invalid_arguments');
      const missing = conversation.change('chat.delete', body);
      return missing ? refuse(missing) : { ok: true, channel: body.channel, ts: body.ts };
    },
  };
}
