// Conversations without an @mention each time: follow-ups in threads labbot answered, one answer
// for a message Slack delivers twice, DMs in threads, and the tail of long threads. Real Bolt
// (HTTP mode), Redis and Chroma with the sample corpus; Slack is the fake Web API.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeSlack, SlackCall } from './helpers/fake-slack.ts';
import { SIGNING_SECRET, type RunningBot } from './helpers/slack-bot.ts';
import { startSlackHarness, type SlackHarness } from './helpers/slack-harness.ts';
import { recordIdOf, waitForPost } from './helpers/slack-answers.ts';
import { channelMessageEnvelope, eventRequest, mentionEnvelope, post } from './helpers/slack-request.ts';

const LAB = path.resolve('examples/lab');
const fileConfig = { sources: [{ id: 'lab', type: 'folder', path: LAB }], access: { default: 'public', channels: {} } };

const chatCalls = (fake: FakeSlack, channel: string) =>
  fake.calls.filter((c) => c.body.channel === channel && c.method.startsWith('chat.'));
const posts = (fake: FakeSlack, channel: string) => fake.callsOf('chat.postMessage').filter((c) => c.body.channel === channel);

describe('Slack conversations', () => {
  let fake: FakeSlack;
  let bot: RunningBot;

  let harness: SlackHarness | undefined;
  beforeAll(async () => {
    harness = await startSlackHarness({ fileConfig });
    ({ fake, bot } = harness);
  });
  afterAll(async () => harness?.close());

  /** Posts a mention and waits for its answer (the message labbot posts in the thread). */
  async function mentionAndWait(channel: string, text: string, ts: string): Promise<SlackCall> {
    await post(bot.url, eventRequest(SIGNING_SECRET, mentionEnvelope({ text, channel, ts })));
    return waitForPost(fake, channel);
  }

  it('answers the asker’s plain follow-up (no mention) soon after its answer, with the thread as history', async () => {
    const parent = '1700001000.000100';
    await mentionAndWait('CFOLLOW', 'How do I passage RPE-1 cells?', parent);
    fake.threads.set(`CFOLLOW:${parent}`, [
      { ts: parent, user: 'UASKER', text: '<@UBOT> How do I passage RPE-1 cells?' },
      { ts: '1700001001.000100', bot_id: 'BBOT', user: 'UBOT', text: 'Split RPE-1 cells 1:5 twice a week [S1].' },
      { ts: '1700001002.000100', user: 'UASKER', text: 'and for HEK293T?' },
    ]);
    await post(
      bot.url,
      eventRequest(
        SIGNING_SECRET,
        channelMessageEnvelope({ text: 'and for HEK293T?', channel: 'CFOLLOW', ts: '1700001002.000100', threadTs: parent }),
      ),
    );
    const second = await waitForPost(fake, 'CFOLLOW', 1);
    expect(posts(fake, 'CFOLLOW').map((p) => p.body.thread_ts)).toEqual([parent, parent]);
    const record = await bot.activity.get(recordIdOf(second)!);
    expect(record?.question).toBe('and for HEK293T?');
    expect(record?.searchedAs).toMatch(/passage/i);
  });

  it('ignores replies in threads labbot never answered, top-level messages, bot posts and edits', async () => {
    const ignored = [
      channelMessageEnvelope({ text: 'What dilution for the primary antibody?', channel: 'CQUIET', threadTs: '1700002000.000100' }),
      channelMessageEnvelope({ text: 'What dilution for the primary antibody?', channel: 'CQUIET' }),
      channelMessageEnvelope({ text: 'What dilution for the primary antibody?', channel: 'CQUIET', channelType: 'group' }),
    ];
    const parent = '1700002100.000100';
    await mentionAndWait('CQUIET2', 'How long is the TRIzol incubation?', parent);
    ignored.push(
      channelMessageEnvelope({ text: 'I am another bot', channel: 'CQUIET2', threadTs: parent, botId: 'BOTHER' }),
      channelMessageEnvelope({ text: 'edited text', channel: 'CQUIET2', threadTs: parent, subtype: 'message_changed' }),
      channelMessageEnvelope({ text: 'someone joined', channel: 'CQUIET2', threadTs: parent, subtype: 'channel_join' }),
    );
    for (const env of ignored) expect((await post(bot.url, eventRequest(SIGNING_SECRET, env))).status).toBe(200);
    // A control reply sent after them is answered; by then the ignored ones have been handled.
    await post(
      bot.url,
      eventRequest(SIGNING_SECRET, channelMessageEnvelope({ text: 'and on ice?', channel: 'CQUIET2', threadTs: parent })),
    );
    await waitForPost(fake, 'CQUIET2', 1);
    expect(chatCalls(fake, 'CQUIET')).toEqual([]);
    expect(chatCalls(fake, 'CQUIET2')).toHaveLength(2);
  });

  it('answers once a message delivered both as app_mention and as message, in either order', async () => {
    const parent = '1700003000.000100';
    await mentionAndWait('CTWICE', 'How do I book the confocal microscope?', parent);
    for (const [i, order] of [
      ['mention', 'message'],
      ['message', 'mention'],
    ].entries()) {
      const ts = `1700003001.00010${i}`;
      const mention = mentionEnvelope({ text: 'and on weekends?', channel: 'CTWICE', ts, threadTs: parent });
      const message = channelMessageEnvelope({ text: '<@UBOT> and on weekends?', channel: 'CTWICE', ts, threadTs: parent });
      // The same message without the mention token: the route cannot tell, the ts dedupe must.
      const bare = channelMessageEnvelope({ text: 'and on weekends?', channel: 'CTWICE', ts, threadTs: parent });
      const envs = order[0] === 'mention' ? [mention, message, bare] : [bare, message, mention];
      await Promise.all(envs.map((e) => post(bot.url, eventRequest(SIGNING_SECRET, e))));
    }
    await waitForPost(fake, 'CTWICE', 2);
    // A later control reply proves the duplicates had their chance to post.
    await post(
      bot.url,
      eventRequest(SIGNING_SECRET, channelMessageEnvelope({ text: 'thanks, and the booking link?', channel: 'CTWICE', threadTs: parent })),
    );
    await waitForPost(fake, 'CTWICE', 3);
    expect(posts(fake, 'CTWICE')).toHaveLength(4);
  });

  it('answers a DM in a thread under the question, and a reply in that thread with its history', async () => {
    const ts = '1700004000.000100';
    await post(
      bot.url,
      eventRequest(
        SIGNING_SECRET,
        channelMessageEnvelope({ text: 'How do I passage RPE-1 cells?', channel: 'DCONV', channelType: 'im', user: 'UDM', ts }),
      ),
    );
    await waitForPost(fake, 'DCONV');
    expect(posts(fake, 'DCONV')[0].body.thread_ts).toBe(ts);
    expect(fake.callsOf('conversations.replies').filter((c) => c.body.channel === 'DCONV')).toEqual([]);

    fake.threads.set(`DCONV:${ts}`, [
      { ts, user: 'UDM', text: 'How do I passage RPE-1 cells?' },
      { ts: '1700004001.000100', bot_id: 'BBOT', user: 'UBOT', text: 'Split them 1:5 [S1].' },
      { ts: '1700004002.000100', user: 'UDM', text: 'and for HEK293T?' },
    ]);
    await post(
      bot.url,
      eventRequest(
        SIGNING_SECRET,
        channelMessageEnvelope({
          text: 'and for HEK293T?',
          channel: 'DCONV',
          channelType: 'im',
          user: 'UDM',
          ts: '1700004002.000100',
          threadTs: ts,
        }),
      ),
    );
    const second = await waitForPost(fake, 'DCONV', 1);
    expect(second.body.thread_ts).toBe(ts);
    expect(
      fake
        .callsOf('conversations.replies')
        .filter((c) => c.body.channel === 'DCONV')
        .map((c) => c.body.ts),
    ).toEqual([ts]);
    const record = await bot.activity.get(recordIdOf(second)!);
    expect(record?.source).toBe('dm');
    expect(record?.searchedAs).toMatch(/passage/i);
  });

  it('reads the newest turns of a thread longer than one page, not the first ones', async () => {
    const parent = '1700005000.000000';
    const msgs: { ts: string; user?: string; bot_id?: string; text: string }[] = [
      { ts: parent, user: 'UASKER', text: '<@UBOT> How do I passage RPE-1 cells?' },
    ];
    for (let i = 1; i <= 260; i++) {
      const ts = `1700005000.${String(i).padStart(6, '0')}`;
      msgs.push(i % 2 ? { ts, bot_id: 'BBOT', user: 'UBOT', text: `Noted ${i}.` } : { ts, user: 'UASKER', text: 'ok thanks' });
    }
    msgs.push({ ts: '1700005001.000001', user: 'UASKER', text: 'How long is the TRIzol incubation?' });
    msgs.push({ ts: '1700005001.000002', bot_id: 'BBOT', user: 'UBOT', text: 'Five minutes at room temperature [S1].' });
    const current = '1700005001.000003';
    msgs.push({ ts: current, user: 'UASKER', text: '<@UBOT> and on ice?' });
    fake.threads.set(`CLONGTHREAD:${parent}`, msgs);
    await post(
      bot.url,
      eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'and on ice?', channel: 'CLONGTHREAD', ts: current, threadTs: parent })),
    );
    const update = await waitForPost(fake, 'CLONGTHREAD');
    const pages = fake.callsOf('conversations.replies').filter((c) => c.body.channel === 'CLONGTHREAD');
    expect(pages.length).toBeGreaterThan(1);
    const record = await bot.activity.get(recordIdOf(update)!);
    expect(record?.searchedAs).toMatch(/TRIzol/);
    expect(record?.searchedAs).not.toMatch(/RPE-1/);
  });
});
