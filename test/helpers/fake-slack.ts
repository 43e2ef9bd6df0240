// A small fake Slack on 127.0.0.1 speaking the real wire protocol: the Web API methods labbot
// uses (form-encoded or JSON bodies), response_url endpoints, and a minimal WebSocket server for
// Socket Mode (apps.connections.open points at it). It records every call and is as strict as
// Slack on what labbot could otherwise only learn in production: Block Kit limits, the cumulative
// text budget of one message (msg_blocks_too_long), the `text` length (msg_too_long),
// response_url's 5 posts / 30 minutes, chat.postMessage's 1 message per second per channel (429
// with Retry-After), the arguments each method needs, and any mention token (<!here>, <@U…>, …),
// masked link or invisible character in what labbot posts. It keeps the conversation as Slack
// would show it, in one store (fake.conversation, fake-slack/conversation.ts).
//
// The parts, under fake-slack/: server.ts (HTTP, recording, failures, holds), socket-mode.ts,
// conversation.ts, rate-limits.ts, blocks.ts (Block Kit), outgoing.ts (mentions, links, invisible
// characters), and methods/ by family.
import { randomUUID } from 'node:crypto';
import type { Body } from './fake-slack/args.ts';
import { createConversation, type Conversation, type FakeMessage } from './fake-slack/conversation.ts';
import { assistantMethods, reactionMethods } from './fake-slack/methods/assistant.ts';
import { chatMethods } from './fake-slack/methods/chat.ts';
import { streamMethods } from './fake-slack/methods/streams.ts';
import { viewMethods } from './fake-slack/methods/views.ts';
import { workspaceMethods, type ConversationInfo, type FakeUser, type HistoryMessage } from './fake-slack/methods/workspace.ts';
import { createOutgoingChecks, type StrayInvisible, type StrayLink, type StrayMention } from './fake-slack/outgoing.ts';
import { postPacing, responseUrlGate } from './fake-slack/rate-limits.ts';
import { startServer, type Failure, type Rejection, type ResponseUrlCall, type SlackCall } from './fake-slack/server.ts';
import type { EnvelopeType } from './fake-slack/socket-mode.ts';

export { blocksTextLength, validateBlocks, validateMessage } from './fake-slack/blocks.ts';
export { findMentions } from './fake-slack/outgoing.ts';
export type {
  Conversation,
  ConversationInfo,
  Failure,
  FakeMessage,
  FakeUser,
  ResponseUrlCall,
  SlackCall,
  StrayInvisible,
  StrayLink,
  StrayMention,
};

export interface FakeSlack {
  /** Base URL for SLACK_API_URL, ending in /api/. */
  apiUrl: string;
  calls: SlackCall[];
  responses: ResponseUrlCall[];
  /** Messages returned by conversations.replies, keyed "<channel>:<thread ts>" (the history a test seeds). */
  threads: Map<string, HistoryMessage[]>;
  /** Failures to return for the next calls of a method, in order. */
  failNext(method: string, failure: Failure): void;
  responseUrl(id?: string): string;
  callsOf(method: string): SlackCall[];
  /** Resolves when `predicate` holds (checked on every call), or rejects after `timeoutMs`. */
  waitFor<T>(predicate: () => T | undefined | false, timeoutMs?: number): Promise<T>;
  /** Socket Mode: WebSocket frames received from the bot (parsed JSON). */
  wsReceived: Record<string, unknown>[];
  /** Socket Mode: sends an envelope to the connected bot; returns its envelope_id. */
  sendEnvelope(type: EnvelopeType, payload: Record<string, unknown>): string;
  wsConnected(): boolean;
  /** Mention tokens found in what labbot posted that no test allowed; close() fails when any remain. */
  strayMentions: StrayMention[];
  /** Tokens labbot's own code posts on purpose (e.g. "<@UASKER>" in an attribution), exact or by pattern. */
  allowMentions(...tokens: (string | RegExp)[]): void;
  /**
   * Masked links (`<url|text>`, rich-text links with text, Markdown links in streams) whose URL no
   * test allowed as a cited document's; close() fails when any remain.
   */
  strayLinks: StrayLink[];
  /** URLs (any fragment) or patterns a masked link may go to; a function is read at each check. */
  allowLinks(...urls: (string | RegExp | (() => (string | RegExp)[]))[]): void;
  /** Control or invisible formatting characters in anything labbot sent; close() fails when any remain. */
  strayInvisible: StrayInvisible[];
  /**
   * conversations.info answers, by channel id: the sharing flags of a conversation (Slack Connect),
   * who is in a DM or group DM (`members`, `mpim`). Conversations not listed answer as ordinary
   * internal ones of their type (C/G prefix); a D… id is labbot's DM with U<the rest of the id>. A
   * DM or group DM labbot is not in is channel_not_found, as Slack answers it.
   */
  conversations: Map<string, ConversationInfo>;
  /** Calls Slack refused (Web API ok:false and response_url errors), for diagnosis. */
  rejected: Rejection[];
  /** Moves the fake's clock on (response_url expiry, chat.postMessage's pace) without waiting. */
  advanceClock(ms: number): void;
  /**
   * Holds the answer to matching calls (recorded at once, answered on release), like a slow
   * Slack; returns the release function. For busy-moment and shutdown tests.
   */
  hold(method: string, match?: (body: Body) => boolean): () => void;
  /** Workspace members users.info knows, by id; any other id is user_not_found. */
  users: Map<string, FakeUser>;
  /**
   * The conversation as people see it: every message (posted, ephemeral, streamed, acknowledged,
   * posted on a response_url) with its edits and deletion, and the status lines, reactions and
   * suggested prompts Slack shows.
   */
  conversation: Conversation;
  /**
   * A response_url for a slash command (`command`: who ran it where) or for an interaction on a
   * message (`original`): what its ephemeral posts, replace_original and delete_original act on.
   */
  commandUrl(id: string, command: { channel: string; user: string }): string;
  actionUrl(id: string, original: FakeMessage, user: string): string;
  /** A slash command's HTTP response body: Slack shows it to the user as an ephemeral message. */
  recordAck(id: string, httpBody: string): void;
  /** chat.postMessage calls refused with 429 (1 per second per channel), not counted in `calls`. */
  rateLimited: SlackCall[];
  close(): Promise<void>;
}

export async function startFakeSlack(): Promise<FakeSlack> {
  let clockOffset = 0;
  const now = () => Date.now() + clockOffset;
  let tsCounter = 0;
  const nextTs = () => `${Math.floor(Date.now() / 1000)}.${String(++tsCounter).padStart(6, '0')}`;
  const conversation = createConversation({ now, nextTs });
  const outgoing = createOutgoingChecks();
  const gate = responseUrlGate(now);
  const pacing = postPacing(now);
  const workspace = {
    users: new Map<string, FakeUser>(),
    conversations: new Map<string, ConversationInfo>(),
    threads: new Map<string, HistoryMessage[]>(),
  };
  let port = 0;
  const methods = {
    ...workspaceMethods(workspace, () => `ws://127.0.0.1:${port}/ws?ticket=${randomUUID()}`),
    ...chatMethods({ conversation, pacing, nextTs }),
    ...streamMethods({ conversation, nextTs }),
    ...assistantMethods(conversation.view),
    ...reactionMethods(conversation.view),
    ...viewMethods(),
  };
  const server = await startServer({ methods, conversation, gate, pacing, outgoing });
  port = server.port;
  const urlFor = (id: string) => {
    gate.issue(id);
    return `http://127.0.0.1:${port}/response/${id}`;
  };

  return {
    apiUrl: `http://127.0.0.1:${port}/api/`,
    calls: server.calls,
    responses: server.responses,
    rejected: server.rejected,
    rateLimited: server.rateLimited,
    ...workspace,
    conversation: conversation.view,
    failNext: server.failNext,
    hold: server.hold,
    waitFor: server.waitFor,
    callsOf: (method) => server.calls.filter((c) => c.method === method),
    wsReceived: server.socketMode.received,
    sendEnvelope: server.socketMode.send,
    wsConnected: server.socketMode.connected,
    strayMentions: outgoing.strayMentions,
    strayLinks: outgoing.strayLinks,
    strayInvisible: outgoing.strayInvisible,
    allowMentions: outgoing.allowMentions,
    allowLinks: outgoing.allowLinks,
    advanceClock(ms) {
      clockOffset += ms;
    },
    responseUrl: (id = randomUUID()) => urlFor(id),
    commandUrl(id, command) {
      conversation.issueUrl(id, { kind: 'command', ...command });
      return urlFor(id);
    },
    actionUrl(id, original, user) {
      conversation.issueUrl(id, { kind: 'action', channel: original.channel, user, original });
      return urlFor(id);
    },
    recordAck(id, httpBody) {
      let body: Body = {};
      try {
        body = httpBody ? (JSON.parse(httpBody) as Body) : {};
      } catch {
        body = { text: httpBody };
      }
      outgoing.checkMentions('ack', body);
      conversation.ack(id, body);
    },
    async close() {
      await server.close();
      outgoing.assertClean();
    },
  };
}
