// Busy moments, Slack Connect, attachments and shutdown: real Bolt (HTTP mode), Redis and Chroma
// with the sample corpus; Slack is the fake Web API, which can hold a call to play a slow Slack.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Labbot } from '../src/app.ts';
import type { FakeSlack, SlackCall } from './helpers/fake-slack.ts';
import { SIGNING_SECRET, startTestBot, type RunningBot } from './helpers/slack-bot.ts';
import {
  channelMessageEnvelope,
  eventRequest,
  mentionEnvelope,
  messageShortcutRequest,
  post,
  slashRequest,
} from './helpers/slack-request.ts';
import { startSlackApp, type SlackApp } from './helpers/slack-harness.ts';
import { runSlash } from './helpers/slack-interact.ts';

const LAB = path.resolve('examples/lab');
const fileConfig = {
  sources: [{ id: 'lab', type: 'folder', path: LAB }],
  access: { default: 'public', channels: { CPI: ['pi-only'], CPISHARED: ['pi-only'] } },
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function shown(c: SlackCall): string {
  return JSON.stringify([c.body.text, c.body.blocks ?? []]);
}
const inChannel = (fake: FakeSlack, method: string, channel: string) => fake.callsOf(method).filter((c) => c.body.channel === channel);

describe('Slack bot in busy moments, shared channels, attachments and shutdown', () => {
  let app: Labbot;
  let fake: FakeSlack;
  const bots: RunningBot[] = [];

  let base: SlackApp | undefined;
  beforeAll(async () => {
    base = await startSlackApp({ fileConfig });
    ({ fake, app } = base);
  });
  afterAll(async () => {
    for (const b of bots) await b.close().catch(() => undefined);
    await base?.close();
  });
  async function bot(opts: Parameters<typeof startTestBot>[1] = {}): Promise<RunningBot> {
    const b = await startTestBot(app, opts);
    bots.push(b);
    return b;
  }

  it('shows the queue position in the status line before waiting (no message that notifies), and help/status never wait behind answers', async () => {
    const b = await bot({ concurrency: 1 });
    const release = fake.hold('chat.postMessage', (body) => body.channel === 'CBUSY1');
    await post(b.url, eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'How long is the TRIzol incubation?', channel: 'CBUSY1' })));
    // The only answer slot is now taken until Slack answers this post.
    await fake.waitFor(() => inChannel(fake, 'chat.postMessage', 'CBUSY1')[0]);
    const statusIn = (ch: string) => fake.callsOf('assistant.threads.setStatus').filter((c) => c.body.channel_id === ch);
    await post(b.url, eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'How do I book the confocal microscope?', channel: 'CBUSY2' })));
    const second = await fake.waitFor(() => statusIn('CBUSY2')[0]);
    expect(second.body.thread_ts).toBeDefined();
    expect(String(second.body.status)).toMatch(/yours is next/);
    await post(
      b.url,
      eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'Where is the -80 freezer rack for plasmids?', channel: 'CBUSY3' })),
    );
    const third = await fake.waitFor(() => statusIn('CBUSY3')[0]);
    expect(String(third.body.status)).toMatch(/1 questions before yours/);

    await post(b.url, slashRequest(SIGNING_SECRET, { text: 'help', responseUrl: fake.responseUrl('busy-help') }));
    await post(b.url, slashRequest(SIGNING_SECRET, { text: 'status', responseUrl: fake.responseUrl('busy-status') }));
    const help = await fake.waitFor(() => fake.responses.find((r) => r.id === 'busy-help'));
    expect(String(help.body.text)).toContain('/labbot ask');
    const status = await fake.waitFor(() => fake.responses.find((r) => r.id === 'busy-status'));
    expect(String(status.body.text)).toContain(app.version);
    // Nothing was posted in the waiting threads meanwhile: no "Searching…" message notified anyone.
    expect(inChannel(fake, 'chat.postMessage', 'CBUSY2')).toEqual([]);
    expect(inChannel(fake, 'chat.postMessage', 'CBUSY3')).toEqual([]);

    release();
    for (const ch of ['CBUSY2', 'CBUSY3']) {
      const answer = await fake.waitFor(() => inChannel(fake, 'chat.postMessage', ch)[0]);
      expect(shown(answer)).toMatch(/\[S\d+\]/);
      // When its turn came, the status line said labbot was searching.
      expect(
        statusIn(ch)
          .map((c) => String(c.body.status))
          .some((t) => /searching/.test(t)),
      ).toBe(true);
    }
  });

  it('refuses in a Slack Connect channel by default and says why, on every way in', async () => {
    const b = await bot();
    const before = await b.activity.recent(100);
    await post(
      b.url,
      eventRequest(SIGNING_SECRET, {
        ...mentionEnvelope({ text: 'What is the renewal code word?', channel: 'CPISHARED' }),
        is_ext_shared_channel: true,
      }),
    );
    const refusal = await fake.waitFor(() => inChannel(fake, 'chat.postMessage', 'CPISHARED')[0]);
    expect(String(refusal.body.text)).toMatch(/shared with another organisation/);
    expect(shown(refusal)).not.toMatch(/NIGHTJAR/);

    // A plain follow-up in a thread labbot answered, in a channel that became shared since.
    const parent = '1700006000.000100';
    await post(
      b.url,
      eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'How long is the TRIzol incubation?', channel: 'CNOWSHARED', ts: parent })),
    );
    await fake.waitFor(() => inChannel(fake, 'chat.postMessage', 'CNOWSHARED')[0]);
    await post(
      b.url,
      eventRequest(
        SIGNING_SECRET,
        channelMessageEnvelope({ text: 'and on ice?', channel: 'CNOWSHARED', threadTs: parent, extShared: true }),
      ),
    );
    const second = await fake.waitFor(() => inChannel(fake, 'chat.postMessage', 'CNOWSHARED')[1]);
    expect(String(second.body.text)).toMatch(/shared with another organisation/);
    expect(second.body.thread_ts).toBe(parent);
    expect(inChannel(fake, 'chat.postMessage', 'CNOWSHARED')).toHaveLength(2);

    // Slash commands and the message shortcut carry no flag: they go by what the channel's events said.
    await post(
      b.url,
      slashRequest(SIGNING_SECRET, {
        text: 'ask What is the renewal code word?',
        channel: 'CPISHARED',
        responseUrl: fake.responseUrl('connect-ask'),
      }),
    );
    const ask = await fake.waitFor(() => fake.responses.find((r) => r.id === 'connect-ask'));
    expect(String(ask.body.text)).toMatch(/shared with another organisation/);
    await post(
      b.url,
      messageShortcutRequest(SIGNING_SECRET, {
        callbackId: 'labbot_ask_about_message',
        text: 'What is the renewal code word?',
        channel: 'CPISHARED',
        ts: '1700006100.000100',
        responseUrl: fake.responseUrl('connect-sc'),
      }),
    );
    const sc = await fake.waitFor(() => inChannel(fake, 'chat.postMessage', 'CPISHARED')[1]);
    expect(String(sc.body.text)).toMatch(/shared with another organisation/);
    expect(sc.body.thread_ts).toBe('1700006100.000100');

    const after = await b.activity.recent(100);
    expect(after.filter((r) => r.channel === 'CPISHARED')).toEqual([]);
    expect(after.length - before.length).toBe(1);
  });

  it('answers from public material only in a Slack Connect channel when configured so, and says so', async () => {
    const b = await bot({ config: { ...app.config, slackConnect: 'public' } });
    await post(
      b.url,
      eventRequest(SIGNING_SECRET, {
        ...mentionEnvelope({ text: 'What is the renewal code word?', channel: 'CPI' }),
        is_ext_shared_channel: true,
      }),
    );
    const update = await fake.waitFor(() => inChannel(fake, 'chat.postMessage', 'CPI')[0]);
    expect(shown(update)).not.toMatch(/NIGHTJAR/);
    expect(shown(update)).toMatch(/only the lab’s public material/);
  });

  it('answers a DM with a file from its text and says attachments are not read', async () => {
    const b = await bot();
    const env = channelMessageEnvelope({
      text: 'How long is the TRIzol incubation?',
      channel: 'DFILE',
      channelType: 'im',
      subtype: 'file_share',
    });
    (env.event as Record<string, unknown>).files = [{ id: 'F1', name: 'gel.png', mimetype: 'image/png' }];
    await post(b.url, eventRequest(SIGNING_SECRET, env));
    const update = await fake.waitFor(() => inChannel(fake, 'chat.postMessage', 'DFILE')[0]);
    expect(shown(update)).toMatch(/do not read attachments/);
    expect(shown(update)).toMatch(/\[S\d+\]/);
  });

  it('drains acknowledged events and queued answers at shutdown; new events get 503', async () => {
    const b = await bot({ concurrency: 1, drainMs: 60_000 });
    const release = fake.hold('chat.postMessage', (body) => body.channel === 'CDRAIN1');
    await post(b.url, eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'How long is the TRIzol incubation?', channel: 'CDRAIN1' })));
    await fake.waitFor(() => inChannel(fake, 'chat.postMessage', 'CDRAIN1')[0]);
    // Acknowledged, then shutdown starts before (or while) it is handed to the handlers.
    expect(
      (
        await post(
          b.url,
          eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'How do I book the confocal microscope?', channel: 'CDRAIN2' })),
        )
      ).status,
    ).toBe(200);
    const order: string[] = [];
    const stopped = b.bot.stop().then(() => order.push('stopped'));
    expect((await post(b.url, eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'late question', channel: 'CDRAIN3' })))).status).toBe(
      503,
    );
    await sleep(100);
    order.push('released');
    release();
    await stopped;
    expect(order).toEqual(['released', 'stopped']);
    // Both answers were delivered before stop() returned: no status line left behind.
    expect(shown(inChannel(fake, 'chat.postMessage', 'CDRAIN2')[0])).toMatch(/\[S\d+\]/);
    expect([...fake.conversation.statuses.keys()].filter((k) => k.startsWith('CDRAIN'))).toEqual([]);
    expect(inChannel(fake, 'chat.postMessage', 'CDRAIN3')).toEqual([]);
  });

  it('answers an event acknowledged just before shutdown before stop() returns', async () => {
    const b = await bot({ drainMs: 60_000 });
    expect(
      (
        await post(
          b.url,
          eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'How long is the TRIzol incubation?', channel: 'CLASTACK' })),
        )
      ).status,
    ).toBe(200);
    // Nothing else is in flight: the drain must still wait for this acknowledged event.
    await b.bot.stop();
    expect(shown(inChannel(fake, 'chat.postMessage', 'CLASTACK')[0])).toMatch(/\[S\d+\]/);
  });

  it('bounds the drain: a stuck answer and a queued one each get a "restarting" note in their thread instead of a silent status', async () => {
    const b = await bot({ concurrency: 1, drainMs: 300 });
    const release = fake.hold('chat.postMessage', (body) => body.channel === 'CSTUCK' && !String(body.text).includes('restarting'));
    await post(b.url, eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'How long is the TRIzol incubation?', channel: 'CSTUCK' })));
    await fake.waitFor(() => inChannel(fake, 'chat.postMessage', 'CSTUCK')[0]);
    const queued = mentionEnvelope({ text: 'How do I book the confocal microscope?', channel: 'CSTUCK2' });
    await post(b.url, eventRequest(SIGNING_SECRET, queued));
    await fake.waitFor(() => fake.callsOf('assistant.threads.setStatus').find((c) => c.body.channel_id === 'CSTUCK2'));
    await b.bot.stop();
    const notes = [...inChannel(fake, 'chat.postMessage', 'CSTUCK'), ...inChannel(fake, 'chat.postMessage', 'CSTUCK2')].filter((c) =>
      /restarting/.test(String(c.body.text)),
    );
    expect(notes.map((c) => c.body.channel).sort()).toEqual(['CSTUCK', 'CSTUCK2']);
    expect(notes.find((c) => c.body.channel === 'CSTUCK2')?.body.thread_ts).toBe((queued.event as { ts: string }).ts);
    // The note is a reply, so Slack has cleared the status line of the queued question.
    expect(fake.conversation.statuses.has(`CSTUCK2:${(queued.event as { ts: string }).ts}`)).toBe(false);
    release();
  });

  it('bounds the drain for /labbot questions too: one queued behind a stuck answer is told privately, and not answered after', async () => {
    const b = await bot({ concurrency: 1, drainMs: 300 });
    const release = fake.hold('chat.postMessage', (body) => body.channel === 'CSTUCK3' && !String(body.text).includes('restarting'));
    await post(b.url, eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'How long is the TRIzol incubation?', channel: 'CSTUCK3' })));
    await fake.waitFor(() => inChannel(fake, 'chat.postMessage', 'CSTUCK3')[0]);
    const run = await runSlash(fake, b.url, { text: 'How do I book the confocal microscope?', channel: 'CSLASHQ', user: 'USLASHQ' });
    await b.bot.stop();
    const seen = fake.conversation.ephemeralFor('USLASHQ', 'CSLASHQ').map((m) => JSON.stringify(m.blocks));
    expect(seen).toHaveLength(2); // "Searching…", then the note; never the answer
    expect(seen[1]).toMatch(/labbot is restarting/);
    release();
    await sleep(300);
    expect(fake.responses.filter((r) => r.id === run.id)).toHaveLength(1);
  });
});
