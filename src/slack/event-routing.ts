// Which `message` events labbot answers, decided from the event alone (pure): direct messages,
// and replies in channel threads (message.channels / message.groups / message.mpim); and which
// `app_mention`s: a person's, or a bot's that `slack.allowBots` lists, never labbot's own. Whether a
// thread reply is for labbot is decided afterwards (etiquette.ts: the thread's follow-up window and
// how the reply reads); everything else is ignored. Edits and deletions of people's messages are
// routed apart (routeChange), for an edited question to be answered again and a deleted one to
// take its answer along.

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
  if (e.channel_type !== 'channel' && e.channel_type !== 'group' && e.channel_type !== 'mpim')
    return { kind: 'ignore', reason: `channel type ${e.channel_type}` };
  if (!THREAD_SUBTYPES.has(e.subtype)) return { kind: 'ignore', reason: `subtype ${e.subtype}` };
  if (!inThread) return { kind: 'ignore', reason: 'not a thread reply' };
  // A reply that mentions labbot is also delivered as app_mention, which answers it.
  if (botUserId && new RegExp(`<@${botUserId}(?:\\|[^>]*)?>`).test(e.text ?? ''))
    return { kind: 'ignore', reason: 'mention (app_mention answers it)' };
  return { kind: 'thread-reply', threadTs: e.thread_ts!, hasFiles };
}

/** Who wrote an app_mention: a person (`user`), or a bot (`bot_id`, and `user` when it posted with its own token). */
export interface MentionAuthor {
  user?: string;
  bot_id?: string;
}

export type MentionRoute = { kind: 'answer' } | { kind: 'ignore'; reason: string };

/**
 * Slack delivers a bot's @mention of labbot like a person's (Bolt's own-message filter only catches
 * events whose `user` is labbot's): answered, another bot could drive labbot, and two bots answering
 * each other would loop. A bot's mention is answered only when `allowBots` lists it, never
 * labbot's own (its `botId`); when labbot's own bot id is not known, no bot's is.
 */
export function routeMention(e: MentionAuthor, self: { botId?: string; botUserId?: string }, allowBots: readonly string[]): MentionRoute {
  if ((self.botUserId && e.user === self.botUserId) || (self.botId && e.bot_id === self.botId))
    return { kind: 'ignore', reason: 'own message' };
  if (e.bot_id) {
    if (!self.botId) return { kind: 'ignore', reason: 'from a bot, and labbot’s own bot id is not known' };
    return allowBots.includes(e.bot_id) ? { kind: 'answer' } : { kind: 'ignore', reason: 'from a bot not in slack.allowBots' };
  }
  if (!e.user) return { kind: 'ignore', reason: 'no author' };
  return { kind: 'answer' };
}

/** A message_changed / message_deleted event, the fields the decision reads. */
export interface MessageChangeFields {
  channel: string;
  channel_type?: string;
  subtype?: string;
  deleted_ts?: string;
  message?: { user?: string; bot_id?: string; subtype?: string; text?: string; ts?: string; thread_ts?: string };
  previous_message?: { user?: string; bot_id?: string; text?: string; ts?: string; thread_ts?: string };
}

export type MessageChange =
  | { kind: 'edited'; ts: string; threadTs: string | undefined; user: string; text: string; dm: boolean; channelType: string | undefined }
  | { kind: 'deleted'; ts: string }
  | { kind: 'ignore'; reason: string };

export function routeChange(e: MessageChangeFields, botUserId: string | undefined): MessageChange {
  if (e.subtype === 'message_deleted') {
    const ts = e.deleted_ts ?? e.previous_message?.ts;
    return ts ? { kind: 'deleted', ts } : { kind: 'ignore', reason: 'no deleted ts' };
  }
  if (e.subtype !== 'message_changed') return { kind: 'ignore', reason: `subtype ${e.subtype}` };
  const m = e.message;
  if (!m?.ts) return { kind: 'ignore', reason: 'no message' };
  // A thread's parent, once deleted, stays as a tombstone ("This message was deleted.").
  if (m.subtype === 'tombstone') return { kind: 'deleted', ts: m.ts };
  if (m.bot_id || !m.user || (botUserId && m.user === botUserId)) return { kind: 'ignore', reason: 'not from a person' };
  if (m.subtype === 'assistant_app_thread') return { kind: 'ignore', reason: 'assistant thread title' };
  // Replies, reactions and unfurls change a message too, with its text as it was.
  if ((m.text ?? '') === (e.previous_message?.text ?? '')) return { kind: 'ignore', reason: 'text unchanged' };
  const threadTs = m.thread_ts !== undefined && m.thread_ts !== m.ts ? m.thread_ts : undefined;
  return { kind: 'edited', ts: m.ts, threadTs, user: m.user, text: m.text ?? '', dm: e.channel_type === 'im', channelType: e.channel_type };
}
