// Whose conversation a question is asked in decides whose grants apply (issue 24, item 4): the
// asker's own grants only in labbot's own DM with them, as Slack reports it (conversations.info:
// is_im, and `user` the asker); a DM between people, a group DM, or a DM that is someone else's
// with labbot reads the conversation's grants only. Share re-checks, at the click, that the kept
// answer read nothing the conversation it posts to may not read. Every way in: /labbot ask, a DM
// message, the message shortcut, a mention, Share. Real Bolt, Redis and Chroma with the sample lab;
// Slack is the strict fake (a DM between two people is channel_not_found to labbot, as in Slack).
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Labbot } from '../../src/app.ts';
import type { FakeMessage, FakeSlack } from '../helpers/fake-slack.ts';
import { postIn, shownTextOf, waitForPost } from '../helpers/slack-answers.ts';
import { SIGNING_SECRET, startTestBot, type RunningBot } from '../helpers/slack-bot.ts';
import { startSlackHarness, type SlackHarness } from '../helpers/slack-harness.ts';
import { buttonValue, clickButton, runSlash, shownText } from '../helpers/slack-interact.ts';
import { dmEnvelope, eventRequest, mentionEnvelope, messageShortcutRequest, post } from '../helpers/slack-request.ts';

const LAB = path.resolve('examples/lab');
// The PI may read pi-only (the renewal code word, NIGHTJAR, is in a pi-only wiki page); the student may not.
const fileConfig = {
  sources: [{ id: 'lab', type: 'folder', path: LAB }],
  access: { default: 'public', channels: { CPI: ['pi-only'] }, users: { UPI: ['pi-only'] } },
};
const QUESTION = 'What is the renewal code word?';
const SECRET = /NIGHTJAR/;
// labbot's DM with the PI and with the student (the fake's D<x> is labbot's DM with U<x>).
const PI_DM = 'DPI';
const STUDENT_DM = 'DSTU';
// A DM between the PI and the student, and a group DM of both with labbot.
const PEOPLE_DM = 'DPISTU';
const GROUP_DM = 'CGROUPDM';

describe('personal grants apply only in labbot’s own DM with the asker, as Slack reports it', () => {
  let harness: SlackHarness | undefined;
  let app: Labbot;
  let fake: FakeSlack;
  let bot: RunningBot;
  const extra: RunningBot[] = [];

  beforeAll(async () => {
    harness = await startSlackHarness({ fileConfig });
    ({ app, fake, bot } = harness);
    fake.conversations.set(PEOPLE_DM, { members: ['UPI', 'USTU'] });
    fake.conversations.set(GROUP_DM, { mpim: true, members: ['UPI', 'USTU', 'UBOT'] });
    // A shared answer's attribution mentions its asker on purpose.
    fake.allowMentions('<@UPI>');
  });
  afterAll(async () => {
    for (const b of extra) await b.close().catch(() => undefined);
    await harness?.close();
  });

  /** Everything anyone but `user` sees in `channel` (messages for everyone), as text. */
  const publicText = (channel: string) => fake.conversation.visible(channel).map(shownTextOf).join('\n');
  /**
   * /labbot ask as `user` in `channel`; the private message that answers it: the one with the Share
   * button, or the notice that says why there is no answer (refused, nothing found).
   */
  const ask = async (through: RunningBot, channel: string, user: string): Promise<FakeMessage> => {
    const from = fake.conversation.messages.length;
    const run = await runSlash(fake, through.url, { text: `ask ${QUESTION}`, channel, user });
    const last = await fake.waitFor(
      () =>
        fake.responses.find(
          (r) =>
            r.id === run.id &&
            (buttonValue({ blocks: r.body.blocks as unknown[] }, 'labbot_share') || !JSON.stringify(r.body).includes('labbot_feedback')),
        ),
      60_000,
    );
    return fake.waitFor(() =>
      fake.conversation.messages.slice(from).find((m) => m.via === 'response_url' && m.channel === channel && m.text === last.body.text),
    );
  };

  it('the PI’s own DM with labbot reads the PI’s grants (/labbot ask and a direct message)', async () => {
    expect(shownText(await ask(bot, PI_DM, 'UPI'))).toMatch(SECRET);
    await post(bot.url, eventRequest(SIGNING_SECRET, dmEnvelope({ text: QUESTION, channel: PI_DM, user: 'UPI' })));
    expect(JSON.stringify((await waitForPost(fake, PI_DM)).body)).toMatch(SECRET);
  });

  it('in a DM Slack reports as labbot’s DM with someone else, the PI’s grants do not apply on any way in', async () => {
    // /labbot ask
    expect(shownText(await ask(bot, STUDENT_DM, 'UPI'))).not.toMatch(SECRET);
    // A direct message event
    await post(bot.url, eventRequest(SIGNING_SECRET, dmEnvelope({ text: QUESTION, channel: STUDENT_DM, user: 'UPI' })));
    const dm = await waitForPost(fake, STUDENT_DM);
    expect(JSON.stringify(dm.body)).not.toMatch(SECRET);
    // The message shortcut on a message there
    const ts = '1700024000.000100';
    await post(
      bot.url,
      messageShortcutRequest(SIGNING_SECRET, {
        callbackId: 'labbot_ask_about_message',
        text: QUESTION,
        channel: STUDENT_DM,
        ts,
        user: 'UPI',
        responseUrl: fake.responseUrl('dm-sc'),
      }),
    );
    const sc = await fake.waitFor(() =>
      fake.callsOf('chat.postMessage').find((c) => c.body.channel === STUDENT_DM && c.body.thread_ts === ts),
    );
    expect(JSON.stringify(sc.body)).not.toMatch(SECRET);
    // A mention
    await post(bot.url, eventRequest(SIGNING_SECRET, mentionEnvelope({ text: QUESTION, channel: STUDENT_DM, user: 'UPI' })));
    await fake.waitFor(() => fake.callsOf('chat.postMessage').filter((c) => c.body.channel === STUDENT_DM).length >= 3);
    expect(publicText(STUDENT_DM)).not.toMatch(SECRET);
  });

  it('the PI’s /labbot ask in a DM with a student is refused or public-only, and Share posts nothing restricted there', async () => {
    // Default (slackConnect "refuse"): labbot cannot look the DM up (it is not in it), so it cannot tell who reads it.
    const refused = await ask(bot, PEOPLE_DM, 'UPI');
    expect(shownText(refused)).not.toMatch(SECRET);
    expect(buttonValue(refused, 'labbot_share')).toBeUndefined();
    // With "public", answered from the public documents only; its Share posts that, and only that.
    const open = await startTestBot(app, { config: { ...app.config, slackConnect: 'public' } });
    extra.push(open);
    const priv = await ask(open, PEOPLE_DM, 'UPI');
    expect(shownText(priv)).not.toMatch(SECRET);
    if (buttonValue(priv, 'labbot_share')) {
      const click = await clickButton(fake, open.url, priv, 'labbot_share', 'UPI');
      await fake.waitFor(() => fake.responses.find((r) => r.id === click.id));
    }
    expect(publicText(PEOPLE_DM)).not.toMatch(SECRET);
  });

  it('a group DM with labbot reads no one’s personal grants: /labbot ask, a mention, and Share there', async () => {
    const priv = await ask(bot, GROUP_DM, 'UPI');
    expect(shownText(priv)).not.toMatch(SECRET);
    const share = buttonValue(priv, 'labbot_share');
    expect(share).toBeDefined();
    await clickButton(fake, bot.url, priv, 'labbot_share', 'UPI');
    await fake.waitFor(() => fake.conversation.visible(GROUP_DM)[0]);
    await post(bot.url, eventRequest(SIGNING_SECRET, mentionEnvelope({ text: QUESTION, channel: GROUP_DM, user: 'UPI' })));
    await fake.waitFor(() => postIn(fake, GROUP_DM));
    expect(publicText(GROUP_DM)).not.toMatch(SECRET);
  });

  it('Share re-checks access where it posts: a pi-only answer is not posted once its channel may no longer read pi-only', async () => {
    const priv = await ask(bot, 'CPI', 'UPI');
    expect(shownText(priv)).toMatch(SECRET);
    // labbot restarted with CPI's grant removed (the kept answer outlives the restart, in Redis): the click reaches it.
    const config = { ...app.config, access: { ...app.config.access, channels: {} } };
    const restarted = await startTestBot(app, { config, prefix: bot.prefix });
    extra.push(restarted);
    await clickButton(fake, restarted.url, priv, 'labbot_share', 'UPI');
    const told = await fake.waitFor(() =>
      fake.conversation.ephemeralFor('UPI', 'CPI').find((m) => m.via === 'response_url' && m !== priv && !buttonValue(m, 'labbot_share')),
    );
    expect(shownText(told)).toMatch(/not everyone in this conversation may read/);
    expect(publicText('CPI')).not.toMatch(SECRET);
    expect(fake.conversation.visible('CPI')).toEqual([]);
    // The asker keeps the private answer.
    expect(fake.conversation.ephemeralFor('UPI', 'CPI')).toContain(priv);
  });

  it('Share of an answer from the PI’s own DM posts it there (only the PI and labbot read it)', async () => {
    const priv = await ask(bot, PI_DM, 'UPI');
    expect(shownText(priv)).toMatch(SECRET);
    await clickButton(fake, bot.url, priv, 'labbot_share', 'UPI');
    const shared = await fake.waitFor(() => fake.conversation.visible(PI_DM).find((m) => m.via === 'response_url'));
    expect(shownTextOf(shared)).toMatch(SECRET);
  });
});
