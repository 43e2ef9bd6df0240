// The Slack bot at its edges: answers longer than Slack's limits, a model-written follow-up, an
// empty index, a Chroma outage, and Socket Mode over a local WebSocket.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLabbot } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { startChromaServer, type ChromaServer } from '../src/store/chroma-server.ts';
import { testEnv } from './helpers/app.ts';
import type { FakeOpenAI } from './helpers/fake-openai.ts';
import { startModelSlackHarness, type ModelSlackHarness } from './helpers/slack-harness.ts';
import { startFakeSlack, validateBlocks, type FakeSlack, type SlackCall } from './helpers/fake-slack.ts';
import { SIGNING_SECRET, slackEnv, startTestBot, type RunningBot } from './helpers/slack-bot.ts';
import { eventRequest, mentionEnvelope, post } from './helpers/slack-request.ts';
import { type SlackHarness, startSlackHarness } from './helpers/slack-harness.ts';

const LAB = path.resolve('examples/lab');
const fileConfig = {
  sources: [{ id: 'lab', type: 'folder', path: LAB }],
  access: { default: 'public', channels: { CPI: ['pi-only'] } },
};

function sectionTexts(c: SlackCall): string[] {
  return ((c.body.blocks as { type: string; text?: { text: string } }[]) ?? [])
    .filter((b) => b.type === 'section')
    .map((b) => b.text!.text);
}

describe('answers longer than Slack allows (model via a fake OpenAI endpoint)', () => {
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

  it('splits a ~200,000-character answer into valid messages of <= 50 blocks, nothing lost', async () => {
    const paragraph = (i: number) => `**Point ${i}.** ${'The Western blot uses a blocking step with milk in TBST. '.repeat(30)}[S1]`;
    const long = Array.from({ length: 120 }, (_, i) => paragraph(i)).join('\n\n');
    openai.reply = (msgs) => (msgs.some((m) => m.content.includes('Rewrite the last question')) ? 'standalone question' : long);
    await post(
      bot.url,
      eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'Tell me everything about the Western blot blocking step', channel: 'CLONG' })),
    );
    const thread = await fake.waitFor(() => {
      const calls = fake.calls.filter((c) => c.body.channel === 'CLONG' && (c.method === 'chat.update' || c.method === 'chat.postMessage'));
      // the streamed preview replaced + at least one continuation, and the last one carries the feedback buttons
      const last = calls[calls.length - 1];
      return calls.length >= 2 && JSON.stringify(last?.body.blocks ?? []).includes('feedback_buttons') ? calls : undefined;
    }, 30_000);
    const answerCalls = thread;
    for (const c of answerCalls) {
      expect(validateBlocks(c.body.blocks)).toBeUndefined();
      expect((c.body.blocks as unknown[]).length).toBeLessThanOrEqual(50);
      for (const t of sectionTexts(c)) expect(t.length).toBeLessThanOrEqual(3000);
      expect(String(c.body.text).length).toBeGreaterThan(0);
    }
    expect(answerCalls[0].method).toBe('chat.update');
    expect(answerCalls.length).toBeGreaterThanOrEqual(2);
    const all = answerCalls.flatMap(sectionTexts).join('\n');
    for (let i = 0; i < 120; i++) expect(all).toContain(`*Point ${i}.*`);
    expect(all.match(/blocking step with milk/g)?.length).toBe(120 * 30);
    expect(
      fake.calls.some(
        (c) => c.body.channel === 'CLONG' && (c.method === 'chat.update' || c.method === 'chat.postMessage') && c.body.blocks === undefined,
      ),
    ).toBe(false);
    expect(JSON.stringify(answerCalls[answerCalls.length - 1].body.blocks)).toContain('Answered by fake-chat');
  });

  it('asks the model to rewrite a thread follow-up when a model is configured', async () => {
    openai.requests.length = 0;
    openai.reply = (msgs) =>
      msgs.some((m) => m.content.includes('Rewrite the last question'))
        ? 'What is the primary antibody dilution for the Western blot?'
        : 'Use 1:1000 [S1].';
    const parent = '1700000200.000100';
    fake.threads.set(`CMODEL:${parent}`, [
      { ts: parent, user: 'UASKER', text: '<@UBOT> Western blot primary antibody dilution?' },
      { ts: '1700000201.000100', user: 'UASKER', text: '<@UBOT> and the secondary?' },
    ]);
    await post(
      bot.url,
      eventRequest(
        SIGNING_SECRET,
        mentionEnvelope({ text: 'and the secondary?', channel: 'CMODEL', ts: '1700000201.000100', threadTs: parent }),
      ),
    );
    // Streamed in the thread to the asker; the checked answer kept the model's text.
    await fake.waitFor(() => fake.conversation.messages.find((m) => m.channel === 'CMODEL' && m.stream?.stopped));
    expect(fake.conversation.messages.find((m) => m.channel === 'CMODEL' && m.stream)!.stream!.text).toContain('1:1000');
    const rewriteCall = openai.requests.find((r) => JSON.stringify(r.body).includes('Rewrite the last question'));
    expect(JSON.stringify(rewriteCall?.body)).toContain('Western blot primary antibody dilution?');
  });
});

describe('never silent: empty index and Chroma outage', () => {
  let fake: FakeSlack;
  beforeAll(async () => {
    fake = await startFakeSlack();
  });
  afterAll(async () => fake?.close());

  it('says the index is empty and how to fix it', async () => {
    const h = await startSlackHarness({ fileConfig, ingest: false });
    const { fake, bot } = h;
    try {
      await post(bot.url, eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'What dilution?', channel: 'CEMPTY' })));
      const update = await fake.waitFor(() => fake.callsOf('chat.postMessage').find((c) => c.body.channel === 'CEMPTY'));
      expect(String(update.body.text)).toMatch(/index is empty.*\/labbot reindex/);
      await post(
        bot.url,
        eventRequest(SIGNING_SECRET, mentionEnvelope({ text: '¿Qué dilución se usa para el anticuerpo primario?', channel: 'CEMPTYES' })),
      );
      const es = await fake.waitFor(() => fake.callsOf('chat.postMessage').find((c) => c.body.channel === 'CEMPTYES'));
      expect(String(es.body.text)).toMatch(/índice está vacío/);
    } finally {
      await h.close();
    }
  });

  it('says the index is unavailable when Chroma is down', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-chroma-outage-'));
    let chroma: ChromaServer | undefined = await startChromaServer(dir);
    const config = loadConfig({ ...testEnv({ fileConfig, env: slackEnv(fake.apiUrl) }), CHROMA_URL: chroma.url });
    const app = await openLabbot(config, createLogger('silent'));
    const bot = await startTestBot(app);
    try {
      await app.ingestSource(app.config.sources[0]);
      await chroma.stop();
      chroma = undefined;
      await post(
        bot.url,
        eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'What antibody dilution for the Western blot?', channel: 'CDOWN' })),
      );
      const update = await fake.waitFor(() => fake.callsOf('chat.postMessage').find((c) => c.body.channel === 'CDOWN'), 30_000);
      expect(String(update.body.text)).toMatch(/index is unavailable right now/);
    } finally {
      await bot.close();
      await app.close();
      await chroma?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Socket Mode', () => {
  let harness: SlackHarness | undefined;
  let fake: FakeSlack;
  let bot: RunningBot;
  beforeAll(async () => {
    harness = await startSlackHarness({ fileConfig, env: { SLACK_APP_TOKEN: 'xapp-1-test' } });
    ({ fake, bot } = harness);
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('connects via apps.connections.open, acks the envelope and answers', async () => {
    expect(bot.bot.mode).toBe('socket');
    expect(bot.bot.router).toBeUndefined();
    expect(fake.callsOf('apps.connections.open')).toHaveLength(1);
    await fake.waitFor(() => fake.wsConnected());
    const envelope = mentionEnvelope({ text: 'What antibody dilution is used for the Western blot primary antibody?', channel: 'CSOCK' });
    const id = fake.sendEnvelope('events_api', envelope);
    await fake.waitFor(() => fake.wsReceived.find((m) => m.envelope_id === id));
    const update = await fake.waitFor(() => fake.callsOf('chat.postMessage').find((c) => c.body.channel === 'CSOCK'));
    expect(sectionTexts(update).join('\n')).toMatch(/\[S\d+\]/);
    // The same event delivered again over the socket is acked but not answered twice.
    const again = fake.sendEnvelope('events_api', envelope);
    await fake.waitFor(() => fake.wsReceived.find((m) => m.envelope_id === again));
    // A later event answered means the repeat went through Bolt before it (the socket delivers
    // in order): a second answer to CSOCK would have been started by then. No fixed wait.
    fake.sendEnvelope('events_api', mentionEnvelope({ text: 'How long do we block the membrane?', channel: 'CSOCK2' }));
    await fake.waitFor(() => fake.callsOf('chat.postMessage').find((c) => c.body.channel === 'CSOCK2'));
    expect(fake.calls.filter((c) => c.body.channel === 'CSOCK' && c.method === 'chat.postMessage')).toHaveLength(1);
    expect(fake.calls.filter((c) => c.body.channel === 'CSOCK' && c.method === 'chat.update')).toHaveLength(0);
  });
});
