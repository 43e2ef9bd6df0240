// Thread etiquette end to end (real Bolt over HTTP, Redis, Chroma with the sample corpus; Slack is
// the strict fake): labbot mentioned partway through a human conversation answers the mention and
// the asker's own follow-up questions right after, and nothing else: not thanks, not emoji, not
// words addressed to a colleague, not anyone else, not once someone else has spoken. The "Ask
// labbot about this" shortcut follows the same rule. Edited questions are answered again in place;
// deleted ones take their answer along. The first test prints the thread as posted.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Labbot } from '../src/app.ts';
import type { FakeMessage, FakeSlack } from './helpers/fake-slack.ts';
import { shownTextOf, waitForPost } from './helpers/slack-answers.ts';
import { SIGNING_SECRET, startTestBot, type RunningBot } from './helpers/slack-bot.ts';
import { startSlackHarness, type SlackHarness } from './helpers/slack-harness.ts';
import {
  channelMessageEnvelope,
  eventRequest,
  mentionEnvelope,
  messageChangedEnvelope,
  messageDeletedEnvelope,
  messageShortcutRequest,
  post,
} from './helpers/slack-request.ts';

const LAB = path.resolve('examples/lab');
const fileConfig = { sources: [{ id: 'lab', type: 'folder', path: LAB }], access: { default: 'public', channels: {} } };
const NAMES: Record<string, string> = { UADA: 'Ada', UBEN: 'Ben', UCAROL: 'Carol', UBOT: 'labbot' };

describe('thread etiquette', () => {
  let app: Labbot;
  let fake: FakeSlack;
  let bot: RunningBot;
  let harness: SlackHarness | undefined;
  let barriers = 0;
  beforeAll(async () => {
    harness = await startSlackHarness({ fileConfig });
    ({ app, fake, bot } = harness);
  });
  afterAll(async () => harness?.close());

  /** A mention elsewhere, answered: events sent before it have been through Bolt by then (it takes them in order). */
  async function barrier(b: RunningBot = bot): Promise<void> {
    const channel = `CBARRIER${++barriers}`;
    await post(b.url, eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'How long do we block the membrane?', channel })));
    await waitForPost(fake, channel);
  }
  const labbotIn = (channel: string, threadTs: string) => fake.conversation.visible(channel, { thread: threadTs });

  it('after a mention partway through a human conversation, answers the asker’s questions and ignores the rest (the thread as posted)', async () => {
    const ch = 'CLAB';
    const parent = '1700100000.000100';
    const transcript: string[] = [];
    const seen = new Set<string>();
    const show = (m: FakeMessage) => `labbot: ${shownTextOf(m).replace(/\n+/g, ' ⏎ ')}`;
    /** Sends one human message; waits for labbot's answer when one is expected, else for a barrier. */
    const say = async (user: string, text: string, ts: string, expectAnswer: boolean, mention = false) => {
      transcript.push(
        `${NAMES[user]}: ${mention ? '@labbot ' : ''}${text.replace(/<@(U[A-Z0-9]+)>/g, (_m, id: string) => `@${NAMES[id] ?? id}`)}`,
      );
      const before = labbotIn(ch, parent).length;
      const env = mention
        ? mentionEnvelope({ text, channel: ch, user, ts, threadTs: ts === parent ? undefined : parent })
        : channelMessageEnvelope({ text, channel: ch, user, ts, ...(ts === parent ? {} : { threadTs: parent }) });
      await post(bot.url, eventRequest(SIGNING_SECRET, env));
      if (expectAnswer)
        await fake.waitFor(() => labbotIn(ch, parent).length > before && !labbotIn(ch, parent).some((m) => m.stream && !m.stream.stopped));
      else await barrier();
      for (const m of labbotIn(ch, parent)) {
        if (seen.has(m.ts)) continue;
        seen.add(m.ts);
        transcript.push(show(m));
      }
      transcript.push(expectAnswer ? '' : '   (labbot: nothing)');
      return labbotIn(ch, parent).length - before;
    };

    expect(await say('UADA', 'Has anyone run a western on the new PVDF membranes yet?', parent, false)).toBe(0);
    expect(await say('UBEN', 'yes, worked fine for me', '1700100001.000100', false)).toBe(0);
    expect(await say('UCAROL', 'How long do we block the membrane?', '1700100002.000100', true, true)).toBe(1);
    expect(await say('UCAROL', 'thanks! <@UADA> can you do the blot tomorrow?', '1700100003.000100', false)).toBe(0);
    expect(await say('UCAROL', ':+1:', '1700100004.000100', false)).toBe(0);
    expect(await say('UCAROL', 'and which dilution for the anti-p53 primary?', '1700100005.000100', true)).toBe(1);
    expect(await say('UBEN', 'what about the 2022 one?', '1700100006.000100', false)).toBe(0);
    // Ben spoke: the thread is the people's conversation again; Carol's next question needs a mention.
    expect(await say('UCAROL', 'and for the secondary?', '1700100007.000100', false)).toBe(0);
    expect(await say('UADA', 'sure, I’ll do it after lunch', '1700100008.000100', false)).toBe(0);
    expect(await say('UCAROL', 'which dilution for the HRP secondary antibody?', '1700100009.000100', true, true)).toBe(1);
    expect(await say('UCAROL', '🙏 perfect, thanks', '1700100010.000100', false)).toBe(0);

    // Three answers, all in the thread, each the message that notifies (a post, never an edit of a placeholder).
    const answers = labbotIn(ch, parent);
    expect(answers).toHaveLength(3);
    for (const a of answers) {
      expect(a.versions).toHaveLength(1);
      expect(shownTextOf(a)).toMatch(/\[S\d+\]/);
    }
    expect(fake.callsOf('chat.update').filter((c) => c.body.channel === ch)).toEqual([]);
    console.log(`\nA human thread after a mention, as posted:\n${transcript.filter((l, i) => l || transcript[i - 1]).join('\n')}`);
  });

  it('"Ask labbot about this" answers that message, then only the person who asked, not the thread', async () => {
    const ch = 'CSHORTCUT';
    const msg = '1700100100.000100';
    await post(
      bot.url,
      messageShortcutRequest(SIGNING_SECRET, {
        callbackId: 'labbot_ask_about_message',
        text: 'Do we block in milk or BSA?',
        channel: ch,
        ts: msg,
        user: 'UCAROL',
        responseUrl: fake.responseUrl('sc-et'),
      }),
    );
    await waitForPost(fake, ch);
    for (const [user, text] of [
      ['UADA', 'milk, always'],
      ['UADA', 'and how long?'],
      ['UCAROL', 'thanks!'],
    ]) {
      await post(bot.url, eventRequest(SIGNING_SECRET, channelMessageEnvelope({ text, channel: ch, user, threadTs: msg })));
    }
    await barrier();
    expect(labbotIn(ch, msg)).toHaveLength(1);
  });

  it('with followUpMinutes 0 every follow-up needs a mention', async () => {
    const strict = await startTestBot(app, { config: { ...app.config, followUpMinutes: 0 } });
    try {
      const ch = 'CSTRICT';
      const parent = '1700100200.000100';
      await post(
        strict.url,
        eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'How long is the TRIzol incubation?', channel: ch, ts: parent })),
      );
      await waitForPost(fake, ch);
      await post(strict.url, eventRequest(SIGNING_SECRET, channelMessageEnvelope({ text: 'and on ice?', channel: ch, threadTs: parent })));
      await barrier(strict);
      expect(labbotIn(ch, parent)).toHaveLength(1);
    } finally {
      await strict.close();
    }
  });

  it('answers an edited question again, replacing its answer in place; a deleted question takes its answer along', async () => {
    const ch = 'CEDIT';
    const q = '1700100300.000100';
    await post(bot.url, eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'How long is the TRIzol incubation?', channel: ch, ts: q })));
    const first = await waitForPost(fake, ch);
    const answerTs = (await fake.waitFor(() => labbotIn(ch, q)[0])).ts;
    const before = shownTextOf(labbotIn(ch, q)[0]);
    await post(
      bot.url,
      eventRequest(
        SIGNING_SECRET,
        messageChangedEnvelope({
          channel: ch,
          ts: q,
          text: '<@UBOT> How long do we block the membrane, and in what?',
          previousText: '<@UBOT> How long is the TRIzol incubation?',
        }),
      ),
    );
    const update = await fake.waitFor(() => fake.callsOf('chat.update').find((c) => c.body.channel === ch));
    expect(update.body.ts).toBe(answerTs);
    await fake.waitFor(() => (fake.conversation.message(answerTs)?.versions.length ?? 0) > 1);
    // Same place in the thread, new answer; no second answer posted.
    expect(labbotIn(ch, q)).toHaveLength(1);
    const after = shownTextOf(labbotIn(ch, q)[0]);
    expect(after).not.toBe(before);
    expect(after).toMatch(/milk|block/i);
    expect(fake.callsOf('chat.postMessage').filter((c) => c.body.channel === ch)).toEqual([first]);
    // The edit's answer clears the status line it set (an update is not a reply, so Slack would leave it).
    expect(
      fake.conversation.statusLog
        .filter((s) => s.key === `${ch}:${q}`)
        .map((s) => s.status)
        .slice(-2)[0],
    ).toMatch(/searching/);
    await fake.waitFor(() => !fake.conversation.statuses.has(`${ch}:${q}`));
    // The record of the new answer is the edited question.
    expect((await bot.activity.recent(50)).find((r) => r.channel === ch)?.question).toBe('How long do we block the membrane, and in what?');

    await post(bot.url, eventRequest(SIGNING_SECRET, messageDeletedEnvelope({ channel: ch, ts: q })));
    await fake.waitFor(() => labbotIn(ch, q).length === 0);
    expect(fake.conversation.message(answerTs)?.deleted).toBe(true);
  });

  it('a reply edit that changes nothing (an unfurl, a reply count) is not answered again', async () => {
    const ch = 'CSAME';
    const q = '1700100350.000100';
    await post(bot.url, eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'How long is the TRIzol incubation?', channel: ch, ts: q })));
    await waitForPost(fake, ch);
    const text = '<@UBOT> How long is the TRIzol incubation?';
    await post(bot.url, eventRequest(SIGNING_SECRET, messageChangedEnvelope({ channel: ch, ts: q, text, previousText: text })));
    await barrier();
    expect(fake.callsOf('chat.update').filter((c) => c.body.channel === ch)).toEqual([]);
  });

  it('an edit or deletion while the answer is on its way is applied once it is posted', async () => {
    const ch = 'CPENDING';
    const q1 = '1700100400.000100';
    const release = fake.hold('chat.postMessage', (b) => b.channel === ch);
    await post(bot.url, eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'How long is the TRIzol incubation?', channel: ch, ts: q1 })));
    await waitForPost(fake, ch);
    await post(
      bot.url,
      eventRequest(
        SIGNING_SECRET,
        messageChangedEnvelope({
          channel: ch,
          ts: q1,
          text: '<@UBOT> How long do we block the membrane?',
          previousText: '<@UBOT> How long is the TRIzol incubation?',
        }),
      ),
    );
    await barrier();
    release();
    const update = await fake.waitFor(() => fake.callsOf('chat.update').find((c) => c.body.channel === ch));
    expect(JSON.stringify(update.body.blocks)).toMatch(/block/i);
    await fake.waitFor(() => (labbotIn(ch, q1)[0]?.versions.length ?? 0) > 1);
    expect(labbotIn(ch, q1)).toHaveLength(1);

    const ch2 = 'CPENDING2';
    const q2 = '1700100410.000100';
    const release2 = fake.hold('chat.postMessage', (b) => b.channel === ch2);
    await post(
      bot.url,
      eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'How long is the TRIzol incubation?', channel: ch2, ts: q2 })),
    );
    await waitForPost(fake, ch2);
    await post(bot.url, eventRequest(SIGNING_SECRET, messageDeletedEnvelope({ channel: ch2, ts: q2 })));
    await barrier();
    release2();
    await fake.waitFor(() => fake.callsOf('chat.delete').find((c) => c.body.channel === ch2));
    await fake.waitFor(() => labbotIn(ch2, q2).length === 0);
  });

  it('edited and deleted DM questions are handled the same way', async () => {
    const dm = 'DEDIT';
    const q = '1700100500.000100';
    await post(
      bot.url,
      eventRequest(
        SIGNING_SECRET,
        channelMessageEnvelope({ text: 'How long is the TRIzol incubation?', channel: dm, channelType: 'im', ts: q, user: 'UDM' }),
      ),
    );
    await waitForPost(fake, dm);
    await post(
      bot.url,
      eventRequest(
        SIGNING_SECRET,
        messageChangedEnvelope({
          channel: dm,
          channelType: 'im',
          user: 'UDM',
          ts: q,
          text: 'How long do we block the membrane?',
          previousText: 'How long is the TRIzol incubation?',
        }),
      ),
    );
    const update = await fake.waitFor(() => fake.callsOf('chat.update').find((c) => c.body.channel === dm));
    expect(JSON.stringify(update.body.blocks)).toMatch(/block/i);
    await post(bot.url, eventRequest(SIGNING_SECRET, messageDeletedEnvelope({ channel: dm, channelType: 'im', user: 'UDM', ts: q })));
    await fake.waitFor(() => fake.callsOf('chat.delete').find((c) => c.body.channel === dm));
    await fake.waitFor(() => labbotIn(dm, q).length === 0);
  });

  it('an edit that adds a mention of labbot to a message it ignored is answered as a new question', async () => {
    const ch = 'CADDED';
    const ts = '1700100600.000100';
    await post(
      bot.url,
      eventRequest(SIGNING_SECRET, channelMessageEnvelope({ text: 'How long do we block the membrane?', channel: ch, ts })),
    );
    await post(
      bot.url,
      eventRequest(
        SIGNING_SECRET,
        messageChangedEnvelope({
          channel: ch,
          ts,
          text: '<@UBOT> How long do we block the membrane?',
          previousText: 'How long do we block the membrane?',
        }),
      ),
    );
    const answer = await waitForPost(fake, ch);
    expect(answer.body.thread_ts).toBe(ts);
  });
});
