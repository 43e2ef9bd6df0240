// The agent experience's methods as docs.slack.dev describes them: assistant.threads.setStatus
// needs channel_id and thread_ts and takes at most 10 loading messages (an empty status clears
// the line); setSuggestedPrompts takes 1 to 4 prompts, each with a title and a message, and an
// agent_view app's prompts with a thread_ts are silently dropped ("Including it in a call for an
// agent app will cause the call to silently fail"). Reactions are per message and name
// (already_reacted, no_reaction).
import { jsonArg, refuse, str, type Method } from '../args.ts';
import type { Conversation, Prompt } from '../conversation.ts';

const PROMPTS_MAX = 4;
const LOADING_MAX = 10;

export function assistantMethods(conversation: Conversation): Record<string, Method> {
  return {
    'assistant.threads.setStatus': (body) => {
      if (!str(body.channel_id) || !str(body.thread_ts) || typeof body.status !== 'string') return refuse('invalid_arguments');
      const loading = jsonArg(body.loading_messages);
      if (loading !== undefined && (!Array.isArray(loading) || loading.length === 0 || loading.length > LOADING_MAX || !loading.every(str)))
        return refuse('invalid_arguments');
      const key = `${String(body.channel_id)}:${String(body.thread_ts)}`;
      const entry = { status: body.status, loading: (loading as string[] | undefined) ?? [] };
      conversation.statusLog.push({ key, ...entry });
      if (body.status === '') conversation.statuses.delete(key);
      else conversation.statuses.set(key, entry);
      return { ok: true };
    },
    'assistant.threads.setSuggestedPrompts': (body) => {
      if (!str(body.channel_id)) return refuse('invalid_arguments');
      const list = jsonArg(body.prompts) as { title?: unknown; message?: unknown }[] | undefined;
      if (!Array.isArray(list) || list.length === 0 || list.length > PROMPTS_MAX) return refuse('invalid_arguments');
      if (list.some((p) => !str(p.title) || !str(p.message))) return refuse('invalid_arguments');
      if (body.title !== undefined && typeof body.title !== 'string') return refuse('invalid_arguments');
      const threadTs = str(body.thread_ts) ? String(body.thread_ts) : undefined;
      // An agent app's call with a thread_ts "silently fails": ok, but nothing is shown.
      if (conversation.appView === 'agent' && threadTs) return { ok: true };
      conversation.prompts.set(threadTs ? `${String(body.channel_id)}:${threadTs}` : String(body.channel_id), list as Prompt[]);
      return { ok: true };
    },
  };
}

export function reactionMethods(conversation: Conversation): Record<string, Method> {
  const react =
    (add: boolean): Method =>
    (body) => {
      if (!str(body.channel) || !str(body.timestamp) || !str(body.name)) return refuse('invalid_arguments');
      const key = `${String(body.channel)}:${String(body.timestamp)}`;
      const names = conversation.reactions.get(key) ?? new Set<string>();
      const name = String(body.name);
      if (add) {
        if (names.has(name)) return refuse('already_reacted');
        names.add(name);
        conversation.reactions.set(key, names);
      } else {
        if (!names.has(name)) return refuse('no_reaction');
        names.delete(name);
      }
      return { ok: true };
    };
  return { 'reactions.add': react(true), 'reactions.remove': react(false) };
}
