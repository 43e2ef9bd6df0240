// The conversation as Slack holds it, in one store: every message by channel and thread, for
// everyone or ephemeral, with its edits, its deletion and a stream's progress; the status lines,
// reactions and suggested prompts Slack shows; and what a response_url acts on. Slack's rules:
//  - chat.update and chat.delete reach only a message for everyone, in the conversation their
//    `channel` names by id: message_not_found otherwise, as Slack answers for a message the method
//    cannot see (unknown, deleted, ephemeral), and channel_not_found for a user id (only
//    chat.postMessage resolves one, to the app's DM with that user).
//  - ephemeral messages can be replaced or deleted only through a response_url.
//  - a slash command's URL acts on nothing. Its acknowledgement and posts cannot be replaced or
//    deleted: replace_original is ignored and the message is posted as a new one
//    (slackapi/bolt-js#2287, slackapi/bolt-python#1268), and delete_original has nothing to
//    delete (message_not_found).
//  - an interaction's URL acts on the message the button was on (ephemeral ones included); without
//    replace_original: false a response replaces it (the documented default for interactive
//    messages).
//  - a reply (a post or a stream) in a thread clears that thread's status line.
import type { Body } from './args.ts';

type Via = 'chat.postMessage' | 'chat.postEphemeral' | 'response_url' | 'ack' | 'chat.startStream';

/** A message as Slack holds it. */
export interface FakeMessage {
  channel: string;
  ts: string;
  threadTs?: string;
  /** The fallback text; for a stream, the markdown streamed so far (until a chat.update replaces it). */
  text?: string;
  blocks?: unknown[];
  /** Only this user sees it (response_url ephemeral, chat.postEphemeral, a command's acknowledgement). */
  ephemeralTo?: string;
  via: Via;
  deleted: boolean;
  /** Every version, oldest first: the post, then each chat.update or replace_original (stream appends are not versions). */
  versions: { text?: string; blocks?: unknown[]; at: number }[];
  /** A chat.startStream message: all the markdown streamed into it, and whether chat.stopStream ended it. */
  stream?: { text: string; stopped: boolean };
}

interface StatusLine {
  status: string;
  loading: string[];
}

export interface Prompt {
  title: string;
  message: string;
}

/** What people see in the workspace: `fake.conversation`. */
export interface Conversation {
  /** 'agent' (features.agent_view, the default for new apps) or 'assistant' (the legacy pane). */
  appView: 'agent' | 'assistant';
  /** Every message, in the order posted, deleted ones included. */
  messages: FakeMessage[];
  /** The message with this ts (deleted or not). */
  message(ts: string): FakeMessage | undefined;
  /** Messages everyone in the channel sees now (not ephemeral, not deleted), oldest first; `thread` picks one thread (its parent and replies). */
  visible(channel: string, opts?: { thread?: string }): FakeMessage[];
  /** Ephemeral messages `user` still sees in `channel` (not deleted or replaced away). */
  ephemeralFor(user: string, channel: string): FakeMessage[];
  /** Status lines showing, by "<channel>:<thread ts>". */
  statuses: Map<string, StatusLine>;
  /** Every status line ever set (for tests of what was shown while working). */
  statusLog: ({ key: string } & StatusLine)[];
  /** Reactions on messages, "<channel>:<ts>" -> names. */
  reactions: Map<string, Set<string>>;
  /** Prompts Slack shows, by channel (agent view) or "<channel>:<thread ts>" (legacy pane). */
  prompts: Map<string, Prompt[]>;
}

/** Who a response_url was issued to: a slash command (who ran it where) or a click on a message. */
type UrlContext =
  | { kind: 'command'; channel: string; user: string }
  | { kind: 'action'; channel: string; user: string; original: FakeMessage };

type NewMessage = Omit<FakeMessage, 'deleted' | 'versions'>;

export type ConversationStore = ReturnType<typeof createConversation>;

/** The conversation a chat.postMessage `channel` names: a user id (U…/W…) is the app's DM with them (D…). */
export function dmChannel(channel: string): string {
  return /^[UW][A-Z0-9]+$/.test(channel) ? `D${channel.slice(1)}` : channel;
}

/** A message payload's thread_ts, when it names a thread. */
export const threadOf = (body: Body) => (typeof body.thread_ts === 'string' && body.thread_ts ? body.thread_ts : undefined);

export function createConversation(clock: { now: () => number; nextTs: () => string }) {
  const messages: FakeMessage[] = [];
  const urls = new Map<string, UrlContext>();
  const statuses = new Map<string, StatusLine>();
  const view: Conversation = {
    appView: 'agent',
    messages,
    message: (ts) => messages.find((m) => m.ts === ts),
    visible: (channel, opts = {}) =>
      messages.filter(
        (m) =>
          m.channel === channel &&
          !m.deleted &&
          !m.ephemeralTo &&
          (opts.thread === undefined || m.threadTs === opts.thread || m.ts === opts.thread),
      ),
    ephemeralFor: (user, channel) => messages.filter((m) => m.channel === channel && !m.deleted && m.ephemeralTo === user),
    statuses,
    statusLog: [],
    reactions: new Map(),
    prompts: new Map(),
  };
  const add = (m: NewMessage): FakeMessage => {
    const msg: FakeMessage = { ...m, deleted: false, versions: [{ text: m.text, blocks: m.blocks, at: clock.now() }] };
    messages.push(msg);
    if (msg.threadTs && (msg.via === 'chat.postMessage' || msg.via === 'chat.startStream'))
      statuses.delete(`${msg.channel}:${msg.threadTs}`);
    return msg;
  };
  const edit = (m: FakeMessage, body: Body) => {
    m.text = typeof body.text === 'string' ? body.text : undefined;
    m.blocks = Array.isArray(body.blocks) ? body.blocks : undefined;
    m.versions.push({ text: m.text, blocks: m.blocks, at: clock.now() });
  };
  const fromBody = (body: Body) => ({ text: body.text as string | undefined, blocks: body.blocks as unknown[] | undefined });
  return {
    view,
    add,
    /** chat.update / chat.delete: applies it, or returns Slack's error for a message it cannot reach. */
    change(method: 'chat.update' | 'chat.delete', body: Body): string | undefined {
      const channel = String(body.channel ?? '');
      if (dmChannel(channel) !== channel) return 'channel_not_found';
      const m = messages.find((x) => x.channel === body.channel && x.ts === body.ts && !x.deleted);
      if (!m || m.ephemeralTo) return 'message_not_found';
      if (method === 'chat.delete') m.deleted = true;
      else edit(m, body);
      return undefined;
    },
    /** The stream with this ts, wherever it is (deleted ones too: a stream keeps its state). */
    stream: (ts: string) => messages.find((m) => m.stream && m.ts === ts),
    /** More markdown into a stream, and at its stop the blocks under the text (none when not given). */
    streamed(m: FakeMessage, text: string, stop?: { blocks: unknown[] | undefined }) {
      const s = m.stream!;
      s.text += text;
      if (stop) s.stopped = true;
      if (m.deleted) return;
      m.text = s.text;
      if (stop) m.blocks = stop.blocks;
    },
    issueUrl(id: string, ctx: UrlContext) {
      urls.set(id, ctx);
    },
    /** A slash command's acknowledgement with a message: shown to who ran it (or to everyone, in_channel). */
    ack(id: string, body: Body) {
      const ctx = urls.get(id);
      if (ctx?.kind !== 'command' || (!body.text && !body.blocks)) return;
      const inChannel = body.response_type === 'in_channel';
      add({ channel: ctx.channel, ts: clock.nextTs(), ...fromBody(body), ephemeralTo: inChannel ? undefined : ctx.user, via: 'ack' });
    },
    /** A response_url post: applies it and returns Slack's error, if any. URLs issued without a context only record. */
    respond(id: string, body: Body): string | undefined {
      const ctx = urls.get(id);
      if (!ctx) return undefined;
      const original = ctx.kind === 'action' ? ctx.original : undefined;
      const replace = ctx.kind === 'action' && body.replace_original !== false;
      if (body.delete_original === true) {
        if (!original || original.deleted) return 'message_not_found';
        original.deleted = true;
        return undefined;
      }
      if (replace) {
        if (!original || original.deleted) return 'message_not_found';
        edit(original, body);
        return undefined;
      }
      if (!body.text && !body.blocks) return 'no_text';
      const inChannel = body.response_type === 'in_channel';
      add({
        channel: ctx.channel,
        ts: clock.nextTs(),
        threadTs: threadOf(body),
        ...fromBody(body),
        ephemeralTo: inChannel ? undefined : ctx.user,
        via: 'response_url',
      });
      return undefined;
    },
  };
}
