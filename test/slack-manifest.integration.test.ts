// manifest.json asks for exactly the scopes and events labbot uses: every feature is exercised
// against the fake Slack, the Web API methods it called (and the conversation types it read)
// are mapped to scopes by Slack's method reference, and the union must equal the manifest's.
// (manifest.json also validates against slackapi/manifest-schema's 1.0.0 schema as of its 0.5.0
// release, which knows agent_view; see docs/slack.md.)
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeSlack } from './helpers/fake-slack.ts';
import { SIGNING_SECRET, type RunningBot } from './helpers/slack-bot.ts';
import { startSlackHarness, type SlackHarness } from './helpers/slack-harness.ts';
import {
  appContextChangedEnvelope,
  appHomeOpenedEnvelope,
  blockActionRequest,
  channelMessageEnvelope,
  channelSharingEnvelope,
  eventRequest,
  mentionEnvelope,
  messageShortcutRequest,
  post,
  slashRequest,
} from './helpers/slack-request.ts';

interface Manifest {
  features: {
    app_home: { home_tab_enabled: boolean; messages_tab_enabled: boolean };
    shortcuts: { callback_id: string; type: string }[];
    slash_commands: { command: string }[];
    assistant_view?: unknown;
    agent_view?: { agent_description?: string };
  };
  oauth_config: { scopes: { bot: string[] } };
  settings: { event_subscriptions: { bot_events: string[] } };
}
const manifest = JSON.parse(readFileSync(path.resolve('manifest.json'), 'utf8')) as Manifest;

// Bot scopes per Web API method (docs.slack.dev/reference/methods/*). conversations.replies needs
// the history scope of the conversation type read.
const METHOD_SCOPES: Record<string, string[]> = {
  'auth.test': [],
  'chat.postMessage': ['chat:write'],
  'chat.update': ['chat:write'],
  'chat.delete': ['chat:write'],
  'chat.startStream': ['chat:write'],
  'chat.appendStream': ['chat:write'],
  'chat.stopStream': ['chat:write'],
  'assistant.threads.setStatus': ['chat:write'],
  'assistant.threads.setSuggestedPrompts': ['assistant:write'],
  'views.publish': [],
  'chat.postEphemeral': ['chat:write'],
  'users.info': ['users:read'],
  'reactions.add': ['reactions:write'],
  'reactions.remove': ['reactions:write'],
};
const HISTORY_SCOPE: Record<string, string> = {
  channel: 'channels:history',
  group: 'groups:history',
  im: 'im:history',
  mpim: 'mpim:history',
};
// conversations.info needs the read scope of the conversation type (Slack Connect checks, every type).
const READ_SCOPE: Record<string, string> = { channel: 'channels:read', group: 'groups:read', im: 'im:read', mpim: 'mpim:read' };
// Events and the scope each subscription needs (docs.slack.dev/reference/events/*).
const EVENT_SCOPES: Record<string, string[]> = {
  app_mention: ['app_mentions:read'],
  'message.channels': ['channels:history'],
  'message.groups': ['groups:history'],
  'message.im': ['im:history'],
  'message.mpim': ['mpim:history'],
  app_home_opened: [],
  app_context_changed: [],
  assistant_thread_started: ['assistant:write'],
  // Sent for public channels with channels:read, for private ones with groups:read (both are asked for).
  channel_shared: ['channels:read', 'groups:read'],
  channel_unshared: ['channels:read', 'groups:read'],
};

const LAB = path.resolve('examples/lab');

describe('manifest.json matches what labbot calls and listens to', () => {
  let fake: FakeSlack;
  let bot: RunningBot;
  let harness: SlackHarness | undefined;
  beforeAll(async () => {
    harness = await startSlackHarness({ fileConfig: { sources: [{ id: 'lab', type: 'folder', path: LAB }] } });
    ({ fake, bot } = harness);
  });
  afterAll(async () => harness?.close());

  it('scopes and events are exactly those the features use', async () => {
    const typeOf = new Map<string, string>();
    const used = new Set<string>(['commands']); // the /labbot command and the message shortcut
    typeOf.set('CGENERAL', 'channel'); // where /labbot ask and Share run
    const events = new Set<string>();
    const answers = () => fake.callsOf('chat.update').length + fake.callsOf('chat.postMessage').length;
    const until = (n: number) => fake.waitFor(() => answers() >= n);

    // Where Slack refuses a status line, a reaction shows labbot at work (reactions:write).
    fake.failNext('assistant.threads.setStatus', { error: 'not_allowed_token_type' });
    // A mention in a public channel, then plain follow-ups in public, private and group-DM threads.
    for (const [channel, type] of [
      ['CPUB', 'channel'],
      ['GPRIV', 'group'],
      ['GMPIM', 'mpim'],
    ] as const) {
      typeOf.set(channel, type);
      const parent = `17000090${channel.length}.0001${String(typeOf.size).padStart(2, '0')}`;
      fake.threads.set(`${channel}:${parent}`, [{ ts: parent, user: 'UASKER', text: '<@UBOT> How long is the TRIzol incubation?' }]);
      const n = answers();
      await post(
        bot.url,
        eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'How long is the TRIzol incubation?', channel, ts: parent })),
      );
      await until(n + 1);
      // A follow-up by the asker, soon after the answer, with no mention.
      await post(
        bot.url,
        eventRequest(SIGNING_SECRET, channelMessageEnvelope({ text: 'and on ice?', channel, threadTs: parent, channelType: type })),
      );
      await until(n + 2);
      // A mention naming a colleague: the mention is read by name (users.info).
      await post(
        bot.url,
        eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'and at 4 °C, as <@UPI> does?', channel, threadTs: parent })),
      );
      await until(n + 3);
      events.add('app_mention').add(`message.${type === 'channel' ? 'channels' : type === 'group' ? 'groups' : 'mpim'}`);
    }
    // A DM and a reply in its thread.
    typeOf.set('DIM', 'im');
    const dm = '1700009100.000100';
    fake.threads.set(`DIM:${dm}`, [{ ts: dm, user: 'UASKER', text: 'How long is the TRIzol incubation?' }]);
    let n = answers();
    await post(
      bot.url,
      eventRequest(SIGNING_SECRET, channelMessageEnvelope({ text: 'and on ice?', channel: 'DIM', channelType: 'im', threadTs: dm })),
    );
    await until(n + 1);
    events.add('message.im');
    // The agent view (labbot's DM opened, then the user moves around), the App Home, /labbot ask + Share, the message shortcut, a reindex.
    typeOf.set('DAI', 'im');
    await post(bot.url, eventRequest(SIGNING_SECRET, appHomeOpenedEnvelope({ user: 'UASKER', tab: 'messages' })));
    await fake.waitFor(() => fake.callsOf('assistant.threads.setSuggestedPrompts')[0]);
    await post(bot.url, eventRequest(SIGNING_SECRET, appContextChangedEnvelope({ user: 'UAGENT2', channel: 'DAGENT2', viewing: 'CPUB' })));
    await fake.waitFor(() => fake.callsOf('assistant.threads.setSuggestedPrompts')[1]);
    events.add('app_context_changed');
    n = answers();
    await post(
      bot.url,
      eventRequest(
        SIGNING_SECRET,
        channelMessageEnvelope({ text: 'How long is the TRIzol incubation?', channel: 'DAI', channelType: 'im' }),
      ),
    );
    await until(n + 1);
    await post(bot.url, eventRequest(SIGNING_SECRET, appHomeOpenedEnvelope({ user: 'UASKER' })));
    await fake.waitFor(() => fake.callsOf('views.publish')[0]);
    events.add('app_home_opened');
    await post(
      bot.url,
      slashRequest(SIGNING_SECRET, { text: 'ask How long is the TRIzol incubation?', responseUrl: fake.responseUrl('m-ask') }),
    );
    const priv = await fake.waitFor(() => fake.responses.find((r) => r.id === 'm-ask'));
    const share = ((priv.body.blocks ?? []) as { elements?: { action_id?: string; value?: string }[] }[])
      .flatMap((b) => b.elements ?? [])
      .find((e) => e.action_id === 'labbot_share')?.value;
    expect(share).toBeDefined();
    fake.allowMentions('<@UASKER>'); // Share's "asked by" attribution, on purpose
    await post(
      bot.url,
      blockActionRequest(SIGNING_SECRET, { actionId: 'labbot_share', value: share!, responseUrl: fake.responseUrl('m-share') }),
    );
    const shared = await fake.waitFor(() => fake.responses.find((r) => r.id === 'm-share'));
    expect(shared.body.response_type).toBe('in_channel');
    // Slack Connect changes: a channel shared, then unshared.
    for (const type of ['channel_shared', 'channel_unshared'] as const) {
      await post(bot.url, eventRequest(SIGNING_SECRET, channelSharingEnvelope({ type, channel: 'CPUB' })));
      events.add(type);
    }
    n = answers();
    await post(
      bot.url,
      messageShortcutRequest(SIGNING_SECRET, {
        callbackId: manifest.features.shortcuts[0].callback_id,
        text: 'How do I book the confocal microscope?',
        channel: 'CPUB',
        ts: '1700009300.000100',
        responseUrl: fake.responseUrl('m-sc'),
      }),
    );
    await until(n + 1);
    await post(bot.url, slashRequest(SIGNING_SECRET, { text: 'reindex lab', user: 'UADMIN', responseUrl: fake.responseUrl('m-ri') }));
    await fake.waitFor(() => fake.responses.filter((r) => r.id === 'm-ri').length >= 2, 60_000);

    for (const c of fake.calls) {
      if (c.method === 'conversations.replies' || c.method === 'conversations.info') {
        const type = typeOf.get(String(c.body.channel));
        expect(type, `${c.method} on an unexpected channel ${String(c.body.channel)}`).toBeDefined();
        used.add((c.method === 'conversations.info' ? READ_SCOPE : HISTORY_SCOPE)[type!]);
        continue;
      }
      const scopes = METHOD_SCOPES[c.method];
      expect(scopes, `no scope entry for ${c.method}`).toBeDefined();
      for (const s of scopes) used.add(s);
    }
    for (const e of events) for (const s of EVENT_SCOPES[e]) used.add(s);

    expect([...manifest.oauth_config.scopes.bot].sort()).toEqual([...used].sort());
    expect([...manifest.settings.event_subscriptions.bot_events].sort()).toEqual([...events].sort());
    expect(manifest.features.app_home.home_tab_enabled).toBe(true);
    // Slack's agent experience: the conversation is labbot's DM (the Messages tab); assistant_view is legacy.
    expect(manifest.features.app_home.messages_tab_enabled).toBe(true);
    expect(manifest.features.agent_view?.agent_description).toBeTruthy();
    expect(manifest.features.assistant_view).toBeUndefined();
    expect(manifest.features.slash_commands.map((c) => c.command)).toEqual(['/labbot']);
    expect(manifest.features.shortcuts).toEqual([expect.objectContaining({ type: 'message', callback_id: 'labbot_ask_about_message' })]);
  });
});
