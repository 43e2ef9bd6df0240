// Correctly signed Slack requests (v0=HMAC-SHA256(secret, "v0:{ts}:{raw body}")) for the Events
// API (JSON), slash commands and block actions (form-encoded), sent to a running server.
import { createHmac, randomUUID } from 'node:crypto';

export interface SignedRequest {
  body: string;
  headers: Record<string, string>;
}

export function sign(secret: string, body: string, timestamp = Math.floor(Date.now() / 1000)): Record<string, string> {
  const sig = `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
  return { 'x-slack-request-timestamp': String(timestamp), 'x-slack-signature': sig };
}

export function eventRequest(
  secret: string,
  envelope: Record<string, unknown>,
  opts: { timestamp?: number; retryNum?: number } = {},
): SignedRequest {
  const body = JSON.stringify(envelope);
  const headers: Record<string, string> = { 'content-type': 'application/json', ...sign(secret, body, opts.timestamp) };
  if (opts.retryNum !== undefined) {
    headers['x-slack-retry-num'] = String(opts.retryNum);
    headers['x-slack-retry-reason'] = 'http_timeout';
  }
  return { body, headers };
}

let seq = 0;

export interface MentionOptions {
  text: string;
  channel?: string;
  user?: string;
  ts?: string;
  threadTs?: string;
  eventId?: string;
  botUserId?: string;
}

/** The event_callback wrapper Slack puts around every Events API event. */
function callbackEnvelope(event: Record<string, unknown>, eventId: string | undefined, bot = 'UBOT'): Record<string, unknown> {
  return {
    token: 'legacy',
    team_id: 'T0LAB',
    api_app_id: 'A0LAB',
    type: 'event_callback',
    event_id: eventId ?? `Ev${randomUUID().replace(/-/g, '').slice(0, 12).toUpperCase()}`,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [{ team_id: 'T0LAB', user_id: bot, is_bot: true }],
    event,
  };
}

/** An app_mention envelope as Slack sends it (event_callback). */
export function mentionEnvelope(o: MentionOptions): Record<string, unknown> {
  seq += 1;
  const ts = o.ts ?? `${Math.floor(Date.now() / 1000)}.${String(900000 + seq).padStart(6, '0')}`;
  const bot = o.botUserId ?? 'UBOT';
  return callbackEnvelope(
    {
      type: 'app_mention',
      user: o.user ?? 'UASKER',
      text: `<@${bot}> ${o.text}`,
      ts,
      channel: o.channel ?? 'CGENERAL',
      event_ts: ts,
      ...(o.threadTs ? { thread_ts: o.threadTs } : {}),
    },
    o.eventId,
    bot,
  );
}

/** A direct message (message.im) envelope. */
export function dmEnvelope(o: {
  text: string;
  user?: string;
  channel?: string;
  eventId?: string;
  botId?: string;
  subtype?: string;
}): Record<string, unknown> {
  seq += 1;
  const ts = `${Math.floor(Date.now() / 1000)}.${String(800000 + seq).padStart(6, '0')}`;
  return callbackEnvelope(
    {
      type: 'message',
      channel_type: 'im',
      channel: o.channel ?? 'DUSER1',
      user: o.user ?? 'UASKER',
      text: o.text,
      ts,
      event_ts: ts,
      ...(o.botId ? { bot_id: o.botId } : {}),
      ...(o.subtype ? { subtype: o.subtype } : {}),
    },
    o.eventId,
  );
}

export function slashRequest(
  secret: string,
  o: { text: string; user?: string; channel?: string; responseUrl: string; command?: string; timestamp?: number },
): SignedRequest {
  const body = new URLSearchParams({
    token: 'legacy',
    team_id: 'T0LAB',
    team_domain: 'lab',
    channel_id: o.channel ?? 'CGENERAL',
    channel_name: 'general',
    user_id: o.user ?? 'UASKER',
    user_name: 'asker',
    command: o.command ?? '/labbot',
    text: o.text,
    api_app_id: 'A0LAB',
    response_url: o.responseUrl,
    trigger_id: `trig.${randomUUID()}`,
  }).toString();
  return { body, headers: { 'content-type': 'application/x-www-form-urlencoded', ...sign(secret, body, o.timestamp) } };
}

export function blockActionRequest(
  secret: string,
  o: { actionId: string; value: string; user?: string; channel?: string; responseUrl: string },
): SignedRequest {
  const payload = {
    type: 'block_actions',
    team: { id: 'T0LAB', domain: 'lab' },
    user: { id: o.user ?? 'UASKER', username: 'asker', team_id: 'T0LAB' },
    api_app_id: 'A0LAB',
    token: 'legacy',
    container: { type: 'message', message_ts: '1700000000.000100', channel_id: o.channel ?? 'CGENERAL', is_ephemeral: false },
    trigger_id: `trig.${randomUUID()}`,
    channel: { id: o.channel ?? 'CGENERAL', name: 'general' },
    message: { type: 'message', ts: '1700000000.000100', text: 'answer', bot_id: 'BBOT' },
    response_url: o.responseUrl,
    actions: [
      {
        type: 'button',
        action_id: o.actionId,
        block_id: 'labbot_feedback',
        value: o.value,
        text: { type: 'plain_text', text: 'x' },
        action_ts: String(Date.now() / 1000),
      },
    ],
  };
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  return { body, headers: { 'content-type': 'application/x-www-form-urlencoded', ...sign(secret, body) } };
}

/** POSTs a signed request; returns status, body and the time to the HTTP response. */
export async function post(url: string, req: SignedRequest): Promise<{ status: number; text: string; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(url, { method: 'POST', headers: req.headers, body: req.body });
  const text = await res.text();
  return { status: res.status, text, ms: performance.now() - t0 };
}

/**
 * A channel message (message.channels / .groups / .mpim, or .im) as Slack sends it; with
 * `threadTs` it is a reply in that thread. `extShared` sets the envelope's is_ext_shared_channel.
 */
export function channelMessageEnvelope(o: {
  text: string;
  channel: string;
  user?: string;
  ts?: string;
  threadTs?: string;
  channelType?: 'channel' | 'group' | 'mpim' | 'im';
  eventId?: string;
  subtype?: string;
  botId?: string;
  extShared?: boolean;
}): Record<string, unknown> {
  seq += 1;
  const ts = o.ts ?? `${Math.floor(Date.now() / 1000)}.${String(700000 + seq).padStart(6, '0')}`;
  const env = callbackEnvelope(
    {
      type: 'message',
      channel_type: o.channelType ?? 'channel',
      channel: o.channel,
      user: o.user ?? 'UASKER',
      text: o.text,
      ts,
      event_ts: ts,
      ...(o.threadTs ? { thread_ts: o.threadTs } : {}),
      ...(o.subtype ? { subtype: o.subtype } : {}),
      ...(o.botId ? { bot_id: o.botId } : {}),
    },
    o.eventId,
  );
  if (o.extShared !== undefined) env.is_ext_shared_channel = o.extShared;
  return env;
}

/** A message shortcut ("Ask labbot about this") on a message, form-encoded like block actions. */
export function messageShortcutRequest(
  secret: string,
  o: { callbackId: string; text: string; channel: string; ts: string; threadTs?: string; user?: string; responseUrl: string },
): SignedRequest {
  const payload = {
    type: 'message_action',
    callback_id: o.callbackId,
    trigger_id: `trig.${randomUUID()}`,
    message_ts: o.ts,
    response_url: o.responseUrl,
    team: { id: 'T0LAB', domain: 'lab' },
    user: { id: o.user ?? 'UASKER', name: 'asker', team_id: 'T0LAB' },
    channel: { id: o.channel, name: 'somewhere' },
    message: { type: 'message', user: 'UOTHER', ts: o.ts, text: o.text, ...(o.threadTs ? { thread_ts: o.threadTs } : {}) },
    token: 'legacy',
    action_ts: String(Date.now() / 1000),
  };
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  return { body, headers: { 'content-type': 'application/x-www-form-urlencoded', ...sign(secret, body) } };
}

/** app_home_opened for the Home tab. */
export function appHomeOpenedEnvelope(o: { user: string; tab?: 'home' | 'messages' }): Record<string, unknown> {
  return callbackEnvelope(
    { type: 'app_home_opened', user: o.user, channel: `D${o.user.slice(1)}`, tab: o.tab ?? 'home', event_ts: String(Date.now() / 1000) },
    undefined,
  );
}

/** assistant_thread_started: a user opened a new thread with the app in Slack's AI-app surface. */
export function assistantThreadStartedEnvelope(o: { user: string; channel: string; threadTs: string }): Record<string, unknown> {
  return callbackEnvelope(
    {
      type: 'assistant_thread_started',
      assistant_thread: {
        user_id: o.user,
        context: { channel_id: 'CGENERAL', team_id: 'T0LAB', enterprise_id: null },
        channel_id: o.channel,
        thread_ts: o.threadTs,
      },
      event_ts: String(Date.now() / 1000),
    },
    undefined,
  );
}

/** A click on Slack's native feedback buttons (a feedback_buttons element in a context_actions block). */
export function feedbackButtonsRequest(
  secret: string,
  o: { value: string; user?: string; channel?: string; messageTs?: string; responseUrl: string; actionId?: string },
): SignedRequest {
  const ts = o.messageTs ?? '1700000000.000100';
  const payload = {
    type: 'block_actions',
    team: { id: 'T0LAB', domain: 'lab' },
    user: { id: o.user ?? 'UASKER', username: 'asker', team_id: 'T0LAB' },
    api_app_id: 'A0LAB',
    token: 'legacy',
    container: { type: 'message', message_ts: ts, channel_id: o.channel ?? 'CGENERAL', is_ephemeral: false },
    trigger_id: `trig.${randomUUID()}`,
    channel: { id: o.channel ?? 'CGENERAL', name: 'general' },
    message: { type: 'message', ts, text: 'answer', bot_id: 'BBOT' },
    response_url: o.responseUrl,
    actions: [
      {
        type: 'feedback_buttons',
        action_id: o.actionId ?? 'labbot_feedback',
        block_id: 'Xy1Z',
        value: o.value,
        text: { type: 'plain_text', text: o.value.startsWith('up:') ? '👍' : '👎' },
        action_ts: String(Date.now() / 1000),
      },
    ],
  };
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  return { body, headers: { 'content-type': 'application/x-www-form-urlencoded', ...sign(secret, body) } };
}

/** A person edited a message (message_changed), as Slack sends it on the message.* subscriptions. */
export function messageChangedEnvelope(o: {
  channel: string;
  ts: string;
  text: string;
  previousText: string;
  user?: string;
  threadTs?: string;
  channelType?: 'channel' | 'group' | 'mpim' | 'im';
}): Record<string, unknown> {
  const user = o.user ?? 'UASKER';
  const now = `${Math.floor(Date.now() / 1000)}.000${String(++seq).padStart(3, '0')}`;
  const thread = o.threadTs ? { thread_ts: o.threadTs } : {};
  return callbackEnvelope(
    {
      type: 'message',
      subtype: 'message_changed',
      hidden: true,
      channel: o.channel,
      channel_type: o.channelType ?? 'channel',
      ts: now,
      event_ts: now,
      message: { type: 'message', user, text: o.text, ts: o.ts, ...thread, edited: { user, ts: now } },
      previous_message: { type: 'message', user, text: o.previousText, ts: o.ts, ...thread },
    },
    undefined,
  );
}

/** A person deleted a message (message_deleted). */
export function messageDeletedEnvelope(o: {
  channel: string;
  ts: string;
  text?: string;
  user?: string;
  threadTs?: string;
  channelType?: 'channel' | 'group' | 'mpim' | 'im';
}): Record<string, unknown> {
  const now = `${Math.floor(Date.now() / 1000)}.000${String(++seq).padStart(3, '0')}`;
  return callbackEnvelope(
    {
      type: 'message',
      subtype: 'message_deleted',
      hidden: true,
      channel: o.channel,
      channel_type: o.channelType ?? 'channel',
      ts: now,
      event_ts: now,
      deleted_ts: o.ts,
      previous_message: {
        type: 'message',
        user: o.user ?? 'UASKER',
        text: o.text ?? '',
        ts: o.ts,
        ...(o.threadTs ? { thread_ts: o.threadTs } : {}),
      },
    },
    undefined,
  );
}

/** app_context_changed (agent view): the user moved around Slack with labbot's conversation open. */
export function appContextChangedEnvelope(o: { user: string; channel: string; viewing?: string }): Record<string, unknown> {
  return callbackEnvelope(
    {
      type: 'app_context_changed',
      user: o.user,
      channel: o.channel,
      context: o.viewing ? { entities: [{ type: 'slack#/types/channel_id', value: o.viewing, team_id: 'T0LAB' }] } : {},
      event_ts: String(Date.now() / 1000),
    },
    undefined,
  );
}

/** channel_shared / channel_unshared: a channel was shared with (or unshared from) another organisation. */
export function channelSharingEnvelope(o: {
  type: 'channel_shared' | 'channel_unshared';
  channel: string;
  team?: string;
}): Record<string, unknown> {
  const event: Record<string, unknown> = { type: o.type, channel: o.channel, event_ts: String(Date.now() / 1000) };
  if (o.type === 'channel_shared') event.connected_team_id = o.team ?? 'TOTHERORG';
  else Object.assign(event, { previously_connected_team_id: o.team ?? 'TOTHERORG', is_ext_shared: false });
  return callbackEnvelope(event, undefined);
}
