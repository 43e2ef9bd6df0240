// Slack's agent experience (features.agent_view, the default for new apps): labbot's DM is the
// conversation; opening it (app_home_opened, tab "messages") and moving around Slack with it open
// (app_context_changed) set suggested prompts for the DM, without a thread_ts; prompts come from
// the lab's config or from what is indexed; a workspace still on the legacy pane keeps its
// assistant threads. Progress is a status line, or a reaction where Slack refuses one. Real Bolt,
// Redis and Chroma; Slack is the strict fake.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Labbot } from '../src/app.ts';
import type { FakeSlack } from './helpers/fake-slack.ts';
import { waitForPost } from './helpers/slack-answers.ts';
import { SIGNING_SECRET, startTestBot, type RunningBot } from './helpers/slack-bot.ts';
import { startSlackHarness, type SlackHarness } from './helpers/slack-harness.ts';
import {
  appContextChangedEnvelope,
  appHomeOpenedEnvelope,
  assistantThreadStartedEnvelope,
  channelMessageEnvelope,
  dmEnvelope,
  eventRequest,
  mentionEnvelope,
  post,
} from './helpers/slack-request.ts';

const LAB = path.resolve('examples/lab');
const fileConfig = { sources: [{ id: 'lab', type: 'folder', path: LAB }], access: { default: 'public', channels: {}, users: {} } };

const promptsOf = (body: Record<string, unknown>) =>
  (typeof body.prompts === 'string' ? JSON.parse(body.prompts) : body.prompts) as { title: string; message: string }[];

describe('Slack agent experience', () => {
  let app: Labbot;
  let fake: FakeSlack;
  let bot: RunningBot;
  let harness: SlackHarness | undefined;
  beforeAll(async () => {
    harness = await startSlackHarness({ fileConfig });
    ({ app, fake, bot } = harness);
  });
  afterAll(async () => harness?.close());
  const promptCalls = (channel: string) =>
    fake.callsOf('assistant.threads.setSuggestedPrompts').filter((c) => c.body.channel_id === channel);

  it('opening labbot’s DM sets prompts for the DM (no thread_ts), naming this lab’s own documents', async () => {
    await post(bot.url, eventRequest(SIGNING_SECRET, appHomeOpenedEnvelope({ user: 'UAG1', tab: 'messages' })));
    const call = await fake.waitFor(() => promptCalls('DAG1')[0]);
    expect(call.body.thread_ts).toBeUndefined();
    const prompts = promptsOf(call.body);
    expect(prompts.length).toBeGreaterThan(0);
    expect(prompts.length).toBeLessThanOrEqual(4);
    await fake.waitFor(() => fake.conversation.prompts.get('DAG1'));
    expect(fake.conversation.prompts.get('DAG1')).toEqual(prompts);
    const titles = [...app.catalog.docs()].filter((d) => d.access === 'public').map((d) => d.title);
    expect(prompts.every((p) => titles.some((t) => p.message.includes(t.slice(0, 20))))).toBe(true);
    expect(JSON.stringify(prompts)).not.toMatch(/confocal/);
    // Nothing restricted shows up in a prompt.
    expect(JSON.stringify(prompts)).not.toMatch(/grant|budget/i);
  });

  it('uses the lab’s configured prompts when labbot.config.json has them', async () => {
    const mine = [{ title: 'Freezer map', message: 'Where is box AB-07?' }];
    const b = await startTestBot(app, { config: { ...app.config, suggestedPrompts: mine } });
    try {
      await post(b.url, eventRequest(SIGNING_SECRET, appHomeOpenedEnvelope({ user: 'UAG2', tab: 'messages' })));
      const call = await fake.waitFor(() => promptCalls('DAG2')[0]);
      expect(promptsOf(call.body)).toEqual(mine);
    } finally {
      await b.close();
    }
  });

  it('app_context_changed keeps the DM’s prompts, at most once in a while per user', async () => {
    await post(bot.url, eventRequest(SIGNING_SECRET, appContextChangedEnvelope({ user: 'UAG3', channel: 'DAG3', viewing: 'CGENERAL' })));
    await fake.waitFor(() => promptCalls('DAG3')[0]);
    await post(bot.url, eventRequest(SIGNING_SECRET, appContextChangedEnvelope({ user: 'UAG3', channel: 'DAG3', viewing: 'CRANDOM' })));
    await post(
      bot.url,
      eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'How long do we block the membrane?', channel: 'CAGBARRIER' })),
    );
    await waitForPost(fake, 'CAGBARRIER');
    expect(promptCalls('DAG3')).toHaveLength(1);
    expect(promptCalls('DAG3')[0].body.thread_ts).toBeUndefined();
  });

  it('a DM question in the agent view: a status line with loading messages under it, then the answer in its thread', async () => {
    const env = dmEnvelope({ text: 'How long do we block the membrane?', channel: 'DAG4', user: 'UAG4' });
    const ts = (env.event as { ts: string }).ts;
    await post(bot.url, eventRequest(SIGNING_SECRET, env));
    const answer = await waitForPost(fake, 'DAG4');
    const status = fake.callsOf('assistant.threads.setStatus').find((c) => c.body.channel_id === 'DAG4')!;
    expect(status.body.thread_ts).toBe(ts);
    const loading = (
      typeof status.body.loading_messages === 'string' ? JSON.parse(status.body.loading_messages) : status.body.loading_messages
    ) as string[];
    expect(loading.length).toBeGreaterThan(0);
    expect(loading.length).toBeLessThanOrEqual(10);
    expect(status.at).toBeLessThan(answer.at);
    expect(answer.body.thread_ts).toBe(ts);
    await fake.waitFor(() => !fake.conversation.statuses.has(`DAG4:${ts}`));
  });

  it('where Slack refuses a status line, an ⏳ reaction on the question shows labbot at work and goes with the answer', async () => {
    const b = await startTestBot(app);
    try {
      fake.failNext('assistant.threads.setStatus', { error: 'not_allowed_token_type' });
      const env = mentionEnvelope({ text: 'How long do we block the membrane?', channel: 'CREACT' });
      const ts = (env.event as { ts: string }).ts;
      await post(b.url, eventRequest(SIGNING_SECRET, env));
      const answer = await waitForPost(fake, 'CREACT');
      const added = fake.callsOf('reactions.add').find((c) => c.body.channel === 'CREACT')!;
      expect(added.body).toMatchObject({ timestamp: ts, name: 'hourglass_flowing_sand' });
      expect(added.at).toBeLessThan(answer.at);
      await fake.waitFor(() => fake.callsOf('reactions.remove').find((c) => c.body.channel === 'CREACT'));
      await fake.waitFor(() => (fake.conversation.reactions.get(`CREACT:${ts}`)?.size ?? 0) === 0);
      // The refusal is remembered: the next channel question goes straight to the reaction.
      await post(b.url, eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'How long do we block the membrane?', channel: 'CREACT2' })));
      await waitForPost(fake, 'CREACT2');
      expect(fake.callsOf('assistant.threads.setStatus').filter((c) => c.body.channel_id === 'CREACT2')).toEqual([]);
      expect(fake.callsOf('reactions.add').filter((c) => c.body.channel === 'CREACT2')).toHaveLength(1);
    } finally {
      await b.close();
    }
  });

  it('the legacy pane keeps working: assistant_thread_started sets prompts for its thread, and its Messages tab is left alone', async () => {
    fake.conversation.appView = 'assistant';
    try {
      const root = '1700200000.000100';
      await post(bot.url, eventRequest(SIGNING_SECRET, assistantThreadStartedEnvelope({ user: 'UAG5', channel: 'DAG5', threadTs: root })));
      const call = await fake.waitFor(() => promptCalls('DAG5')[0]);
      expect(call.body.thread_ts).toBe(root);
      await post(
        bot.url,
        eventRequest(
          SIGNING_SECRET,
          channelMessageEnvelope({
            text: 'How long do we block the membrane?',
            channel: 'DAG5',
            channelType: 'im',
            user: 'UAG5',
            threadTs: root,
          }),
        ),
      );
      const answer = await waitForPost(fake, 'DAG5');
      expect(answer.body.thread_ts).toBe(root);
      await fake.waitFor(() => fake.conversation.prompts.get(`DAG5:${root}`));
      // The same workspace opening a Messages tab: no DM-wide prompts on top of the pane.
      await post(bot.url, eventRequest(SIGNING_SECRET, appHomeOpenedEnvelope({ user: 'UAG5', tab: 'messages' })));
      await post(
        bot.url,
        eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'How long do we block the membrane?', channel: 'CAGBARRIER2' })),
      );
      await waitForPost(fake, 'CAGBARRIER2');
      expect(promptCalls('DAG5')).toHaveLength(1);
    } finally {
      fake.conversation.appView = 'agent';
    }
  });
});
