// Slack surfaces beyond the mention: Share in channel under a private /labbot ask answer, the
// "Ask labbot about this" message shortcut, and the App Home tab. Real Bolt (HTTP mode), Redis
// and Chroma; Slack is the fake Web API.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Labbot } from '../src/app.ts';
import type { FakeSlack } from './helpers/fake-slack.ts';
import { SIGNING_SECRET, type RunningBot } from './helpers/slack-bot.ts';
import { startSlackHarness, type SlackHarness } from './helpers/slack-harness.ts';
import {
  appHomeOpenedEnvelope,
  assistantThreadStartedEnvelope,
  blockActionRequest,
  channelMessageEnvelope,
  dmEnvelope,
  eventRequest,
  messageShortcutRequest,
  post,
  slashRequest,
} from './helpers/slack-request.ts';

const LAB = path.resolve('examples/lab');
const fileConfig = { sources: [{ id: 'lab', type: 'folder', path: LAB }], access: { default: 'public', channels: {} } };
const ASK_SHORTCUT = 'labbot_ask_about_message';

type Blocks = {
  type: string;
  block_id?: string;
  text?: { text: string };
  elements?: { text?: string | { text: string }; action_id?: string; value?: string }[];
}[];
const sections = (blocks: unknown) => ((blocks as Blocks) ?? []).filter((b) => b.type === 'section').map((b) => b.text!.text);

describe('Slack surfaces', () => {
  let app: Labbot;
  let fake: FakeSlack;
  let bot: RunningBot;
  let harness: SlackHarness | undefined;
  beforeAll(async () => {
    harness = await startSlackHarness({ fileConfig });
    ({ app, fake, bot } = harness);
  });
  afterAll(async () => harness?.close());

  it('/labbot ask answers privately with a Share button; the asker shares the same answer, attributed', async () => {
    // The attribution is labbot's own, deliberate mention of the asker.
    fake.allowMentions('<@USHARER>');
    await post(
      bot.url,
      slashRequest(SIGNING_SECRET, {
        text: 'ask How long is the TRIzol incubation?',
        channel: 'CSHARE',
        user: 'USHARER',
        responseUrl: fake.responseUrl('share-ask'),
      }),
    );
    const priv = await fake.waitFor(() => fake.responses.find((r) => r.id === 'share-ask'));
    expect(priv.body.response_type).toBe('ephemeral');
    const share = (priv.body.blocks as Blocks).flatMap((b) => b.elements ?? []).find((e) => e.action_id === 'labbot_share');
    expect(share?.value).toBeTruthy();

    await post(
      bot.url,
      blockActionRequest(SIGNING_SECRET, {
        actionId: 'labbot_share',
        value: share!.value!,
        user: 'UOTHER',
        channel: 'CSHARE',
        responseUrl: fake.responseUrl('share-other'),
      }),
    );
    const other = await fake.waitFor(() => fake.responses.find((r) => r.id === 'share-other'));
    expect(other.body.response_type).toBe('ephemeral');
    expect(String(other.body.text)).toMatch(/Only the person who asked/);

    await post(
      bot.url,
      blockActionRequest(SIGNING_SECRET, {
        actionId: 'labbot_share',
        value: share!.value!,
        user: 'USHARER',
        channel: 'CSHARE',
        responseUrl: fake.responseUrl('share-click'),
      }),
    );
    const pub = await fake.waitFor(() => fake.responses.find((r) => r.id === 'share-click'));
    expect(pub.body.response_type).toBe('in_channel');
    expect(pub.body.replace_original).toBe(false);
    expect(sections(pub.body.blocks)).toEqual(sections(priv.body.blocks));
    expect(JSON.stringify(pub.body.blocks)).toContain('<@USHARER> asked: How long is the TRIzol incubation?');
    // The shared copy has the vote buttons, not another Share button.
    expect(JSON.stringify(pub.body.blocks)).toContain('labbot_feedback_up');
    expect(JSON.stringify(pub.body.blocks)).not.toContain('labbot_share');

    await post(
      bot.url,
      blockActionRequest(SIGNING_SECRET, {
        actionId: 'labbot_share',
        value: 'unknown-id',
        user: 'USHARER',
        responseUrl: fake.responseUrl('share-gone'),
      }),
    );
    expect(String((await fake.waitFor(() => fake.responses.find((r) => r.id === 'share-gone'))).body.text)).toMatch(/too old/);
  });

  it('"Ask labbot about this" takes the message as the question and answers in its thread', async () => {
    const ts = '1700007000.000100';
    const res = await post(
      bot.url,
      messageShortcutRequest(SIGNING_SECRET, {
        callbackId: ASK_SHORTCUT,
        text: 'How long is the TRIzol incubation?',
        channel: 'CSHORT',
        ts,
        user: 'USC',
        responseUrl: fake.responseUrl('sc1'),
      }),
    );
    expect(res.status).toBe(200);
    const update = await fake.waitFor(() => fake.callsOf('chat.postMessage').find((c) => c.body.channel === 'CSHORT'));
    expect(update.body.thread_ts).toBe(ts);
    expect(JSON.stringify(update.body.blocks)).toMatch(/\[S\d+\]/);
    const recent = await bot.activity.recent(20);
    expect(recent.find((r) => r.user === 'USC')?.question).toBe('How long is the TRIzol incubation?');
  });

  it('the shortcut where labbot is not a member answers the asker privately on response_url', async () => {
    for (let i = 0; i < 3; i++) fake.failNext('chat.postMessage', { error: 'not_in_channel' });
    await post(
      bot.url,
      messageShortcutRequest(SIGNING_SECRET, {
        callbackId: ASK_SHORTCUT,
        text: 'How do I book the confocal microscope?',
        channel: 'CNOTIN',
        ts: '1700007100.000100',
        responseUrl: fake.responseUrl('sc-notin'),
      }),
    );
    const reply = await fake.waitFor(() => fake.responses.find((r) => r.id === 'sc-notin'));
    expect(reply.body.response_type).toBe('ephemeral');
    expect(JSON.stringify(reply.body.blocks)).toMatch(/\[S\d+\]/);
  });

  it('App Home: a member sees what labbot knows in words, example questions and links to their own recent threads; not the index internals', async () => {
    await post(
      bot.url,
      eventRequest(SIGNING_SECRET, dmEnvelope({ text: 'How long is the TRIzol incubation? <!channel>', channel: 'DHOME', user: 'UHOME' })),
    );
    await post(
      bot.url,
      eventRequest(SIGNING_SECRET, dmEnvelope({ text: 'What is the secret of someone else?', channel: 'DHOME2', user: 'UELSE' })),
    );
    await fake.waitFor(
      () =>
        fake.callsOf('chat.postMessage').find((c) => c.body.channel === 'DHOME') &&
        fake.callsOf('chat.postMessage').find((c) => c.body.channel === 'DHOME2'),
    );
    const asked = fake.calls.find((c) => c.method === 'chat.postMessage' && c.body.channel === 'DHOME')!.body.thread_ts as string;
    await post(bot.url, eventRequest(SIGNING_SECRET, appHomeOpenedEnvelope({ user: 'UHOME' })));
    const pub = await fake.waitFor(() => fake.callsOf('views.publish').find((c) => c.body.user_id === 'UHOME'));
    const view = (typeof pub.body.view === 'string' ? JSON.parse(pub.body.view) : pub.body.view) as { type: string; blocks: Blocks };
    expect(view.type).toBe('home');
    const text = sections(view.blocks).join('\n');
    expect(text).toContain('/labbot ask');
    // What labbot knows, in words, over what this member may read.
    const kinds = app.catalog.stats().bySource.lab.byKind;
    expect(text).toContain(`*lab*: ${kinds.paper!.documents} papers, ${kinds.protocol!.documents} protocols, 1 slide deck and`);
    expect(text).toMatch(/\d+ wiki pages/);
    // Example questions name this lab's own material.
    expect(text).toMatch(/\*Try asking\*\n• What are the steps of the protocol “/);
    // Their own question, linked to its thread; nobody else's; nothing that pings.
    expect(text).toContain(`<https://lab.slack.com/archives/DHOME/p${asked.replace('.', '')}|How long is the TRIzol incubation? @channel>`);
    expect(text).not.toContain('<!channel>');
    expect(text).not.toContain('secret of someone else');
    // Members do not see the index hash or the queue counters.
    expect(text).not.toContain(app.version);
    expect(text).not.toMatch(/Queue|chunks/);
  });

  it('App Home: an admin also sees the index version, chunks, syncs and the queue', async () => {
    await post(bot.url, eventRequest(SIGNING_SECRET, appHomeOpenedEnvelope({ user: 'UADMIN' })));
    const pub = await fake.waitFor(() => fake.callsOf('views.publish').find((c) => c.body.user_id === 'UADMIN'));
    const view = (typeof pub.body.view === 'string' ? JSON.parse(pub.body.view) : pub.body.view) as { blocks: Blocks };
    const text = sections(view.blocks).join('\n');
    expect(text).toContain('*For admins: the index*');
    expect(text).toContain(app.version);
    expect(text).toMatch(new RegExp(`\\*lab\\*: ${app.catalog.stats().bySource.lab.documents} documents, \\d+ chunks`));
  });
});

describe('Slack AI-app surface: the legacy assistant pane (apps installed with assistant_view)', () => {
  let fake: FakeSlack;
  let bot: RunningBot;
  let harness: SlackHarness | undefined;
  beforeAll(async () => {
    harness = await startSlackHarness({ fileConfig });
    ({ fake, bot } = harness);
  });
  afterAll(async () => harness?.close());

  it('suggests prompts in a new assistant thread, shows a status while searching, and posts the offline answer at once', async () => {
    fake.conversation.appView = 'assistant';
    const root = '1700008000.000100';
    await post(bot.url, eventRequest(SIGNING_SECRET, assistantThreadStartedEnvelope({ user: 'UAI', channel: 'DAI', threadTs: root })));
    const prompts = await fake.waitFor(() => fake.callsOf('assistant.threads.setSuggestedPrompts')[0]);
    expect(prompts.body.channel_id).toBe('DAI');
    expect(prompts.body.thread_ts).toBe(root);
    const list = (typeof prompts.body.prompts === 'string' ? JSON.parse(prompts.body.prompts) : prompts.body.prompts) as {
      title: string;
      message: string;
    }[];
    expect(list.length).toBeGreaterThan(0);

    fake.threads.set(`DAI:${root}`, [{ ts: root, user: 'UAI', text: 'Chats from 2026-12-01', subtype: 'assistant_app_thread' } as never]);
    await post(
      bot.url,
      eventRequest(
        SIGNING_SECRET,
        channelMessageEnvelope({
          text: 'How long is the TRIzol incubation?',
          channel: 'DAI',
          channelType: 'im',
          user: 'UAI',
          threadTs: root,
        }),
      ),
    );
    const answer = await fake.waitFor(() => fake.callsOf('chat.postMessage').find((c) => c.body.channel === 'DAI'));
    const status = fake.callsOf('assistant.threads.setStatus').filter((c) => c.body.channel_id === 'DAI');
    expect(status).toHaveLength(1);
    expect(status[0].body.thread_ts).toBe(root);
    expect(String(status[0].body.status)).toMatch(/searching the lab’s papers/);
    expect(status[0].at).toBeLessThan(answer.at);
    // No placeholder to replace: the extractive answer is the first and only message, in the thread.
    expect(answer.body.thread_ts).toBe(root);
    expect(JSON.stringify(answer.body.blocks)).toMatch(/\[S\d+\]/);
    expect(fake.callsOf('chat.update').filter((c) => c.body.channel === 'DAI')).toEqual([]);
    expect(fake.callsOf('chat.startStream')).toEqual([]);
    expect(fake.conversation.prompts.get(`DAI:${root}`)).toEqual(list);
    // Slack's thread title is not a turn of the conversation.
    const record = (await bot.activity.recent(10)).find((r) => r.user === 'UAI');
    expect(record?.searchedAs ?? record?.question).toBe('How long is the TRIzol incubation?');
  });
});
