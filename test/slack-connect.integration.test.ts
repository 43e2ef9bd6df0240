// Slack Connect decided from Slack itself (conversations.info, cached, invalidated by
// channel_shared / channel_unshared) on every way in: a mention, a thread reply, a DM, /labbot ask,
// the message shortcut and Share, in channels labbot has never had an event from. Real Bolt, Redis
// and Chroma with the sample corpus; Slack is the strict fake.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Labbot } from '../src/app.ts';
import type { FakeSlack, SlackCall } from './helpers/fake-slack.ts';
import { SIGNING_SECRET, startTestBot, type RunningBot } from './helpers/slack-bot.ts';
import { startSlackHarness, type SlackHarness } from './helpers/slack-harness.ts';
import { waitFor } from './helpers/wait.ts';
import {
  blockActionRequest,
  channelMessageEnvelope,
  channelSharingEnvelope,
  dmEnvelope,
  eventRequest,
  mentionEnvelope,
  messageShortcutRequest,
  post,
  slashRequest,
} from './helpers/slack-request.ts';

const LAB = path.resolve('examples/lab');
// CPI* channels may read pi-only; the renewal code word (NIGHTJAR) is pi-only.
const PI = ['CPI1', 'CPI2', 'CPI3', 'CPIPUB', 'CPIPUB2'];
const fileConfig = {
  sources: [{ id: 'lab', type: 'folder', path: LAB }],
  access: { default: 'public', channels: Object.fromEntries(PI.map((c) => [c, ['pi-only']])) },
};
const QUESTION = 'What is the renewal code word?';
const REFUSED = /shared with another organisation/;
const UNCHECKED = /could not check whether this conversation is shared/;

const shown = (c: { body: Record<string, unknown> }) => JSON.stringify([c.body.text, c.body.blocks ?? []]);
const inChannel = (fake: FakeSlack, method: string, channel: string) => fake.callsOf(method).filter((c) => c.body.channel === channel);
const infoCalls = (fake: FakeSlack, channel: string) => fake.callsOf('conversations.info').filter((c) => c.body.channel === channel);
const shareValue = (body: Record<string, unknown>) =>
  ((body.blocks ?? []) as { elements?: { action_id?: string; value?: string }[] }[])
    .flatMap((b) => b.elements ?? [])
    .find((e) => e.action_id === 'labbot_share')?.value;

describe('Slack Connect is decided from conversations.info on every way in', () => {
  let harness: SlackHarness | undefined;
  let app: Labbot;
  let fake: FakeSlack;
  let bot: RunningBot;
  const extra: RunningBot[] = [];
  const shared = (channel: string) => fake.conversations.set(channel, { is_shared: true, is_ext_shared: true });

  beforeAll(async () => {
    harness = await startSlackHarness({ fileConfig });
    ({ app, fake, bot } = harness);
  });
  afterAll(async () => {
    for (const b of extra) await b.close().catch(() => undefined);
    await harness?.close();
  });
  const respond = (id: string) => fake.waitFor(() => fake.responses.find((r) => r.id === id));

  it('/labbot ask in a fresh shared channel is refused, and nothing is answered or recorded (the reported bypass)', async () => {
    shared('CFRESH1');
    const before = (await bot.activity.recent(200)).length;
    await post(
      bot.url,
      slashRequest(SIGNING_SECRET, { text: `ask ${QUESTION}`, channel: 'CFRESH1', responseUrl: fake.responseUrl('fresh-ask') }),
    );
    const r = await respond('fresh-ask');
    expect(String(r.body.text)).toMatch(REFUSED);
    expect(shareValue(r.body)).toBeUndefined();
    expect(shown(r)).not.toMatch(/\[S\d|NIGHTJAR/);
    expect((await bot.activity.recent(200)).length).toBe(before);
    expect(infoCalls(fake, 'CFRESH1').length).toBeGreaterThanOrEqual(1);
  });

  it('a mention whose envelope carries no flag, and the message shortcut, are refused in a shared channel never seen before', async () => {
    shared('CFRESH2');
    const env = mentionEnvelope({ text: 'How long is the TRIzol incubation?', channel: 'CFRESH2' });
    delete env.is_ext_shared_channel;
    await post(bot.url, eventRequest(SIGNING_SECRET, env));
    const refusal = await fake.waitFor(() => inChannel(fake, 'chat.postMessage', 'CFRESH2')[0]);
    expect(String(refusal.body.text)).toMatch(REFUSED);
    expect(inChannel(fake, 'chat.update', 'CFRESH2')).toEqual([]);

    shared('CFRESH3');
    await post(
      bot.url,
      messageShortcutRequest(SIGNING_SECRET, {
        callbackId: 'labbot_ask_about_message',
        text: QUESTION,
        channel: 'CFRESH3',
        ts: '1700007000.000100',
        responseUrl: fake.responseUrl('fresh-sc'),
      }),
    );
    const sc = await fake.waitFor(() => inChannel(fake, 'chat.postMessage', 'CFRESH3')[0]);
    expect(String(sc.body.text)).toMatch(REFUSED);
    expect(sc.body.thread_ts).toBe('1700007000.000100');
    expect(shown(sc)).not.toMatch(/NIGHTJAR|\[S\d/);
  });

  it('a direct message in a conversation Slack reports as externally shared is refused', async () => {
    fake.conversations.set('DEXT1', { is_ext_shared: true });
    await post(
      bot.url,
      eventRequest(SIGNING_SECRET, dmEnvelope({ text: 'How long is the TRIzol incubation?', channel: 'DEXT1', user: 'UEXTERNAL' })),
    );
    const refusal = await fake.waitFor(() => inChannel(fake, 'chat.postMessage', 'DEXT1')[0]);
    expect(String(refusal.body.text)).toMatch(REFUSED);
    expect(inChannel(fake, 'chat.update', 'DEXT1')).toEqual([]);
  });

  it('Share is refused once the channel is shared, though it was internal when the private answer was given', async () => {
    await post(
      bot.url,
      slashRequest(SIGNING_SECRET, { text: `ask ${QUESTION}`, channel: 'CPI1', responseUrl: fake.responseUrl('later-ask') }),
    );
    const priv = await respond('later-ask');
    expect(shown(priv)).toMatch(/NIGHTJAR/);
    const value = shareValue(priv.body);
    expect(value).toBeDefined();
    // Shared since, and labbot missed the channel_shared event: Share asks Slack at the click.
    shared('CPI1');
    await post(
      bot.url,
      blockActionRequest(SIGNING_SECRET, {
        actionId: 'labbot_share',
        value: value!,
        channel: 'CPI1',
        responseUrl: fake.responseUrl('later-share'),
      }),
    );
    const r = await respond('later-share');
    expect(r.body.response_type).toBe('ephemeral');
    expect(String(r.body.text)).toMatch(REFUSED);
    expect(fake.responses.filter((x) => x.id === 'later-share' && x.body.response_type === 'in_channel')).toEqual([]);
    expect(inChannel(fake, 'chat.postMessage', 'CPI1').filter((c) => shown(c).includes('NIGHTJAR'))).toEqual([]);
  });

  /** Asks with /labbot ask until the private response matches (an event is handled after its 200). */
  const askUntil = async (channel: string, tag: string, match: (text: string) => boolean) => {
    let n = 0;
    return waitFor(
      async () => {
        const id = `${tag}-${++n}`;
        await post(bot.url, slashRequest(SIGNING_SECRET, { text: `ask ${QUESTION}`, channel, responseUrl: fake.responseUrl(id) }));
        const r = await respond(id);
        return match(shown(r)) ? r : undefined;
      },
      15_000,
      tag,
    );
  };

  it('channel_shared turns a cached "internal" into "shared" at once; channel_unshared makes labbot ask Slack again', async () => {
    await askUntil('CPI2', 'cycle-a', (t) => t.includes('NIGHTJAR'));
    await askUntil('CPI2', 'cycle-b', (t) => t.includes('NIGHTJAR'));
    expect(infoCalls(fake, 'CPI2')).toHaveLength(1); // the second answer used the cached verdict
    await post(bot.url, eventRequest(SIGNING_SECRET, channelSharingEnvelope({ type: 'channel_shared', channel: 'CPI2' })));
    await askUntil('CPI2', 'cycle-c', (t) => REFUSED.test(t));
    expect(infoCalls(fake, 'CPI2')).toHaveLength(1); // the event decided it, not a new lookup
    await post(bot.url, eventRequest(SIGNING_SECRET, channelSharingEnvelope({ type: 'channel_unshared', channel: 'CPI2' })));
    // Slack (the fake) reports it internal again: answered, from a new lookup.
    await askUntil('CPI2', 'cycle-d', (t) => t.includes('NIGHTJAR'));
    expect(infoCalls(fake, 'CPI2')).toHaveLength(2);
  });

  it('fails closed: a lookup that fails refuses on every path and says labbot could not check', async () => {
    for (const ch of ['CFAIL1', 'CFAIL2', 'DFAIL3'])
      fake.conversations.set(ch, { error: ch === 'CFAIL2' ? 'missing_scope' : 'channel_not_found' });
    await post(
      bot.url,
      slashRequest(SIGNING_SECRET, { text: `ask ${QUESTION}`, channel: 'CFAIL1', responseUrl: fake.responseUrl('fail-ask') }),
    );
    expect(String((await respond('fail-ask')).body.text)).toMatch(UNCHECKED);
    await post(bot.url, eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'How long is the TRIzol incubation?', channel: 'CFAIL2' })));
    const m = await fake.waitFor(() => inChannel(fake, 'chat.postMessage', 'CFAIL2')[0]);
    expect(String(m.body.text)).toMatch(UNCHECKED);
    await post(
      bot.url,
      slashRequest(SIGNING_SECRET, { text: `ask ${QUESTION}`, channel: 'DFAIL3', responseUrl: fake.responseUrl('fail-dm') }),
    );
    expect(String((await respond('fail-dm')).body.text)).toMatch(UNCHECKED);
    for (const id of ['fail-ask', 'fail-dm']) expect(shown(fake.responses.find((r) => r.id === id)!)).not.toMatch(/\[S\d|NIGHTJAR/);
  });

  it('counts a pending external share and unexplained sharing, not sharing inside the organisation (Enterprise Grid)', async () => {
    fake.conversations.set('CPENDING', { is_pending_ext_shared: true, pending_connected_team_ids: ['TOTHER'] });
    fake.conversations.set('CUNKNOWN', { is_shared: true });
    fake.conversations.set('CORG', { is_shared: true, is_org_shared: true });
    for (const ch of ['CPENDING', 'CUNKNOWN', 'CORG']) {
      await post(
        bot.url,
        slashRequest(SIGNING_SECRET, {
          text: 'ask How long is the TRIzol incubation?',
          channel: ch,
          responseUrl: fake.responseUrl(`kind-${ch}`),
        }),
      );
    }
    expect(String((await respond('kind-CPENDING')).body.text)).toMatch(REFUSED);
    expect(String((await respond('kind-CUNKNOWN')).body.text)).toMatch(REFUSED);
    expect(shown(await respond('kind-CORG'))).toMatch(/\[S\d/);
  });

  it('with "slackConnect": "public", answers from public material only, and Share of an earlier restricted answer is refused', async () => {
    const b = await startTestBot(app, { config: { ...app.config, slackConnect: 'public' } });
    extra.push(b);
    fake.conversations.set('CPIPUB', { is_shared: true, is_ext_shared: true });
    await post(
      b.url,
      slashRequest(SIGNING_SECRET, { text: `ask ${QUESTION}`, channel: 'CPIPUB', responseUrl: fake.responseUrl('pub-ask') }),
    );
    const r = await respond('pub-ask');
    expect(shown(r)).not.toMatch(/NIGHTJAR/);
    // A private answer that read pi-only, then the channel is shared: Share may not post it.
    await post(
      b.url,
      slashRequest(SIGNING_SECRET, { text: `ask ${QUESTION}`, channel: 'CPIPUB2', responseUrl: fake.responseUrl('pub-ask2') }),
    );
    const priv = await respond('pub-ask2');
    expect(shown(priv)).toMatch(/NIGHTJAR/);
    fake.conversations.set('CPIPUB2', { is_shared: true, is_ext_shared: true });
    await post(
      b.url,
      blockActionRequest(SIGNING_SECRET, {
        actionId: 'labbot_share',
        value: shareValue(priv.body)!,
        channel: 'CPIPUB2',
        responseUrl: fake.responseUrl('pub-share'),
      }),
    );
    const s = await respond('pub-share');
    expect(s.body.response_type).toBe('ephemeral');
    expect(shown(s)).not.toMatch(/NIGHTJAR/);
    expect(String(s.body.text)).toMatch(/shared with another organisation now/);
  });

  it('a thread reply in a channel shared since labbot answered there is refused, with no flag on the event', async () => {
    const parent = '1700007100.000100';
    await post(
      bot.url,
      eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'How long is the TRIzol incubation?', channel: 'CPI3', ts: parent })),
    );
    await fake.waitFor(() => inChannel(fake, 'chat.postMessage', 'CPI3')[0]);
    // The channel is shared since; labbot heard channel_shared (the reply's envelope carries no flag).
    await post(bot.url, eventRequest(SIGNING_SECRET, channelSharingEnvelope({ type: 'channel_shared', channel: 'CPI3' })));
    await askUntil('CPI3', 'thread', (t) => REFUSED.test(t));
    const reply = channelMessageEnvelope({ text: `and ${QUESTION}`, channel: 'CPI3', threadTs: parent });
    await post(bot.url, eventRequest(SIGNING_SECRET, reply));
    const refusal = await fake.waitFor(() => inChannel(fake, 'chat.postMessage', 'CPI3').find((c) => REFUSED.test(String(c.body.text))));
    expect(refusal.body.thread_ts).toBe(parent);
    // One answer (to the mention) and the refusal: the reply got no answer.
    expect(inChannel(fake, 'chat.postMessage', 'CPI3').filter((c) => !REFUSED.test(String(c.body.text)))).toHaveLength(1);
    expect(JSON.stringify(fake.calls.filter((c: SlackCall) => c.body.channel === 'CPI3'))).not.toMatch(/NIGHTJAR/);
  });
});
