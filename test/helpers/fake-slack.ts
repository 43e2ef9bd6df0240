// A small fake Slack on 127.0.0.1 speaking the real wire protocol: the Web API methods labbot
// uses (form-encoded or JSON bodies), response_url endpoints, and a minimal WebSocket server for
// Socket Mode (apps.connections.open points at it). It records every call and enforces Slack's
// Block Kit limits, so a bot that breaks them gets the same ok:false invalid_blocks Slack sends.
// It is as strict as Slack on what labbot could otherwise only learn in production: the cumulative
// text budget of one message (msg_blocks_too_long), the `text` length (msg_too_long), response_url's
// 5 posts / 30 minutes, and any mention token (<!here>, <@U…>, …) in what labbot posts. It keeps
// the conversation as Slack would show it (section "conversation state" below): messages by
// channel and thread, edits, deletions, ephemeral messages (which chat.update and chat.delete
// cannot touch), what response_url's replace_original / delete_original act on, and
// chat.postMessage's 1 message per second per channel (429 with Retry-After).
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface SlackCall {
  method: string;
  body: Record<string, unknown>;
  at: number;
}

export interface ResponseUrlCall {
  id: string;
  body: Record<string, unknown>;
  at: number;
}

export type Failure = { status: 429; retryAfter: number } | { error: string };

export interface FakeSlack {
  /** Base URL for SLACK_API_URL, ending in /api/. */
  apiUrl: string;
  calls: SlackCall[];
  responses: ResponseUrlCall[];
  /** Messages returned by conversations.replies, keyed "<channel>:<thread ts>". */
  threads: Map<string, { ts: string; user?: string; bot_id?: string; text: string }[]>;
  /** Failures to return for the next calls of a method, in order. */
  failNext(method: string, failure: Failure): void;
  responseUrl(id?: string): string;
  callsOf(method: string): SlackCall[];
  /** Resolves when `predicate` holds (checked on every call), or rejects after `timeoutMs`. */
  waitFor<T>(predicate: () => T | undefined | false, timeoutMs?: number): Promise<T>;
  /** Socket Mode: WebSocket frames received from the bot (parsed JSON). */
  wsReceived: Record<string, unknown>[];
  /** Socket Mode: sends an envelope to the connected bot; returns its envelope_id. */
  sendEnvelope(type: 'events_api' | 'slash_commands' | 'interactive', payload: Record<string, unknown>): string;
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
   * conversations.info answers, by channel id: the sharing flags of a conversation (Slack Connect).
   * Channels not listed answer as ordinary internal conversations of their type (C/G/D prefix).
   */
  conversations: Map<string, ConversationInfo>;
  /** Calls Slack refused (Web API ok:false and response_url errors), for diagnosis. */
  rejected: { method: string; error: string; body: Record<string, unknown> }[];
  /** Moves the fake's clock on (response_url expiry) without waiting. */
  advanceClock(ms: number): void;
  /**
   * Holds the answer to matching calls (recorded at once, answered on release), like a slow
   * Slack; returns the release function. For busy-moment and shutdown tests.
   */
  hold(method: string, match?: (body: Record<string, unknown>) => boolean): () => void;
  /** chat.startStream messages by ts: channel, the text streamed so far, and whether stopped. */
  streams: Map<string, { channel: string; text: string; stopped: boolean }>;
  /** Workspace members users.info knows, by id; any other id is user_not_found. */
  users: Map<string, FakeUser>;
  /** What labbot's messages look like now (posted, updated, streamed, deleted), and its status lines, reactions and prompts. */
  conversation: ConversationState;
  /** Every message as Slack holds it (see FakeMessage), in the order posted. */
  messages: FakeMessage[];
  /** Messages everyone in the channel sees now (not ephemeral, not deleted), oldest first; `thread` picks one thread's replies. */
  visible(channel: string, opts?: { thread?: string }): FakeMessage[];
  /** Ephemeral messages `user` still sees in `channel` (not deleted or replaced away). */
  ephemeralFor(user: string, channel: string): FakeMessage[];
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

/** A message as Slack holds it. */
export interface FakeMessage {
  channel: string;
  ts: string;
  threadTs?: string;
  text?: string;
  blocks?: unknown[];
  /** Only this user sees it (response_url ephemeral, chat.postEphemeral, a command's acknowledgement). */
  ephemeralTo?: string;
  via: 'chat.postMessage' | 'chat.postEphemeral' | 'response_url' | 'ack' | 'chat.startStream';
  deleted: boolean;
  /** Every version, oldest first: the post, then each chat.update or replace_original. */
  versions: { text?: string; blocks?: unknown[]; at: number }[];
}

export interface FakeUser {
  /** The handle (user.name). */
  name: string;
  /** profile.display_name: may be "" when the person never set one (Slack then shows the real name). */
  display_name: string;
  real_name: string;
}

export interface StrayMention {
  method: string;
  token: string;
}

const LIMITS = {
  blocks: 50,
  sectionText: 3000,
  contextElements: 10,
  actionElements: 25,
  buttonText: 75,
  buttonValue: 2000,
  // chat.postMessage's docs still say "truncated beyond 40,000", but Slack now answers msg_too_long
  // for `text` past about 4,000 characters (its docs: "limit text to 4,000"; slackapi maintainers
  // confirm msg_too_long at ~4K in seratch/ChatGPT-in-Slack#102).
  text: 4_000,
  // All text in one message's blocks together; past it chat.postMessage answers msg_blocks_too_long
  // whatever the per-block limits allow (slackapi/bolt-js#2509, #2867; the markdown block documents
  // the same 12,000 as a cumulative limit).
  blocksText: 12_000,
  responseUrlPosts: 5,
  responseUrlTtlMs: 30 * 60_000,
};

/** Characters of text in blocks, summed over every `text` string at any depth (as Slack counts it). */
export function blocksTextLength(blocks: unknown): number {
  if (Array.isArray(blocks)) return blocks.reduce((n: number, b) => n + blocksTextLength(b), 0);
  if (!blocks || typeof blocks !== 'object') return 0;
  let n = 0;
  for (const [k, v] of Object.entries(blocks as Record<string, unknown>)) n += k === 'text' && typeof v === 'string' ? v.length : blocksTextLength(v);
  return n;
}

/** What Slack answers for a message payload (chat.postMessage/update/postEphemeral), or undefined when it accepts it. */
export function validateMessage(body: Record<string, unknown>): string | undefined {
  const bad = validateBlocks(body.blocks);
  if (bad) return bad;
  if (blocksTextLength(body.blocks) > LIMITS.blocksText) return 'msg_blocks_too_long';
  if (typeof body.text === 'string' && body.text.length > LIMITS.text) return 'msg_too_long';
  return undefined;
}

// Tokens Slack turns into a ping or a channel/user link when it renders mrkdwn or `text`.
const MENTION = /<(?:!(?:here|channel|everyone)\b[^>]*|!subteam\^[^>]*|@[UW][A-Z0-9]*[^>]*|#C[A-Z0-9]*[^>]*)>/g;

/** Every mention token in the texts of a payload (fallback text, blocks, views, streamed markdown). */
export function findMentions(body: unknown): string[] {
  if (Array.isArray(body)) return body.flatMap(findMentions);
  if (!body || typeof body !== 'object') return [];
  const out: string[] = richTextMention(body as Record<string, unknown>);
  // A rich-text `text` element is shown as written: Slack pings only through user/broadcast elements.
  const literal = (body as { type?: unknown }).type === 'text';
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
    if ((k === 'text' || k === 'markdown_text') && typeof v === 'string') out.push(...(literal && k === 'text' ? [] : (v.match(MENTION) ?? [])));
    else if (typeof v === 'object') out.push(...findMentions(v));
  }
  return out;
}

/** response_url rules: at most 5 posts, none after 30 minutes (Slack answers 404 with a reason). */
function responseUrlGate(now: () => number) {
  const issued = new Map<string, { at: number; posts: number }>();
  return {
    issue(id: string) {
      if (!issued.has(id)) issued.set(id, { at: now(), posts: 0 });
    },
    check(id: string): string | undefined {
      const u = issued.get(id);
      if (!u) return 'invalid_url';
      if (now() - u.at > LIMITS.responseUrlTtlMs) return 'expired_url';
      if (u.posts >= LIMITS.responseUrlPosts) return 'used_url';
      u.posts += 1;
      return undefined;
    },
  };
}

/** Returns an error string when blocks break a Block Kit limit Slack enforces, else undefined. */
export function validateBlocks(blocks: unknown): string | undefined {
  if (blocks === undefined) return undefined;
  if (!Array.isArray(blocks)) return 'invalid_blocks_format';
  if (blocks.length > LIMITS.blocks) return 'invalid_blocks';
  const badIds = validateBlockIds(blocks);
  if (badIds) return badIds;
  for (const b of blocks as Record<string, unknown>[]) {
    const type = b.type;
    if (type === 'section') {
      const text = (b.text as { text?: unknown } | undefined)?.text;
      if (typeof text !== 'string' || text.length === 0 || text.length > LIMITS.sectionText) return 'invalid_blocks';
      if (!validTextObject(b.text)) return 'invalid_blocks';
    } else if (type === 'rich_text') {
      if (!validRichText(b)) return 'invalid_blocks';
    } else if (type === 'context') {
      const els = b.elements as unknown[];
      if (!Array.isArray(els) || els.length === 0 || els.length > LIMITS.contextElements) return 'invalid_blocks';
    } else if (type === 'actions') {
      const els = b.elements as { text?: { text?: string }; value?: string; action_id?: string }[];
      if (!Array.isArray(els) || els.length === 0 || els.length > LIMITS.actionElements) return 'invalid_blocks';
      for (const e of els) {
        if ((e.text?.text ?? '').length > LIMITS.buttonText || (e.value ?? '').length > LIMITS.buttonValue || !e.action_id) return 'invalid_blocks';
      }
    } else if (type === 'context_actions') {
      if (contextActionsError(b)) return 'invalid_blocks';
    } else if (type !== 'divider' && type !== 'header') return 'invalid_blocks';
  }
  return undefined;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseBody(raw: string, contentType: string | undefined): Record<string, unknown> {
  if (!raw) return {};
  if (contentType?.includes('application/json')) return JSON.parse(raw) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of new URLSearchParams(raw)) {
    // The WebClient JSON-encodes structured arguments inside the form.
    out[k] = (k === 'blocks' || k === 'attachments' || k === 'metadata') && /^[[{]/.test(v) ? JSON.parse(v) : v;
  }
  return out;
}

// --- a minimal RFC 6455 server side: enough for undici's WebSocket client ---
function encodeFrame(opcode: number, payload: Buffer): Buffer {
  const len = payload.length;
  const head = len < 126 ? Buffer.from([0x80 | opcode, len]) : len < 65536 ? Buffer.alloc(4) : Buffer.alloc(10);
  if (len >= 126 && len < 65536) {
    head[0] = 0x80 | opcode;
    head[1] = 126;
    head.writeUInt16BE(len, 2);
  } else if (len >= 65536) {
    head[0] = 0x80 | opcode;
    head[1] = 127;
    head.writeBigUInt64BE(BigInt(len), 2);
  }
  return Buffer.concat([head, payload]);
}

function makeFrameReader(onFrame: (opcode: number, payload: Buffer) => void): (chunk: Buffer) => void {
  let buf = Buffer.alloc(0);
  return (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    for (;;) {
      if (buf.length < 2) return;
      const opcode = buf[0] & 0x0f;
      const masked = (buf[1] & 0x80) !== 0;
      let len = buf[1] & 0x7f;
      let off = 2;
      if (len === 126) {
        if (buf.length < 4) return;
        len = buf.readUInt16BE(2);
        off = 4;
      } else if (len === 127) {
        if (buf.length < 10) return;
        len = Number(buf.readBigUInt64BE(2));
        off = 10;
      }
      const maskLen = masked ? 4 : 0;
      if (buf.length < off + maskLen + len) return;
      const mask = masked ? buf.subarray(off, off + 4) : undefined;
      const payload = Buffer.from(buf.subarray(off + maskLen, off + maskLen + len));
      if (mask) for (let i = 0; i < payload.length; i++) payload[i] ^= mask[i % 4];
      buf = buf.subarray(off + maskLen + len);
      onFrame(opcode, payload);
    }
  };
}

export async function startFakeSlack(): Promise<FakeSlack> {
  const calls: SlackCall[] = [];
  const responses: ResponseUrlCall[] = [];
  const threads = new Map<string, { ts: string; user?: string; bot_id?: string; text: string }[]>();
  const failures = new Map<string, Failure[]>();
  const waiters = new Set<() => void>();
  const wsReceived: Record<string, unknown>[] = [];
  let socket: Socket | undefined;
  let clockOffset = 0;
  const now = () => Date.now() + clockOffset;
  const gate = responseUrlGate(now);
  const strayMentions: StrayMention[] = [];
  const allowed: (string | RegExp)[] = [];
  const rejected: { method: string; error: string; body: Record<string, unknown> }[] = [];
  const flagMentions = (method: string, body: Record<string, unknown>) => {
    for (const token of findMentions(body)) {
      if (!allowed.some((a) => (typeof a === 'string' ? a === token : a.test(token)))) strayMentions.push({ method, token });
    }
  };
  let tsCounter = 0;
  const nextTs = () => `${Math.floor(Date.now() / 1000)}.${String(++tsCounter).padStart(6, '0')}`;
  const notify = () => {
    for (const w of [...waiters]) w();
  };
  let port = 0;
  const held = createHolds();
  const surfaces = createSurfaceState(() => nextTs());
  const conversation = createConversationState();
  const users = new Map<string, FakeUser>();
  const conversations = new Map<string, ConversationInfo>();
  const outgoing = createOutgoingChecks();
  const convo = createChannelState(() => nextTs(), now);
  const rateLimited: SlackCall[] = [];

  const send = (res: ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(payload));
  };

  function answer(method: string, body: Record<string, unknown>): Record<string, unknown> {
    const channel = String(body.channel ?? 'C0');
    switch (method) {
      case 'auth.test':
        return { ok: true, url: 'https://lab.slack.com/', team: 'Lab', user: 'labbot', team_id: 'T0LAB', user_id: 'UBOT', bot_id: 'BBOT' };
      case 'chat.postMessage':
      case 'chat.update': {
        const bad = validateMessage(body);
        if (bad) return { ok: false, error: bad };
        if (!body.text && !body.blocks) return { ok: false, error: 'no_text' };
        const missing = method === 'chat.update' ? convo.change('chat.update', body) : undefined;
        if (missing) return { ok: false, error: missing };
        const ts = method === 'chat.update' ? String(body.ts) : nextTs();
        // A user id as channel posts in the app's DM with that user; Slack answers with the DM's id.
        const where = method === 'chat.postMessage' ? dmChannel(channel) : channel;
        const refused = conversation.record(method, where, ts, body);
        if (refused) return { ok: false, error: refused };
        return { ok: true, channel: where, ts, message: { text: body.text, ts, bot_id: 'BBOT', user: 'UBOT' } };
      }
      case 'chat.postEphemeral': {
        const bad = validateMessage(body);
        return bad ? { ok: false, error: bad } : { ok: true, message_ts: nextTs() };
      }
      case 'reactions.add':
      case 'reactions.remove':
        return conversation.reaction(method, body);
      case 'users.info': {
        // As Slack answers it: the user object, names both at the top and in profile.
        if (typeof body.user !== 'string' || !body.user) return { ok: false, error: 'invalid_arguments' };
        const u = users.get(body.user);
        if (!u) return { ok: false, error: 'user_not_found' };
        const profile = { display_name: u.display_name, display_name_normalized: u.display_name, real_name: u.real_name, real_name_normalized: u.real_name };
        return { ok: true, user: { id: body.user, team_id: 'T0LAB', name: u.name, deleted: false, real_name: u.real_name, is_bot: false, profile } };
      }
      case 'conversations.replies':
        return repliesPage(threads.get(`${channel}:${String(body.ts)}`) ?? [], body);
      case 'conversations.info':
        return conversationInfo(conversations, body);
      case 'chat.delete': {
        if (!str(body.channel) || !str(body.ts)) return { ok: false, error: 'invalid_arguments' };
        const missing = convo.change('chat.delete', body) ?? conversation.record('chat.delete', channel, String(body.ts), body);
        return missing ? { ok: false, error: missing } : { ok: true, channel: body.channel, ts: body.ts };
      }
      case 'apps.connections.open':
        return { ok: true, url: `ws://127.0.0.1:${port}/ws?ticket=${randomUUID()}` };
      default:
        return surfaceMethod(method, body, surfaces, conversation) ?? { ok: false, error: 'unknown_method' };
    }
  }

  const server: Server = createServer(async (req, res) => {
    const raw = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    let body: Record<string, unknown>;
    try {
      body = parseBody(raw, req.headers['content-type']);
    } catch {
      send(res, 400, { ok: false, error: 'invalid_json' });
      return;
    }
    if (url.pathname.startsWith('/response/')) {
      const id = url.pathname.slice('/response/'.length);
      // Block Kit limits apply here too; the cumulative msg_blocks_too_long does not (slackapi/bolt-js#2867:
      // the same blocks that chat.postMessage refused went through respond()).
      const refused = gate.check(id) ?? validateBlocks(body.blocks) ?? convo.respond(id, body);
      if (refused) {
        rejected.push({ method: 'response_url', error: refused, body });
        send(res, refused === 'invalid_blocks' ? 400 : 404, { ok: false, error: refused });
      } else {
        flagMentions('response_url', body);
        outgoing.check('response_url', body);
        responses.push({ id, body, at: performance.now() });
        send(res, 200, { ok: true });
      }
      notify();
      return;
    }
    const method = url.pathname.replace(/^\/api\//, '');
    if (method === 'chat.postMessage' && convo.rateLimit(body)) {
      rateLimited.push({ method, body, at: performance.now() });
      send(res, 429, { ok: false, error: 'ratelimited' }, { 'retry-after': '1' });
      notify();
      return;
    }
    calls.push({ method, body, at: performance.now() });
    flagMentions(method, body);
    outgoing.check(method, body);
    notify();
    await held.until(method, body);
    const failure = failures.get(method)?.shift();
    if (failure && 'status' in failure) {
      send(res, 429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(failure.retryAfter) });
    } else if (failure) {
      send(res, 200, { ok: false, error: failure.error });
    } else {
      const result = answer(method, body);
      if (result.ok === false) rejected.push({ method, error: String(result.error), body });
      convo.posted(method, body, result);
      send(res, 200, result);
    }
    notify();
  });

  server.on('upgrade', (req: IncomingMessage, sock: Socket) => {
    const key = req.headers['sec-websocket-key'];
    if (!key || !req.url?.startsWith('/ws')) {
      sock.destroy();
      return;
    }
    const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
    sock.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
    socket = sock;
    sock.on('data', makeFrameReader((opcode, payload) => {
      if (opcode === 0x9) sock.write(encodeFrame(0xa, payload));
      else if (opcode === 0x8) {
        if (!sock.destroyed) sock.end(encodeFrame(0x8, payload.subarray(0, 2)));
      } else if (opcode === 0x1) {
        try {
          wsReceived.push(JSON.parse(payload.toString('utf8')) as Record<string, unknown>);
        } catch {
          wsReceived.push({ raw: payload.toString('utf8') });
        }
        notify();
      }
    }));
    sock.on('error', () => {});
    sock.on('close', () => {
      if (socket === sock) socket = undefined;
    });
    // Slack greets every new connection; the Socket Mode client waits for this before it is "connected".
    sock.write(encodeFrame(0x1, Buffer.from(JSON.stringify({ type: 'hello', num_connections: 1, debug_info: { host: 'fake' }, connection_info: { app_id: 'A0LAB' } }))));
    notify();
  });

  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  port = (server.address() as AddressInfo).port;

  return {
    apiUrl: `http://127.0.0.1:${port}/api/`,
    calls,
    responses,
    threads,
    users,
    wsReceived,
    failNext(method, failure) {
      failures.set(method, [...(failures.get(method) ?? []), failure]);
    },
    strayMentions,
    strayLinks: outgoing.strayLinks,
    strayInvisible: outgoing.strayInvisible,
    allowLinks: outgoing.allowLinks,
    conversations,
    rejected,
    allowMentions(...tokens) {
      allowed.push(...tokens);
    },
    advanceClock(ms) {
      clockOffset += ms;
    },
    responseUrl(id = randomUUID()) {
      gate.issue(id);
      return `http://127.0.0.1:${port}/response/${id}`;
    },
    commandUrl(id, command) {
      gate.issue(id);
      convo.issue(id, { kind: 'command', ...command });
      return `http://127.0.0.1:${port}/response/${id}`;
    },
    actionUrl(id, original, user) {
      gate.issue(id);
      convo.issue(id, { kind: 'action', channel: original.channel, user, original });
      return `http://127.0.0.1:${port}/response/${id}`;
    },
    recordAck(id, httpBody) {
      let body: Record<string, unknown> = {};
      try {
        body = httpBody ? (JSON.parse(httpBody) as Record<string, unknown>) : {};
      } catch {
        body = { text: httpBody };
      }
      flagMentions('ack', body);
      convo.ack(id, body);
    },
    messages: convo.messages,
    visible: (channel, opts) => convo.visible(channel, opts),
    ephemeralFor: (user, channel) => convo.ephemeralFor(user, channel),
    rateLimited,
    callsOf(method) {
      return calls.filter((c) => c.method === method);
    },
    waitFor<T>(predicate: () => T | undefined | false, timeoutMs = 15_000): Promise<T> {
      return new Promise((resolve, reject) => {
        const check = () => {
          const v = predicate();
          if (v !== undefined && v !== false) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(v);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`fake Slack: condition not met within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    sendEnvelope(type, payload) {
      if (!socket) throw new Error('no Socket Mode connection');
      const envelope_id = randomUUID();
      socket.write(encodeFrame(0x1, Buffer.from(JSON.stringify({ envelope_id, type, payload, accepts_response_payload: type !== 'events_api', retry_attempt: 0, retry_reason: '' }))));
      return envelope_id;
    },
    hold: held.hold,
    streams: surfaces.streams,
    conversation,
    wsConnected: () => socket !== undefined,
    async close() {
      await new Promise<void>((r) => {
        socket?.destroy();
        server.closeAllConnections();
        server.close(() => r());
      });
      // Slack would have pinged people: fail the suite that let it happen, naming what was posted.
      if (strayMentions.length) {
        const list = strayMentions.slice(0, 10).map((m) => `${m.method}: ${m.token}`).join('; ');
        throw new Error(`fake Slack: labbot posted ${strayMentions.length} mention token(s) no test allowed: ${list}`);
      }
      outgoing.assertClean();
    },
  };
}

// --- conversations.replies as Slack pages it (kept apart so other fake changes merge cleanly) ---
// Oldest first, `limit` per page (default and maximum 1000 for internal apps), an opaque cursor in
// response_metadata.next_cursor and has_more while messages remain. A thread the fake does not
// know returns no messages (Slack would answer thread_not_found; tests seed what they read).
const REPLIES_MAX_LIMIT = 1000;

export function repliesPage(messages: { ts: string }[], body: Record<string, unknown>): Record<string, unknown> {
  const limit = Math.min(REPLIES_MAX_LIMIT, Math.max(1, Number(body.limit ?? REPLIES_MAX_LIMIT) || REPLIES_MAX_LIMIT));
  let start = 0;
  if (body.cursor !== undefined && body.cursor !== '') {
    const decoded = /^next:(\d+)$/.exec(Buffer.from(String(body.cursor), 'base64').toString('utf8'));
    if (!decoded) return { ok: false, error: 'invalid_cursor' };
    start = Number(decoded[1]);
  }
  const page = messages.slice(start, start + limit);
  const more = start + limit < messages.length;
  return {
    ok: true,
    messages: page,
    has_more: more,
    response_metadata: { next_cursor: more ? Buffer.from(`next:${start + limit}`).toString('base64') : '' },
  };
}

// --- holding calls (kept apart so other fake changes merge cleanly) ---
function createHolds() {
  const holds: { method: string; match: (body: Record<string, unknown>) => boolean; gate: Promise<void>; released: boolean }[] = [];
  return {
    hold(method: string, match: (body: Record<string, unknown>) => boolean = () => true): () => void {
      let release!: () => void;
      const h = { method, match, gate: new Promise<void>((r) => (release = r)), released: false };
      holds.push(h);
      return () => {
        h.released = true;
        release();
      };
    },
    async until(method: string, body: Record<string, unknown>): Promise<void> {
      for (const h of holds) if (!h.released && h.method === method && h.match(body)) await h.gate;
    },
  };
}

// --- App Home and other surfaces (kept apart so other fake changes merge cleanly) ---
// views.publish: a `home` view of at most 100 blocks for a user id; block rules as for messages.
const VIEW_MAX_BLOCKS = 100;

const str = (v: unknown) => typeof v === 'string' && v.length > 0;
const jsonArg = (v: unknown): unknown => (typeof v === 'string' && /^[[{]/.test(v) ? JSON.parse(v) : v);

/** Streams (chat.startStream … stopStream) by ts: their channel, text so far and whether stopped. */
export interface SurfaceState {
  nextTs: () => string;
  streams: Map<string, { channel: string; text: string; stopped: boolean }>;
}

function createSurfaceState(nextTs: () => string): SurfaceState {
  return { nextTs, streams: new Map() };
}

const STREAM_TEXT_LIMIT = 12_000;

/** Text of markdown_text and markdown_text chunks; undefined when a chunk is malformed or over the limit. */
function streamText(body: Record<string, unknown>): string | undefined {
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

function surfaceMethod(method: string, body: Record<string, unknown>, state: SurfaceState, conv: ConversationState): Record<string, unknown> | undefined {
  // chat.*Stream: a stream starts in a thread (outside a DM it needs the recipient user and team),
  // takes appends until stopped, and may end with blocks under the text.
  if (method === 'chat.startStream') {
    const text = streamText(body);
    if (!str(body.channel) || !str(body.thread_ts) || text === undefined) return { ok: false, error: 'invalid_arguments' };
    if (!String(body.channel).startsWith('D') && (!str(body.recipient_user_id) || !str(body.recipient_team_id))) return { ok: false, error: 'invalid_arguments' };
    const ts = state.nextTs();
    state.streams.set(ts, { channel: String(body.channel), text, stopped: false });
    conv.record('chat.startStream', String(body.channel), ts, { ...body, markdown_text: text });
    return { ok: true, channel: body.channel, ts };
  }
  if (method === 'chat.appendStream' || method === 'chat.stopStream') {
    const stream = state.streams.get(String(body.ts));
    if (!str(body.channel) || !stream || stream.channel !== body.channel) return { ok: false, error: 'message_not_found' };
    if (stream.stopped) return { ok: false, error: 'message_not_in_streaming_state' };
    const text = streamText(body);
    if (text === undefined || (method === 'chat.appendStream' && text === '')) return { ok: false, error: 'invalid_arguments' };
    if (method === 'chat.stopStream') {
      const bad = validateBlocks(body.blocks);
      if (bad) return { ok: false, error: bad };
      stream.stopped = true;
    }
    stream.text += text;
    conv.record(method, String(body.channel), String(body.ts), { markdown_text: stream.text, ...(method === 'chat.stopStream' && body.blocks ? { blocks: jsonArg(body.blocks) } : {}) });
    return { ok: true, channel: body.channel, ts: body.ts };
  }
  // assistant.threads.*: channel_id and thread_ts always; a status (at most 10 loading messages),
  // or prompts each with a title and a message.
  if (method === 'assistant.threads.setStatus' || method === 'assistant.threads.setSuggestedPrompts') return conv.assistant(method, body);
  if (method !== 'views.publish') return undefined;
  if (typeof body.user_id !== 'string' || !/^[UW][A-Z0-9]+$/.test(body.user_id)) return { ok: false, error: 'invalid_arguments' };
  const view = (typeof body.view === 'string' ? JSON.parse(body.view) : body.view) as { type?: string; blocks?: unknown[] } | undefined;
  if (!view || view.type !== 'home' || !Array.isArray(view.blocks)) return { ok: false, error: 'invalid_arguments' };
  if (view.blocks.length > VIEW_MAX_BLOCKS) return { ok: false, error: 'invalid_blocks' };
  for (let i = 0; i < view.blocks.length; i += 50) {
    const bad = validateBlocks(view.blocks.slice(i, i + 50));
    if (bad) return { ok: false, error: bad };
  }
  for (const b of view.blocks as { type: string; text?: { type?: string; text?: string } }[]) {
    if (b.type === 'header' && (b.text?.type !== 'plain_text' || !b.text.text || b.text.text.length > 150)) return { ok: false, error: 'invalid_blocks' };
  }
  return { ok: true, view: { id: 'V0HOME', type: 'home', ...view } };
}

// --- conversation state: labbot's messages as people see them, status lines, reactions, prompts,
// and the agent experience's rules (kept apart so other fake changes merge cleanly) ---
// chat.update and chat.delete need a message the fake posted (message_not_found otherwise, as
// Slack answers); a reply (post or stream) in a thread clears that thread's status line, as Slack
// does; assistant.threads.setStatus needs channel_id and thread_ts and takes at most 10 loading
// messages; setSuggestedPrompts takes 1 to 4 prompts, and an agent_view app's prompts with a
// thread_ts are silently dropped (docs.slack.dev: "Including it in a call for an agent app will
// cause the call to silently fail"); reactions are per message and name (already_reacted, no_reaction).

export interface ShownMessage {
  ts: string;
  channel: string;
  threadTs: string | undefined;
  /** The fallback text of a posted message, or the markdown streamed so far. */
  text: string;
  blocks: unknown[] | undefined;
  kind: 'message' | 'stream';
  streaming: boolean;
  deleted: boolean;
  /** How many times it was changed after posting (chat.update, stream appends not counted). */
  updates: number;
}

export interface ConversationState {
  /** 'agent' (features.agent_view, the default for new apps) or 'assistant' (the legacy pane). */
  appView: 'agent' | 'assistant';
  messages: Map<string, ShownMessage>;
  /** Status lines showing, by "<channel>:<thread ts>". */
  statuses: Map<string, { status: string; loading: string[] }>;
  /** Every status line ever set (for tests of what was shown while working). */
  statusLog: { key: string; status: string; loading: string[] }[];
  /** Reactions on messages, "<channel>:<ts>" -> names. */
  reactions: Map<string, Set<string>>;
  /** Prompts Slack shows, by channel (agent view) or "<channel>:<thread ts>" (legacy pane). */
  prompts: Map<string, { title: string; message: string }[]>;
  /** labbot's visible messages in a thread (or a channel's top level when threadTs is undefined), oldest first. */
  thread(channel: string, threadTs: string | undefined): ShownMessage[];
  /** @internal */
  record(method: string, channel: string, ts: string, body: Record<string, unknown>): string | undefined;
  /** @internal */
  reaction(method: string, body: Record<string, unknown>): Record<string, unknown>;
  /** @internal */
  assistant(method: string, body: Record<string, unknown>): Record<string, unknown>;
}

const PROMPTS_MAX = 4;
const LOADING_MAX = 10;
const byTs = (a: { ts: string }, b: { ts: string }) => Number(a.ts) - Number(b.ts);

function createConversationState(): ConversationState {
  const messages = new Map<string, ShownMessage>();
  const statuses = new Map<string, { status: string; loading: string[] }>();
  const statusLog: { key: string; status: string; loading: string[] }[] = [];
  const reactions = new Map<string, Set<string>>();
  const prompts = new Map<string, { title: string; message: string }[]>();
  const state: ConversationState = {
    appView: 'agent',
    messages,
    statuses,
    statusLog,
    reactions,
    prompts,
    thread: (channel, threadTs) =>
      [...messages.values()].filter((m) => m.channel === channel && !m.deleted && (threadTs === undefined ? !m.threadTs : m.threadTs === threadTs || m.ts === threadTs)).sort(byTs),
    record(method, channel, ts, body) {
      const blocks = jsonArg(body.blocks) as unknown[] | undefined;
      if (method === 'chat.postMessage' || method === 'chat.startStream') {
        const threadTs = str(body.thread_ts) ? String(body.thread_ts) : undefined;
        const kind = method === 'chat.startStream' ? 'stream' : 'message';
        const text = String((kind === 'stream' ? body.markdown_text : body.text) ?? '');
        messages.set(ts, { ts, channel, threadTs, text, blocks, kind, streaming: kind === 'stream', deleted: false, updates: 0 });
        if (threadTs) statuses.delete(`${channel}:${threadTs}`);
        return undefined;
      }
      const m = messages.get(ts);
      if (!m || m.deleted || m.channel !== channel) return 'message_not_found';
      if (method === 'chat.update') {
        m.text = String(body.text ?? '');
        m.blocks = blocks;
        m.updates += 1;
      } else if (method === 'chat.delete') m.deleted = true;
      else if (method === 'chat.appendStream' || method === 'chat.stopStream') {
        m.text = String(body.markdown_text ?? m.text);
        if (method === 'chat.stopStream') {
          m.streaming = false;
          m.blocks = blocks;
        }
      }
      return undefined;
    },
    reaction(method, body) {
      if (!str(body.channel) || !str(body.timestamp) || !str(body.name)) return { ok: false, error: 'invalid_arguments' };
      const key = `${String(body.channel)}:${String(body.timestamp)}`;
      const names = reactions.get(key) ?? new Set<string>();
      const name = String(body.name);
      if (method === 'reactions.add') {
        if (names.has(name)) return { ok: false, error: 'already_reacted' };
        names.add(name);
        reactions.set(key, names);
      } else {
        if (!names.has(name)) return { ok: false, error: 'no_reaction' };
        names.delete(name);
      }
      return { ok: true };
    },
    assistant(method, body) {
      if (!str(body.channel_id)) return { ok: false, error: 'invalid_arguments' };
      if (method === 'assistant.threads.setStatus') {
        if (!str(body.thread_ts) || typeof body.status !== 'string') return { ok: false, error: 'invalid_arguments' };
        const loading = jsonArg(body.loading_messages);
        if (loading !== undefined && (!Array.isArray(loading) || loading.length === 0 || loading.length > LOADING_MAX || !loading.every(str))) {
          return { ok: false, error: 'invalid_arguments' };
        }
        const key = `${String(body.channel_id)}:${String(body.thread_ts)}`;
        const entry = { status: body.status, loading: (loading as string[] | undefined) ?? [] };
        statusLog.push({ key, ...entry });
        if (body.status === '') statuses.delete(key);
        else statuses.set(key, entry);
        return { ok: true };
      }
      const list = jsonArg(body.prompts) as { title?: unknown; message?: unknown }[] | undefined;
      if (!Array.isArray(list) || list.length === 0 || list.length > PROMPTS_MAX) return { ok: false, error: 'invalid_arguments' };
      if (list.some((p) => !str(p.title) || !str(p.message))) return { ok: false, error: 'invalid_arguments' };
      if (body.title !== undefined && typeof body.title !== 'string') return { ok: false, error: 'invalid_arguments' };
      const threadTs = str(body.thread_ts) ? String(body.thread_ts) : undefined;
      // An agent app's call with a thread_ts "silently fails": ok, but nothing is shown.
      if (state.appView === 'agent' && threadTs) return { ok: true };
      prompts.set(threadTs ? `${String(body.channel_id)}:${threadTs}` : String(body.channel_id), list as { title: string; message: string }[]);
      return { ok: true };
    },
  };
  return state;
}

const CONTEXT_ACTIONS_MAX = 5;
const plain = (t: unknown, max: number) => {
  const o = t as { type?: unknown; text?: unknown } | undefined;
  return o?.type === 'plain_text' && typeof o.text === 'string' && o.text.length > 0 && o.text.length <= max;
};

/** Why a context_actions block is refused (feedback_buttons / icon_button elements, docs.slack.dev), or undefined. */
export function contextActionsError(b: Record<string, unknown>): string | undefined {
  const els = b.elements as Record<string, unknown>[] | undefined;
  if (!Array.isArray(els) || els.length === 0 || els.length > CONTEXT_ACTIONS_MAX) return 'elements';
  if (b.block_id !== undefined && (typeof b.block_id !== 'string' || b.block_id.length > BLOCK_ID_MAX)) return 'block_id';
  for (const e of els) {
    if (e.action_id !== undefined && (typeof e.action_id !== 'string' || e.action_id.length > BLOCK_ID_MAX)) return 'action_id';
    if (e.type === 'feedback_buttons') {
      for (const side of ['positive_button', 'negative_button']) {
        const btn = e[side] as { text?: unknown; value?: unknown; accessibility_label?: unknown } | undefined;
        if (!btn || !plain(btn.text, LIMITS.buttonText)) return side;
        if (typeof btn.value !== 'string' || btn.value.length === 0 || btn.value.length > LIMITS.buttonValue) return `${side}.value`;
        if (btn.accessibility_label !== undefined && (typeof btn.accessibility_label !== 'string' || btn.accessibility_label.length > LIMITS.buttonText)) return `${side}.accessibility_label`;
      }
    } else if (e.type === 'icon_button') {
      if (!str(e.icon) || !plain(e.text, LIMITS.buttonText)) return 'icon_button';
    } else return `element ${String(e.type)}`;
  }
  return undefined;
}

// --- what labbot sends: links, invisible characters, block ids, rich text, conversations.info ---
// (kept apart so other fake changes merge cleanly)

export interface StrayLink {
  method: string;
  url: string;
  text: string;
}

export interface StrayInvisible {
  method: string;
  /** The offending characters as code points, and where they were. */
  chars: string[];
  sample: string;
}

/** conversations.info fields a test sets; the rest comes from the id's prefix. */
export interface ConversationInfo {
  is_shared?: boolean;
  is_ext_shared?: boolean;
  is_org_shared?: boolean;
  is_pending_ext_shared?: boolean;
  pending_connected_team_ids?: string[];
  /** Answer this error instead (channel_not_found, missing_scope, …). */
  error?: string;
}

const BLOCK_ID_MAX = 255;

/** block_id: at most 255 characters and unique within one message or view (Slack: invalid_blocks). */
export function validateBlockIds(blocks: unknown[]): string | undefined {
  const seen = new Set<string>();
  for (const b of blocks as { block_id?: unknown }[]) {
    if (b?.block_id === undefined) continue;
    if (typeof b.block_id !== 'string' || b.block_id.length === 0 || b.block_id.length > BLOCK_ID_MAX || seen.has(b.block_id)) return 'invalid_blocks';
    seen.add(b.block_id);
  }
  return undefined;
}

/** A text object: mrkdwn or plain_text; `verbatim` only on mrkdwn and a boolean, `emoji` only on plain_text. */
function validTextObject(t: unknown): boolean {
  const o = t as { type?: unknown; text?: unknown; verbatim?: unknown; emoji?: unknown };
  if (!o || typeof o.text !== 'string') return false;
  if (o.type === 'mrkdwn') return o.emoji === undefined && (o.verbatim === undefined || typeof o.verbatim === 'boolean');
  if (o.type === 'plain_text') return o.verbatim === undefined && (o.emoji === undefined || typeof o.emoji === 'boolean');
  return false;
}

const RICH_ELEMENTS = new Set(['text', 'link', 'emoji', 'user', 'usergroup', 'channel', 'broadcast', 'date', 'color', 'team']);
const RICH_STYLES = new Set(['bold', 'italic', 'strike', 'code', 'underline']);

function validRichElement(e: Record<string, unknown>): boolean {
  if (!RICH_ELEMENTS.has(String(e.type))) return false;
  if (e.style !== undefined) {
    if (typeof e.style !== 'object' || e.style === null) return false;
    for (const [k, v] of Object.entries(e.style)) if (!RICH_STYLES.has(k) || typeof v !== 'boolean') return false;
  }
  if (e.type === 'text') return typeof e.text === 'string' && e.text.length > 0;
  if (e.type === 'link') return typeof e.url === 'string' && e.url.length > 0 && (e.text === undefined || typeof e.text === 'string');
  return true;
}

/** rich_text: sections, lists, quotes and preformatted blocks of the elements Slack documents. */
function validRichText(b: Record<string, unknown>): boolean {
  const els = b.elements as Record<string, unknown>[] | undefined;
  if (!Array.isArray(els) || els.length === 0) return false;
  for (const el of els) {
    const inner = el.elements as Record<string, unknown>[] | undefined;
    if (!Array.isArray(inner) || inner.length === 0) return false;
    if (el.border !== undefined && el.border !== 0 && el.border !== 1) return false;
    if (el.type === 'rich_text_list') {
      if (el.style !== 'bullet' && el.style !== 'ordered') return false;
      if (!inner.every((i) => i.type === 'rich_text_section' && validRichText({ elements: [i] }))) return false;
    } else if (el.type === 'rich_text_section' || el.type === 'rich_text_quote') {
      if (!inner.every(validRichElement)) return false;
    } else if (el.type === 'rich_text_preformatted') {
      if (!inner.every((i) => (i.type === 'text' || i.type === 'link') && validRichElement(i))) return false;
    } else return false;
  }
  return true;
}

/** Rich-text elements that ping or link a person, group or channel, as the mention token they stand for. */
function richTextMention(o: Record<string, unknown>): string[] {
  if (o.type === 'user' && typeof o.user_id === 'string') return [`<@${o.user_id}>`];
  if (o.type === 'usergroup' && typeof o.usergroup_id === 'string') return [`<!subteam^${o.usergroup_id}>`];
  if (o.type === 'broadcast' && typeof o.range === 'string') return [`<!${o.range}>`];
  if (o.type === 'channel' && typeof o.channel_id === 'string') return [`<#${o.channel_id}>`];
  return [];
}

/** Masked links in a payload: mrkdwn `<url|text>`, rich-text links with text, Markdown `[text](url)` in streamed markdown. */
export function findMaskedLinks(body: unknown): { url: string; text: string }[] {
  if (Array.isArray(body)) return body.flatMap(findMaskedLinks);
  if (!body || typeof body !== 'object') return [];
  const o = body as Record<string, unknown>;
  const out: { url: string; text: string }[] = [];
  if (o.type === 'link' && typeof o.url === 'string' && typeof o.text === 'string' && o.text !== o.url) out.push({ url: o.url, text: o.text });
  for (const [k, v] of Object.entries(o)) {
    // Rich-text `text` elements are shown as written (no mrkdwn); stream chunks' text is Markdown.
    const markdown = k === 'markdown_text' || (k === 'text' && o.type === 'markdown_text');
    if (k === 'text' && typeof v === 'string' && o.type !== 'text' && !markdown) {
      for (const m of v.matchAll(/<(https?:\/\/[^|>\s]+)\|([^>]*)>/g)) out.push({ url: m[1], text: m[2] });
    } else if (markdown && typeof v === 'string') {
      // A backslash-escaped bracket is literal in Slack's markdown; only an unescaped [..](..) links.
      for (const m of v.matchAll(/(?<!\\)\[((?:\\.|[^\]\\])*)(?<!\\)\]\((https?:\/\/[^)\s]+)\)/g)) out.push({ url: m[2], text: m[1] });
    } else if (typeof v === 'object') out.push(...findMaskedLinks(v));
  }
  return out;
}

// Controls except tab and line feed; format characters except ZWNJ/ZWJ (scripts and emoji need them).
const INVISIBLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]|(?![\u200c\u200d])\p{Cf}/gu;

function invisibleIn(body: unknown, out: Set<string>, samples: string[]): void {
  if (typeof body === 'string') {
    const found = body.match(INVISIBLE);
    if (found) {
      for (const c of found) out.add(`U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`);
      if (samples.length < 3) samples.push(JSON.stringify(body.slice(0, 120)));
    }
  } else if (Array.isArray(body)) for (const v of body) invisibleIn(v, out, samples);
  else if (body && typeof body === 'object') for (const [k, v] of Object.entries(body)) invisibleIn([k, v], out, samples);
}

/** A URL as Slack would store it, without its fragment: deep links into one document are one document. */
const withoutFragment = (u: string) => {
  let href = u;
  try {
    href = new URL(u).href;
  } catch {
    // compared as written
  }
  return href.replace(/#.*$/, '').replace(/[<>| ]/g, (c) => encodeURIComponent(c));
};

function createOutgoingChecks() {
  const allowed: (string | RegExp | (() => (string | RegExp)[]))[] = [];
  const strayLinks: StrayLink[] = [];
  const strayInvisible: StrayInvisible[] = [];
  const isAllowed = (url: string) =>
    allowed.flatMap((a) => (typeof a === 'function' ? a() : [a])).some((a) => (typeof a === 'string' ? withoutFragment(a) === withoutFragment(url) : a.test(url)));
  return {
    strayLinks,
    strayInvisible,
    allowLinks(...urls: (string | RegExp | (() => (string | RegExp)[]))[]) {
      allowed.push(...urls);
    },
    check(method: string, body: Record<string, unknown>) {
      for (const l of findMaskedLinks(body)) if (!isAllowed(l.url)) strayLinks.push({ method, ...l });
      const chars = new Set<string>();
      const samples: string[] = [];
      invisibleIn(body, chars, samples);
      if (chars.size) strayInvisible.push({ method, chars: [...chars], sample: samples.join(' ') });
    },
    assertClean() {
      if (strayLinks.length) {
        const list = strayLinks.slice(0, 5).map((l) => `${l.method}: <${l.url}|${l.text}>`).join('; ');
        throw new Error(`fake Slack: labbot posted ${strayLinks.length} masked link(s) to URLs no test allowed as a cited document's: ${list}`);
      }
      if (strayInvisible.length) {
        const list = strayInvisible.slice(0, 5).map((x) => `${x.method}: ${x.chars.join(',')} in ${x.sample}`).join('; ');
        throw new Error(`fake Slack: labbot posted control or invisible characters: ${list}`);
      }
    },
  };
}

/** conversations.info as Slack answers it: the conversation object, its type from the id, a test's flags. */
function conversationInfo(conversations: Map<string, ConversationInfo>, body: Record<string, unknown>): Record<string, unknown> {
  const id = body.channel;
  if (typeof id !== 'string' || !/^[CGD][A-Z0-9]+$/.test(id)) return { ok: false, error: 'channel_not_found' };
  const set = conversations.get(id) ?? {};
  if (set.error) return { ok: false, error: set.error };
  const { error: _e, ...flags } = set;
  if (id.startsWith('D')) return { ok: true, channel: { id, is_im: true, is_org_shared: false, user: 'UASKER', ...flags } };
  return {
    ok: true,
    channel: {
      id,
      name: id.toLowerCase(),
      is_channel: id.startsWith('C'),
      is_group: id.startsWith('G'),
      is_im: false,
      is_mpim: false,
      is_private: id.startsWith('G'),
      is_shared: false,
      is_ext_shared: false,
      is_org_shared: false,
      is_pending_ext_shared: false,
      pending_shared: [],
      pending_connected_team_ids: [],
      shared_team_ids: ['T0LAB'],
      is_member: true,
      ...flags,
    },
  };
}

// --- channel state (kept apart so other fake changes merge cleanly) ---
// What a channel shows: messages by ts, edited by chat.update, removed by chat.delete; ephemeral
// messages, which only response_url can replace or delete (chat.update/delete answer
// message_not_found, as Slack does for a message the method cannot see); and which message a
// response_url's replace_original / delete_original acts on:
//  - a slash command's URL: nothing. Its acknowledgement and posts cannot be replaced or deleted:
//    replace_original is ignored and the message is posted as a new one (slackapi/bolt-js#2287,
//    slackapi/bolt-python#1268), and delete_original has nothing to delete (message_not_found).
//  - an interaction's URL: the message the button was on (ephemeral ones included); without
//    replace_original: false a response replaces it (the documented default for interactive
//    messages).
// chat.postMessage: 1 message per second per channel (Slack's documented rate; bursts are "not
// guaranteed"), beyond it 429 with Retry-After: 1, as the Web API answers.
const POST_INTERVAL_MS = 1000;

/** The conversation a chat.postMessage `channel` names: a user id (U…/W…) is the app's DM with them (D…). */
export function dmChannel(channel: string): string {
  return /^[UW][A-Z0-9]+$/.test(channel) ? `D${channel.slice(1)}` : channel;
}

type UrlContext = { kind: 'command'; channel: string; user: string } | { kind: 'action'; channel: string; user: string; original: FakeMessage };

export function createChannelState(nextTs: () => string, now: () => number) {
  const messages: FakeMessage[] = [];
  const urls = new Map<string, UrlContext>();
  const lastPost = new Map<string, number>();
  const find = (channel: unknown, ts: unknown) => messages.find((m) => m.channel === channel && m.ts === ts && !m.deleted);
  const add = (m: Omit<FakeMessage, 'deleted' | 'versions'>): FakeMessage => {
    const msg: FakeMessage = { ...m, deleted: false, versions: [{ text: m.text, blocks: m.blocks, at: now() }] };
    messages.push(msg);
    return msg;
  };
  const edit = (m: FakeMessage, body: Record<string, unknown>) => {
    m.text = typeof body.text === 'string' ? body.text : undefined;
    m.blocks = Array.isArray(body.blocks) ? body.blocks : undefined;
    m.versions.push({ text: m.text, blocks: m.blocks, at: now() });
  };
  const thread = (body: Record<string, unknown>) => (typeof body.thread_ts === 'string' && body.thread_ts ? body.thread_ts : undefined);
  return {
    messages,
    /** 429 seconds when a chat.postMessage to this channel comes too soon after the last accepted one. */
    rateLimit(body: Record<string, unknown>): number | undefined {
      const channel = dmChannel(String(body.channel ?? ''));
      const last = lastPost.get(channel);
      if (last !== undefined && now() - last < POST_INTERVAL_MS) return 1;
      return undefined;
    },
    posted(method: string, body: Record<string, unknown>, result: Record<string, unknown>) {
      if (result.ok !== true) return;
      const channel = method === 'chat.postMessage' ? dmChannel(String(body.channel ?? '')) : String(body.channel ?? '');
      if (method === 'chat.postMessage') {
        lastPost.set(channel, now());
        add({ channel, ts: String(result.ts), threadTs: thread(body), text: body.text as string | undefined, blocks: body.blocks as unknown[] | undefined, via: 'chat.postMessage' });
      } else if (method === 'chat.postEphemeral') {
        add({ channel, ts: String(result.message_ts), threadTs: thread(body), text: body.text as string | undefined, blocks: body.blocks as unknown[] | undefined, ephemeralTo: String(body.user), via: 'chat.postEphemeral' });
      } else if (method === 'chat.startStream') {
        add({ channel, ts: String(result.ts), threadTs: thread(body), text: '', via: 'chat.startStream' });
      }
    },
    /** chat.update / chat.delete on a message Slack would not find (unknown, deleted or ephemeral). */
    change(method: 'chat.update' | 'chat.delete', body: Record<string, unknown>): string | undefined {
      // These take the conversation's id: a user id is not one (only chat.postMessage resolves it).
      if (dmChannel(String(body.channel ?? '')) !== String(body.channel ?? '')) return 'channel_not_found';
      const m = find(body.channel, body.ts);
      if (!m || m.ephemeralTo) return 'message_not_found';
      if (method === 'chat.delete') m.deleted = true;
      else edit(m, body);
      return undefined;
    },
    issue(id: string, ctx: UrlContext) {
      urls.set(id, ctx);
    },
    ack(id: string, body: Record<string, unknown>) {
      const ctx = urls.get(id);
      if (!ctx || ctx.kind !== 'command' || (!body.text && !body.blocks)) return;
      const inChannel = body.response_type === 'in_channel';
      add({ channel: ctx.channel, ts: nextTs(), text: body.text as string | undefined, blocks: body.blocks as unknown[] | undefined, ephemeralTo: inChannel ? undefined : ctx.user, via: 'ack' });
    },
    /** A response_url post: applies it and returns Slack's error, if any. URLs issued without a context only record. */
    respond(id: string, body: Record<string, unknown>): string | undefined {
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
      add({ channel: ctx.channel, ts: nextTs(), threadTs: thread(body), text: body.text as string | undefined, blocks: body.blocks as unknown[] | undefined, ephemeralTo: inChannel ? undefined : ctx.user, via: 'response_url' });
      return undefined;
    },
    visible(channel: string, opts: { thread?: string } = {}): FakeMessage[] {
      return messages.filter((m) => m.channel === channel && !m.deleted && !m.ephemeralTo && (opts.thread === undefined || m.threadTs === opts.thread || m.ts === opts.thread));
    },
    ephemeralFor(user: string, channel: string): FakeMessage[] {
      return messages.filter((m) => m.channel === channel && !m.deleted && m.ephemeralTo === user);
    },
  };
}
