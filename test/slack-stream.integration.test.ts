// A model's answer streamed into a direct/assistant thread as it is written (chat.startStream /
// appendStream / stopStream), with the Sources and buttons added at the end; the checked answer
// replaces the preview when checking the citations changed it. Real Bolt, Redis, Chroma and
// LangChain's OpenAI client against a fake OpenAI endpoint that streams server-sent events.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../src/app.ts';
import { passageLine, type FakeOpenAI } from './helpers/fake-openai.ts';
import { startModelSlackHarness, type ModelSlackHarness } from './helpers/slack-harness.ts';
import type { FakeSlack } from './helpers/fake-slack.ts';
import { SIGNING_SECRET, type RunningBot } from './helpers/slack-bot.ts';
import { channelMessageEnvelope, eventRequest, mentionEnvelope, post } from './helpers/slack-request.ts';

const LAB = path.resolve('examples/lab');
const fileConfig = { sources: [{ id: 'lab', type: 'folder', path: LAB }] };

describe('streamed model answers', () => {
  let app: App;
  let fake: FakeSlack;
  let openai: FakeOpenAI;
  let bot: RunningBot;
  let harness: ModelSlackHarness | undefined;
  beforeAll(async () => {
    harness = await startModelSlackHarness({ fileConfig });
    ({ app, fake, bot, openai } = harness);
  });
  afterAll(async () => {
    await harness?.close();
  });

  const inChannel = (method: string, channel: string) => fake.callsOf(method).filter((c) => c.body.channel === channel);

  it('streams the answer in the DM thread, escaped, then adds Sources and buttons; the placeholder goes', async () => {
    // A restatement of the cited passage (the citation check keeps it) carrying a mention token.
    openai.reply = (messages) =>
      `${'The TRIzol incubation is five minutes at room temperature before adding chloroform. '.repeat(12)}${passageLine(messages, 'S1').replace(/\.$/, '')} (never write <!channel> here) [S1].`;
    const ts = '1700010000.000100';
    await post(bot.url, eventRequest(SIGNING_SECRET, channelMessageEnvelope({ text: 'How long is the TRIzol incubation?', channel: 'DSTREAM', channelType: 'im', user: 'USTREAM', ts })));
    await fake.waitFor(() => [...fake.streams.values()].find((x) => x.channel === 'DSTREAM' && x.stopped), 30_000);
    const stop = inChannel('chat.stopStream', 'DSTREAM')[0];
    const start = inChannel('chat.startStream', 'DSTREAM');
    expect(start).toHaveLength(1);
    expect(start[0].body.thread_ts).toBe(ts);
    expect(start[0].body.recipient_user_id).toBe('USTREAM');
    const appends = inChannel('chat.appendStream', 'DSTREAM');
    expect(appends.length).toBeGreaterThan(0);
    expect(start[0].at).toBeLessThan(appends[0].at);
    expect(appends[appends.length - 1].at).toBeLessThan(stop.at);
    const streamed = fake.streams.get(String(stop.body.ts))!;
    expect(streamed.stopped).toBe(true);
    expect(streamed.text).toContain('five minutes at room temperature');
    expect(streamed.text).toContain('&lt;!channel&gt;');
    expect(streamed.text).not.toContain('<!channel>');
    const closing = JSON.stringify(stop.body.blocks);
    expect(closing).toContain('Sources');
    expect(closing).toContain('labbot_feedback_up');
    // The "Searching…" placeholder was removed, not left behind.
    expect(String(inChannel('chat.postMessage', 'DSTREAM')[0].body.text)).toMatch(/Searching/);
    const deletes = inChannel('chat.delete', 'DSTREAM');
    expect(deletes).toHaveLength(1);
    expect(deletes[0].body.ts).not.toBe(stop.body.ts);
    expect(inChannel('chat.update', 'DSTREAM')).toEqual([]);
  });

  it('replaces the streamed preview with the checked answer when a citation was invalid', async () => {
    openai.reply = () => `${'Incubate the lysate for five minutes at room temperature. '.repeat(8)}See [S1] and [S99].`;
    await post(bot.url, eventRequest(SIGNING_SECRET, channelMessageEnvelope({ text: 'How long is the TRIzol incubation?', channel: 'DCHECK', channelType: 'im', user: 'UCHECK' })));
    const update = await fake.waitFor(() => inChannel('chat.update', 'DCHECK')[0], 30_000);
    const stop = inChannel('chat.stopStream', 'DCHECK')[0];
    expect(update.body.ts).toBe(stop.body.ts);
    expect(JSON.stringify(update.body.blocks)).not.toContain('S99');
    // Brackets are streamed backslash-escaped (no Markdown link can form in a preview).
    expect(fake.streams.get(String(stop.body.ts))!.text).toContain('\\[S99\\]');
  });

  it('never streams a disguised link, and replaces a preview whose code spans showed escape backslashes', async () => {
    openai.reply = (messages) =>
      `${'The TRIzol incubation is five minutes at room temperature before adding chloroform. '.repeat(8)}Log it in [the official lab portal](https://evil.example/login) and keep \`/data/trizol/[run]_*.csv\` (${passageLine(messages, 'S1').replace(/\.$/, '')}) [S1].`;
    await post(bot.url, eventRequest(SIGNING_SECRET, channelMessageEnvelope({ text: 'How long is the TRIzol incubation?', channel: 'DLINKS', channelType: 'im', user: 'ULINKS' })));
    const update = await fake.waitFor(() => inChannel('chat.update', 'DLINKS')[0], 30_000);
    const stop = inChannel('chat.stopStream', 'DLINKS')[0];
    expect(update.body.ts).toBe(stop.body.ts);
    const streamed = fake.streams.get(String(stop.body.ts))!.text;
    expect(streamed).toContain('\\[the official lab portal\\](https://evil.example/login)');
    const final = JSON.stringify(update.body.blocks);
    expect(final).toContain('the official lab portal (evil.example)');
    expect(final).toContain('`/data/trizol/[run]_*.csv`');
    expect(fake.strayLinks).toEqual([]);
  });

  it('answers channel mentions as one checked post, not a stream', async () => {
    openai.reply = () => 'Five minutes at room temperature [S1].';
    await post(bot.url, eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'How long is the TRIzol incubation?', channel: 'CNOSTREAM' })));
    const update = await fake.waitFor(() => inChannel('chat.update', 'CNOSTREAM')[0], 30_000);
    expect(JSON.stringify(update.body.blocks)).toContain('Five minutes');
    expect(inChannel('chat.startStream', 'CNOSTREAM')).toEqual([]);
  });
});
