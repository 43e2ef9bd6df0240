// Which `message` events labbot answers, decided from the event alone (pure): direct messages,
// and replies in channel threads (message.channels / message.groups / message.mpim). Whether
// labbot has answered in that thread is asked afterwards (Redis); everything else is ignored.

/** The fields of a Slack message event that the decision reads. */
export interface MessageEventFields {
  channel: string;
  channel_type?: string;
  subtype?: string;
  user?: string;
  bot_id?: string;
  text?: string;
  ts: string;
  thread_ts?: string;
  files?: unknown[];
}

export type MessageRoute =
  | { kind: 'dm'; threadTs: string; inThread: boolean; hasFiles: boolean }
  | { kind: 'thread-reply'; threadTs: string; hasFiles: boolean }
  | { kind: 'ignore'; reason: string };

/** Subtypes that carry a person's new words; edits, joins, deletions and bot posts do not. */
const DM_SUBTYPES = new Set([undefined, 'file_share']);
const THREAD_SUBTYPES = new Set([undefined, 'file_share', 'thread_broadcast']);

export function routeMessage(e: MessageEventFields, botUserId: string | undefined): MessageRoute {
  if (e.bot_id || !e.user) return { kind: 'ignore', reason: 'not from a person' };
  if (botUserId && e.user === botUserId) return { kind: 'ignore', reason: 'own message' };
  const inThread = e.thread_ts !== undefined && e.thread_ts !== e.ts;
  const hasFiles = (e.files?.length ?? 0) > 0 || e.subtype === 'file_share';
  if (e.channel_type === 'im') {
    if (!DM_SUBTYPES.has(e.subtype)) return { kind: 'ignore', reason: `subtype ${e.subtype}` };
    // Answered in a thread under the user's message, so each question keeps its own conversation.
    return { kind: 'dm', threadTs: e.thread_ts ?? e.ts, inThread, hasFiles };
  }
  if (e.channel_type !== 'channel' && e.channel_type !== 'group' && e.channel_type !== 'mpim') return { kind: 'ignore', reason: `channel type ${e.channel_type}` };
  if (!THREAD_SUBTYPES.has(e.subtype)) return { kind: 'ignore', reason: `subtype ${e.subtype}` };
  if (!inThread) return { kind: 'ignore', reason: 'not a thread reply' };
  // A reply that mentions labbot is also delivered as app_mention, which answers it.
  if (botUserId && new RegExp(`<@${botUserId}(?:\\|[^>]*)?>`).test(e.text ?? '')) return { kind: 'ignore', reason: 'mention (app_mention answers it)' };
  return { kind: 'thread-reply', threadTs: e.thread_ts!, hasFiles };
}
