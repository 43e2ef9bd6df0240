// A model's answer streamed as it is written (chat.startStream / appendStream / stopStream), in DM
// threads and in channel threads (with the asker as recipient), with the Sources and feedback
// buttons added at the end; no placeholder comes and goes; the checked answer replaces the preview
// when checking the citations changed it, and the preview never carries a link. Real Bolt, Redis, Chroma and
// LangChain's OpenAI client against a fake OpenAI endpoint that streams server-sent events.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { passageLine, type FakeOpenAI } from './helpers/fake-openai.ts';
import { startModelSlackHarness, type ModelSlackHarness } from './helpers/slack-harness.ts';
import type { FakeSlack } from './helpers/fake-slack.ts';
import { SIGNING_SECRET, type RunningBot } from './helpers/slack-bot.ts';
import { channelMessageEnvelope, eventRequest, mentionEnvelope, post } from './helpers/slack-request.ts';

const LAB = path.resolve('examples/lab');
const fileConfig = { sources: [{ id: 'lab', type: 'folder', path: LAB }] };

describe('streamed model answers', () => {
  let fake: FakeSlack;
  let openai: FakeOpenAI;
  let bot: RunningBot;
  let harness: ModelSlackHarness | undefined;
  beforeAll(async () => {
    harness = await startModelSlackHarness({ fileConfig });
    ({ fake, bot, openai } = harness);
  });
  afterAll(async () => {
    await harness?.close();
  });

  const inChannel = (method: string, channel: string) => fake.callsOf(method).filter((c) => c.body.channel === channel);

  it('streams the answer in the DM thread, escaped, then adds Sources and feedback buttons; no placeholder message at all', async () => {
    // A restatement of the cited passage (the citation check keeps it) carrying a mention token.
    openai.reply = (messages) =>
      `${'The TRIzol incubation is five minutes at room temperature before adding chloroform. '.repeat(12)}${passageLine(messages, 'S1').replace(/\.$/, '')} ` +
      `(never write <!channel> here) [S1].`;
    const ts = '1700010000.000100';
    await post(
      bot.url,
      eventRequest(
        SIGNING_SECRET,
        channelMessageEnvelope({ text: 'How long is the TRIzol incubation?', channel: 'DSTREAM', channelType: 'im', user: 'USTREAM', ts }),
      ),
    );
    await fake.waitFor(() => fake.conversation.messages.find((m) => m.channel === 'DSTREAM' && m.stream?.stopped), 30_000);
    const stop = inChannel('chat.stopStream', 'DSTREAM')[0];
    const start = inChannel('chat.startStream', 'DSTREAM');
    expect(start).toHaveLength(1);
    expect(start[0].body.thread_ts).toBe(ts);
    expect(start[0].body.recipient_user_id).toBe('USTREAM');
    const appends = inChannel('chat.appendStream', 'DSTREAM');
    expect(appends.length).toBeGreaterThan(0);
    expect(start[0].at).toBeLessThan(appends[0].at);
    expect(appends[appends.length - 1].at).toBeLessThan(stop.at);
    const streamed = fake.conversation.message(String(stop.body.ts))!.stream!;
    expect(streamed.stopped).toBe(true);
    expect(streamed.text).toContain('five minutes at room temperature');
    expect(streamed.text).toContain('&lt;!channel&gt;');
    expect(streamed.text).not.toContain('<!channel>');
    const closing = JSON.stringify(stop.body.blocks);
    expect(closing).toContain('Sources');
    expect(closing).toContain('"type":"feedback_buttons"');
    // No "Searching…" message was posted and deleted (a flicker): a status line showed labbot at work, and the stream cleared it.
    expect(inChannel('chat.postMessage', 'DSTREAM')).toEqual([]);
    expect(inChannel('chat.delete', 'DSTREAM')).toEqual([]);
    expect(inChannel('chat.update', 'DSTREAM')).toEqual([]);
    const status = fake.callsOf('assistant.threads.setStatus').filter((c) => c.body.channel_id === 'DSTREAM');
    expect(status[0].at).toBeLessThan(start[0].at);
    expect(fake.conversation.statuses.has(`DSTREAM:${ts}`)).toBe(false);
  });

  it('replaces the streamed preview with the checked answer when a citation was invalid', async () => {
    openai.reply = () => `${'Incubate the lysate for five minutes at room temperature. '.repeat(8)}See [S1] and [S99].`;
    await post(
      bot.url,
      eventRequest(
        SIGNING_SECRET,
        channelMessageEnvelope({ text: 'How long is the TRIzol incubation?', channel: 'DCHECK', channelType: 'im', user: 'UCHECK' }),
      ),
    );
    const update = await fake.waitFor(() => inChannel('chat.update', 'DCHECK')[0], 30_000);
    const stop = inChannel('chat.stopStream', 'DCHECK')[0];
    expect(update.body.ts).toBe(stop.body.ts);
    expect(JSON.stringify(update.body.blocks)).not.toContain('S99');
    // Brackets are streamed backslash-escaped (no Markdown link can form in a preview).
    expect(fake.conversation.message(String(stop.body.ts))!.stream!.text).toContain('\\[S99\\]');
  });

  it('never streams a disguised link, and replaces a preview whose code spans showed escape backslashes', async () => {
    openai.reply = (messages) =>
      `${'The TRIzol incubation is five minutes at room temperature before adding chloroform. '.repeat(8)}Log ` +
      `it in [the official lab portal](https://evil.example/login) and keep \`/data/trizol/[run]_*.csv\` ` +
      `(${passageLine(messages, 'S1').replace(/\.$/, '')}) [S1].`;
    await post(
      bot.url,
      eventRequest(
        SIGNING_SECRET,
        channelMessageEnvelope({ text: 'How long is the TRIzol incubation?', channel: 'DLINKS', channelType: 'im', user: 'ULINKS' }),
      ),
    );
    const update = await fake.waitFor(() => inChannel('chat.update', 'DLINKS')[0], 30_000);
    const stop = inChannel('chat.stopStream', 'DLINKS')[0];
    expect(update.body.ts).toBe(stop.body.ts);
    const streamed = fake.conversation.message(String(stop.body.ts))!.stream!.text;
    // The preview shows a link's label only: no URL, and no Markdown link can form.
    expect(streamed).toContain('Log it in the official lab portal and keep');
    expect(streamed).not.toContain('evil.example');
    const final = JSON.stringify(update.body.blocks);
    expect(final).toContain('the official lab portal (evil.example)');
    expect(final).toContain('`/data/trizol/[run]_*.csv`');
    expect(fake.strayLinks).toEqual([]);
  });

  it('streams a channel mention’s answer in its thread to the asker (recipient user and team), and the final message is the checked one', async () => {
    openai.reply = (messages) =>
      `${'The TRIzol incubation is five minutes at room temperature before adding chloroform. '.repeat(6)}` +
      `${passageLine(messages, 'S1').replace(/\.$/, '')} [S1].`;
    const env = mentionEnvelope({ text: 'How long is the TRIzol incubation?', channel: 'CSTREAM', user: 'UCHAN' });
    const ts = (env.event as { ts: string }).ts;
    await post(bot.url, eventRequest(SIGNING_SECRET, env));
    // Done when labbot has remembered which message answers the question (for edits and deletions).
    const key = `${bot.prefix}slack:answer:CSTREAM:${ts}`;
    await fake.waitFor(() => inChannel('chat.stopStream', 'CSTREAM')[0], 30_000);
    for (let i = 0; i < 100 && (await bot.redis.hget(key, 'state')) !== 'answered'; i++) await new Promise((r) => setTimeout(r, 50));
    const stop = inChannel('chat.stopStream', 'CSTREAM')[0];
    expect(JSON.parse((await bot.redis.hget(key, 'answers'))!)).toEqual([stop.body.ts]);
    const start = inChannel('chat.startStream', 'CSTREAM')[0];
    expect(start.body).toMatchObject({ thread_ts: ts, recipient_user_id: 'UCHAN', recipient_team_id: 'T0LAB' });
    expect(inChannel('chat.postMessage', 'CSTREAM')).toEqual([]);
    // The citation check kept the model's text: the streamed message is the answer, with Sources and feedback under it.
    const shown = fake.conversation.message(String(stop.body.ts))!;
    expect(shown.text).toContain('five minutes at room temperature');
    expect(JSON.stringify(shown.blocks)).toContain('Sources');
    expect(inChannel('chat.update', 'CSTREAM')).toEqual([]);
  });

  it('a streamed preview never carries a link; the checked answer replaces it', async () => {
    openai.reply = (messages) =>
      `Log in at [the official lab portal](https://evil.example/login) or see ` +
      `https://evil.example/steal?x=1 first. ${passageLine(messages, 'S1').replace(/\.$/, '')} ` +
      `[S1]. ${'More words follow here to pass the buffer. '.repeat(6)}`;
    await post(bot.url, eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'How long is the TRIzol incubation?', channel: 'CLINKS' })));
    const update = await fake.waitFor(() => inChannel('chat.update', 'CLINKS')[0], 30_000);
    const stop = inChannel('chat.stopStream', 'CLINKS')[0];
    const streamed = [...inChannel('chat.startStream', 'CLINKS'), ...inChannel('chat.appendStream', 'CLINKS'), stop]
      .map((c) => JSON.stringify([c.body.markdown_text ?? '', c.body.chunks ?? '']))
      .join('');
    expect(streamed).toContain('the official lab portal');
    expect(streamed).not.toContain('](');
    expect(streamed).not.toContain('https://evil.example');
    expect(streamed).toContain('`evil.example`');
    expect(update.body.ts).toBe(stop.body.ts);
  });
});
