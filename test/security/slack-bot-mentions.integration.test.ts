// Other bots cannot drive labbot (issue 24, item 8): an @mention written by a bot (an event with a
// bot_id, with or without a user) is ignored, labbot's own included, so two bots cannot loop
// through it; only bots an admin lists in `slack.allowBots` (labbot.config.json) are answered, and
// never labbot itself. Message events from bots were already ignored; that stays. Real Bolt, Redis
// and Chroma with the sample lab; Slack is the strict fake.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Labbot } from '../../src/app.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { testEnv } from '../helpers/app.ts';
import type { FakeSlack } from '../helpers/fake-slack.ts';
import { waitForPost } from '../helpers/slack-answers.ts';
import { SIGNING_SECRET, startTestBot, type RunningBot } from '../helpers/slack-bot.ts';
import { startSlackHarness, type SlackHarness } from '../helpers/slack-harness.ts';
import { channelMessageEnvelope, eventRequest, mentionEnvelope, post } from '../helpers/slack-request.ts';

const LAB = path.resolve('examples/lab');
const fileConfig = { sources: [{ id: 'lab', type: 'folder', path: LAB }] };
const QUESTION = 'How long is the TRIzol incubation?';

/** An app_mention as Slack sends it for a bot's message: a bot_id and bot_profile, a user only when the bot posted with its own token. */
function botMention(o: { channel: string; botId: string; user?: string; threadTs?: string }): Record<string, unknown> {
  const env = mentionEnvelope({ text: QUESTION, channel: o.channel, threadTs: o.threadTs });
  const event = env.event as Record<string, unknown>;
  delete event.user;
  Object.assign(event, {
    bot_id: o.botId,
    bot_profile: { id: o.botId, app_id: `A${o.botId.slice(1)}`, name: 'otherbot', team_id: 'T0LAB' },
  });
  if (o.user) event.user = o.user;
  return env;
}

/** Everything labbot did in a channel: posts, status lines, reactions. */
const touched = (fake: FakeSlack, channel: string) =>
  fake.calls.filter((c) => (c.body.channel ?? c.body.channel_id) === channel && c.method !== 'conversations.info');

describe('bot-authored mentions are ignored unless slack.allowBots lists the bot', () => {
  let harness: SlackHarness | undefined;
  let app: Labbot;
  let fake: FakeSlack;
  let bot: RunningBot;
  const extra: RunningBot[] = [];
  let barriers = 0;

  beforeAll(async () => {
    harness = await startSlackHarness({ fileConfig });
    ({ app, fake, bot } = harness);
  });
  afterAll(async () => {
    for (const b of extra) await b.close().catch(() => undefined);
    await harness?.close();
  });

  /**
   * Instead of a fixed sleep before checking that something did NOT happen: a person's mention sent
   * now is answered only after the events sent before it went through Bolt (it takes them in order).
   */
  async function barrier(through: RunningBot): Promise<void> {
    const channel = `CBARRIER${++barriers}`;
    expect(
      (await post(through.url, eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'How long do we block the membrane?', channel }))))
        .status,
    ).toBe(200);
    await waitForPost(fake, channel, 0, 60_000);
  }

  it('a mention by another bot, with or without a user, and one with labbot’s own bot_id and no user, get no answer and no record', async () => {
    const before = (await bot.activity.recent(500)).length;
    const cases = [
      { channel: 'CBOT1', botId: 'BOTHER' },
      { channel: 'CBOT2', botId: 'BOTHER', user: 'UOTHERBOT' },
      { channel: 'CBOT3', botId: 'BBOT' },
    ];
    for (const c of cases) expect((await post(bot.url, eventRequest(SIGNING_SECRET, botMention(c)))).status).toBe(200);
    await barrier(bot);
    for (const c of cases) expect(touched(fake, c.channel), c.channel).toEqual([]);
    // The barrier's answer is the one new record.
    expect((await bot.activity.recent(500)).length).toBe(before + 1);
  });

  it('two bots cannot loop through labbot: another bot mentioning it in the thread of its answer, again and again, gets nothing', async () => {
    const parent = '1700025000.000100';
    await post(bot.url, eventRequest(SIGNING_SECRET, mentionEnvelope({ text: QUESTION, channel: 'CLOOP', ts: parent })));
    await waitForPost(fake, 'CLOOP', 0, 60_000);
    for (let i = 0; i < 3; i++) {
      await post(
        bot.url,
        eventRequest(SIGNING_SECRET, botMention({ channel: 'CLOOP', botId: 'BOTHER', user: 'UOTHERBOT', threadTs: parent })),
      );
      // The same bot's plain replies in the thread (message events from bots were ignored already).
      await post(
        bot.url,
        eventRequest(
          SIGNING_SECRET,
          channelMessageEnvelope({ text: `and ${QUESTION}`, channel: 'CLOOP', threadTs: parent, user: 'UOTHERBOT', botId: 'BOTHER' }),
        ),
      );
    }
    await barrier(bot);
    // Each question labbot takes up shows its status line at once (posts in one channel are paced, 1 a second).
    const working = fake.callsOf('assistant.threads.setStatus').filter((c) => c.body.channel_id === 'CLOOP' && c.body.status);
    expect(working).toHaveLength(1);
    expect(fake.callsOf('chat.postMessage').filter((c) => c.body.channel === 'CLOOP')).toHaveLength(1);
  });

  it('a bot listed in slack.allowBots is answered; labbot’s own bot_id is never, even when listed', async () => {
    const allowing = await startTestBot(app, { config: { ...app.config, allowBots: ['BFRIEND', 'BBOT'] } });
    extra.push(allowing);
    await post(allowing.url, eventRequest(SIGNING_SECRET, botMention({ channel: 'CFRIEND', botId: 'BFRIEND' })));
    const answer = await waitForPost(fake, 'CFRIEND', 0, 60_000);
    expect(JSON.stringify(answer.body)).toMatch(/\[S\d/);
    await post(allowing.url, eventRequest(SIGNING_SECRET, botMention({ channel: 'CSELF', botId: 'BBOT' })));
    await post(allowing.url, eventRequest(SIGNING_SECRET, botMention({ channel: 'CSTRANGER', botId: 'BSTRANGER' })));
    await barrier(allowing);
    expect(touched(fake, 'CSELF')).toEqual([]);
    expect(touched(fake, 'CSTRANGER')).toEqual([]);
  });

  it('slack.allowBots takes bot ids (B…) from labbot.config.json, and says so for anything else', () => {
    expect(loadConfig(testEnv({ fileConfig: { slack: { allowBots: ['B0123ABCDEF'] } } })).allowBots).toEqual(['B0123ABCDEF']);
    expect(loadConfig(testEnv({ fileConfig: {} })).allowBots).toEqual([]);
    expect(() => loadConfig(testEnv({ fileConfig: { slack: { allowBots: ['U0123ABCDEF'] } } }))).toThrow(ConfigError);
    expect(() => loadConfig(testEnv({ fileConfig: { slack: { allowBots: ['U0123ABCDEF'] } } }))).toThrow(
      /slack\.allowBots\.0: a Slack bot id looks like B0123ABCDEF/,
    );
  });
});
