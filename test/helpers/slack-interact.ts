// A user's interactions as Slack delivers them, against the fake Slack's conversation state: a
// slash command (its response_url knows who ran it where, and the HTTP body of the ack is shown
// as Slack shows it, an ephemeral message), and a click on a button of a message the fake holds
// (its response_url acts on that message, its payload names it as Slack's does).
import { randomUUID } from 'node:crypto';
import type { FakeMessage, FakeSlack } from './fake-slack.ts';
import { SIGNING_SECRET } from './slack-bot.ts';
import { post, sign, slashRequest } from './slack-request.ts';

export interface SlashRun {
  status: number;
  /** The acknowledgement's HTTP body ('' for an empty ack). */
  ack: string;
  /** The response_url id: fake.responses with this id are the command's posts. */
  id: string;
}

export async function runSlash(
  fake: FakeSlack,
  botUrl: string,
  o: { text: string; channel?: string; user?: string; id?: string },
): Promise<SlashRun> {
  const id = o.id ?? `cmd-${randomUUID()}`;
  const channel = o.channel ?? 'CGENERAL';
  const user = o.user ?? 'UASKER';
  const responseUrl = fake.commandUrl(id, { channel, user });
  const res = await post(botUrl, slashRequest(SIGNING_SECRET, { text: o.text, channel, user, responseUrl }));
  fake.recordAck(id, res.text);
  return { status: res.status, ack: res.text, id };
}

type Element = { type?: string; action_id?: string; value?: string };

/** The value of the button `actionId` in a message's blocks, if it has one. */
export function buttonValue(m: Pick<FakeMessage, 'blocks'>, actionId: string): string | undefined {
  for (const b of (m.blocks ?? []) as { type?: string; elements?: Element[] }[]) {
    const e = b.type === 'actions' ? b.elements?.find((x) => x.action_id === actionId) : undefined;
    if (e) return e.value;
  }
  return undefined;
}

/** Clicks the button `actionId` on a message the fake holds, as `user`; returns the response_url id. */
export async function clickButton(
  fake: FakeSlack,
  botUrl: string,
  m: FakeMessage,
  actionId: string,
  user: string,
  id = `click-${randomUUID()}`,
): Promise<{ status: number; id: string }> {
  const value = buttonValue(m, actionId);
  if (value === undefined) throw new Error(`no ${actionId} button on message ${m.ts}`);
  const responseUrl = fake.actionUrl(id, m, user);
  const payload = {
    type: 'block_actions',
    team: { id: 'T0LAB', domain: 'lab' },
    user: { id: user, username: 'asker', team_id: 'T0LAB' },
    api_app_id: 'A0LAB',
    token: 'legacy',
    container: { type: 'message', message_ts: m.ts, channel_id: m.channel, is_ephemeral: m.ephemeralTo !== undefined },
    trigger_id: `trig.${randomUUID()}`,
    channel: { id: m.channel, name: 'general' },
    ...(m.ephemeralTo ? {} : { message: { type: 'message', ts: m.ts, text: m.text ?? '', bot_id: 'BBOT' } }),
    response_url: responseUrl,
    actions: [
      {
        type: 'button',
        action_id: actionId,
        block_id: 'x',
        value,
        text: { type: 'plain_text', text: 'x' },
        action_ts: String(Date.now() / 1000),
      },
    ],
  };
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const res = await post(botUrl, { body, headers: { 'content-type': 'application/x-www-form-urlencoded', ...sign(SIGNING_SECRET, body) } });
  return { status: res.status, id };
}

/** The text a person reads in a message: its sections and context lines, in order. */
export function shownText(m: Pick<FakeMessage, 'blocks' | 'text'>): string {
  const out: string[] = [];
  for (const b of (m.blocks ?? []) as { type?: string; text?: { text?: string }; elements?: { text?: unknown }[] }[]) {
    if (b.type === 'section' && b.text?.text) out.push(b.text.text);
    else if (b.type === 'context') out.push(...(b.elements ?? []).map((e) => String(e.text ?? '')));
  }
  return out.length ? out.join('\n') : (m.text ?? '');
}

/**
 * A channel as its people see it, for reports: top-level messages in order with their thread
 * replies indented, then what `user` alone sees (ephemeral), and what was deleted.
 */
export function renderConversation(fake: FakeSlack, channel: string, opts: { user?: string; wrap?: number } = {}): string {
  const wrap = opts.wrap ?? 2000;
  const cut = (s: string) => (s.length > wrap ? `${s.slice(0, wrap)}… [${s.length - wrap} more characters]` : s);
  const indent = (s: string, pad: string) =>
    s
      .split('\n')
      .map((l) => `${pad}${l}`)
      .join('\n');
  const buttons = (m: FakeMessage) => {
    const ids = ((m.blocks ?? []) as { type?: string; elements?: Element[] }[])
      .filter((b) => b.type === 'actions')
      .flatMap((b) => (b.elements ?? []).map((e) => e.action_id));
    return ids.length ? ` [buttons: ${ids.join(', ')}]` : '';
  };
  const head = (m: FakeMessage) =>
    `(${m.via}${m.versions.length > 1 ? `, edited ${m.versions.length - 1}×` : ''}, ${shownText(m).length} chars)${buttons(m)}`;
  const out: string[] = [`#${channel}, as everyone sees it:`];
  const top = fake.conversation.visible(channel).filter((m) => !m.threadTs || m.threadTs === m.ts);
  if (!top.length) out.push('  (nothing)');
  for (const m of top) {
    out.push(`  ${head(m)}`, indent(cut(shownText(m)), '  | '));
    for (const r of fake.conversation.visible(channel, { thread: m.ts }).filter((x) => x.ts !== m.ts))
      out.push(`    ↳ in thread ${head(r)}`, indent(cut(shownText(r)), '    | '));
  }
  if (opts.user) {
    out.push(`Only visible to ${opts.user}:`);
    const mine = fake.conversation.ephemeralFor(opts.user, channel);
    if (!mine.length) out.push('  (nothing)');
    for (const m of mine) out.push(`  ${head(m)}`, indent(cut(shownText(m)), '  | '));
    const gone = fake.conversation.messages.filter((m) => m.channel === channel && m.deleted && m.ephemeralTo === opts.user);
    for (const m of gone) out.push(`  deleted: ${head(m)} ${JSON.stringify(shownText(m).slice(0, 80))}…`);
  }
  return out.join('\n');
}
