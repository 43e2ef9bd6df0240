// Mentioned users read by name, and private answers that never lose their tail, end to end against
// the strict fake Slack (real Bolt, Redis, Chroma; the model is a fake OpenAI endpoint).
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { webApi } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Labbot } from '../src/app.ts';
import { namesIn, threadHistory } from '../src/slack/answer-question.ts';
import { createUserDirectory } from '../src/slack/user-names.ts';
import type { FakeOpenAI } from './helpers/fake-openai.ts';
import { startModelSlackHarness, type ModelSlackHarness } from './helpers/slack-harness.ts';
import { blocksTextLength, findMentions, validateMessage, type FakeSlack } from './helpers/fake-slack.ts';
import { captureLog } from './helpers/log-capture.ts';
import { feedbackRecordId, waitForAnswerWithRecord } from './helpers/slack-answers.ts';
import { SIGNING_SECRET, type RunningBot } from './helpers/slack-bot.ts';
import {
  appHomeOpenedEnvelope,
  blockActionRequest,
  eventRequest,
  mentionEnvelope,
  messageShortcutRequest,
  post,
  slashRequest,
} from './helpers/slack-request.ts';

const STEPS = 170;

function labFolder(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-names-'));
  writeFileSync(
    path.join(dir, 'blocking.md'),
    '# Membrane blocking\n\nBlock the membrane in 5% milk in TBST for one hour at room temperature before the primary antibody.\n\n' +
      '## p53\n\nAda Okafor found that p53 is stabilised after UV damage in our fibroblast lines.\n',
  );
  return dir;
}

/** An answer too long for 5 messages (~65,000 characters, ~11,000 per message). */
function veryLongAnswer(): string {
  const para = (i: number) =>
    `**Step ${i}.** ${'Block the membrane in 5% milk in TBST for one hour. '.repeat(6)}Block the membrane in 5% milk in TBST for one hour. [S1]`;
  return Array.from({ length: STEPS }, (_, i) => para(i)).join('\n\n');
}

type Blocks = { type: string; text?: { text: string }; elements?: { action_id?: string; value?: string }[] }[];
const sectionText = (body: Record<string, unknown>) =>
  ((body.blocks as Blocks) ?? [])
    .filter((b) => b.type === 'section')
    .map((b) => b.text!.text)
    .join('\n');
const actionValue = (body: Record<string, unknown>, actionId: string) =>
  ((body.blocks as Blocks) ?? []).flatMap((b) => b.elements ?? []).find((e) => e.action_id === actionId)?.value;

describe('mentioned users by name; private answers in full', () => {
  let app: Labbot;
  let fake: FakeSlack;
  let openai: FakeOpenAI;
  let bot: RunningBot;
  let harness: ModelSlackHarness | undefined;
  beforeAll(async () => {
    harness = await startModelSlackHarness({
      fileConfig: { sources: [{ id: 'lab', type: 'folder', path: labFolder() }], access: { default: 'public' } },
      ingest: false,
    });
    ({ app, fake, bot, openai } = harness);
    fake.users.set('U123', { name: 'ada', display_name: 'Ada Okafor', real_name: 'Adaeze Okafor' });
    fake.users.set('U456', { name: 'ben', display_name: '', real_name: 'Ben Moreau' });
    // User-controlled text: a display name that would ping the channel if echoed as mrkdwn.
    fake.users.set('UEVIL', { name: 'eve', display_name: '<!channel> *Eve* <https://evil.example|login>', real_name: 'Eve' });
    const s = await app.ingestSource(app.config.sources[0]);
    expect(s.failed).toEqual([]);
    openai.reply = () => 'Ada Okafor found that p53 is stabilised after UV damage [S1].';
  });
  afterAll(async () => {
    await harness?.close(); // the fake fails the suite if anything labbot posted would have pinged
  });

  const recordOf = async (body: Record<string, unknown>) =>
    bot.activity.get((actionValue(body, 'labbot_feedback_up') ?? feedbackRecordId(body.blocks))!);
  const usersInfoFor = (id: string) => fake.callsOf('users.info').filter((c) => c.body.user === id);

  it('a mention question is recorded and searched with the mentioned user by name', async () => {
    openai.requests.length = 0;
    await post(
      bot.url,
      eventRequest(SIGNING_SECRET, mentionEnvelope({ text: '<@UBOT> what did <@U123> say about p53?', channel: 'CNAMES' })),
    );
    const update = await waitForAnswerWithRecord(fake, 'CNAMES', 30_000);
    const record = await recordOf(update.body);
    expect(record?.question).toBe('what did @Ada Okafor say about p53?');
    expect(JSON.stringify(openai.requests.find((r) => r.path.endsWith('/chat/completions'))?.body)).toContain(
      'what did @Ada Okafor say about p53?',
    );
    // labbot itself is not looked up; Ada is, once, and then comes from the cache.
    expect(usersInfoFor('UBOT')).toEqual([]);
    expect(usersInfoFor('U123')).toHaveLength(1);
    await post(
      bot.url,
      eventRequest(SIGNING_SECRET, mentionEnvelope({ text: '<@UBOT> and <@U123> on p53 in fibroblasts?', channel: 'CNAMES2' })),
    );
    const again = await waitForAnswerWithRecord(fake, 'CNAMES2', 30_000);
    expect((await recordOf(again.body))?.question).toBe('and @Ada Okafor on p53 in fibroblasts?');
    expect(usersInfoFor('U123')).toHaveLength(1);
  });

  it('falls back to the real name, and to "@user" when Slack cannot say (unknown user, missing scope) without holding the answer', async () => {
    fake.failNext('users.info', { error: 'missing_scope' });
    await post(
      bot.url,
      eventRequest(SIGNING_SECRET, mentionEnvelope({ text: '<@UBOT> did <@U999> or <@U456> see p53 stabilised?', channel: 'CFALL' })),
    );
    const update = await waitForAnswerWithRecord(fake, 'CFALL', 30_000);
    const question = (await recordOf(update.body))?.question;
    // One of the two lookups got missing_scope (whichever went first), the other its real answer.
    expect(question === 'did @user or @user see p53 stabilised?' || question === 'did @user or @Ben Moreau see p53 stabilised?').toBe(true);
    expect(question).not.toMatch(/U999|u999|U456/);
  });

  it('/labbot ask and the message shortcut read mentions by name too', async () => {
    await post(
      bot.url,
      slashRequest(SIGNING_SECRET, { text: 'ask what did <@U123> say about p53?', responseUrl: fake.responseUrl('names-ask') }),
    );
    const priv = await fake.waitFor(() => fake.responses.find((r) => r.id === 'names-ask'), 30_000);
    expect((await recordOf(priv.body))?.question).toBe('what did @Ada Okafor say about p53?');

    await post(
      bot.url,
      messageShortcutRequest(SIGNING_SECRET, {
        callbackId: 'labbot_ask_about_message',
        text: 'Is <@U123> right that p53 is stabilised after UV?',
        channel: 'CSHORT',
        ts: '1700000500.000100',
        responseUrl: fake.responseUrl('names-sc'),
      }),
    );
    const answer = await waitForAnswerWithRecord(fake, 'CSHORT', 30_000);
    expect((await recordOf(answer.body))?.question).toBe('Is @Ada Okafor right that p53 is stabilised after UV?');
  });

  it('reads the thread history with names', async () => {
    const client = new webApi.WebClient('xoxb-test', { slackApiUrl: fake.apiUrl });
    fake.threads.set('CHISTN:1700000600.000100', [
      { ts: '1700000600.000100', user: 'UASKER', text: '<@UBOT> what did <@U456> measure?' },
      { ts: '1700000601.000100', bot_id: 'BBOT', user: 'UBOT', text: 'Ben measured p53 [S1].' },
      { ts: '1700000602.000100', user: 'UASKER', text: '<@UBOT> and <@U123>?' },
    ]);
    const deps = { userNames: createUserDirectory({ log: captureLog().log }) };
    const turns = await threadHistory(
      client,
      { channel: 'CHISTN', threadTs: '1700000600.000100', eventTs: '1700000602.000100', botUserId: 'UBOT' },
      [],
      namesIn(client, deps),
    );
    expect(turns).toEqual([
      { role: 'user', text: 'what did @Ben Moreau measure?' },
      { role: 'assistant', text: 'Ben measured p53 [S1].' },
    ]);
  });

  it('a name echoed back (Share, App Home) is escaped: it never becomes a mention or a link', async () => {
    fake.allowMentions('<@UASKER>'); // labbot's own attribution of a shared answer
    await post(
      bot.url,
      slashRequest(SIGNING_SECRET, { text: 'ask what did <@UEVIL> say about p53?', responseUrl: fake.responseUrl('names-evil') }),
    );
    const priv = await fake.waitFor(() => fake.responses.find((r) => r.id === 'names-evil'), 30_000);
    expect((await recordOf(priv.body))?.question).toBe('what did @<!channel> *Eve* <https://evil.example|login> say about p53?');
    await post(
      bot.url,
      blockActionRequest(SIGNING_SECRET, {
        actionId: 'labbot_share',
        value: actionValue(priv.body, 'labbot_share')!,
        responseUrl: fake.responseUrl('names-evil-share'),
      }),
    );
    const shared = await fake.waitFor(() => fake.responses.find((r) => r.id === 'names-evil-share'), 30_000);
    expect(shared.body.response_type).toBe('in_channel');
    const posted = JSON.stringify(shared.body.blocks);
    expect(posted).toContain('<@UASKER> asked: what did @&lt;!channel&gt;');
    expect(posted).not.toMatch(/<!channel>|<https:\/\/evil/);
    expect(findMentions(shared.body)).toEqual(['<@UASKER>']);

    await post(bot.url, eventRequest(SIGNING_SECRET, appHomeOpenedEnvelope({ user: 'UASKER' })));
    const home = await fake.waitFor(() => fake.callsOf('views.publish').find((c) => JSON.stringify(c.body).includes('Eve')), 30_000);
    const view: unknown = typeof home.body.view === 'string' ? JSON.parse(home.body.view) : home.body.view;
    expect(JSON.stringify(view)).toContain('what did @&lt;!channel&gt;');
    expect(findMentions(view)).toEqual([]);
    expect(fake.strayMentions).toEqual([]);
  });

  it('a private answer needing 6+ messages loses nothing: 4 go to response_url, the rest by chat.postEphemeral', async () => {
    openai.reply = () => veryLongAnswer();
    await post(
      bot.url,
      slashRequest(SIGNING_SECRET, {
        text: 'ask How do we block the membrane?',
        channel: 'CLONGP',
        responseUrl: fake.responseUrl('long-priv'),
      }),
    );
    const done = () => [
      ...fake.responses.filter((r) => r.id === 'long-priv').map((r) => r.body),
      ...fake
        .callsOf('chat.postEphemeral')
        .filter((c) => c.body.channel === 'CLONGP')
        .map((c) => c.body),
    ];
    const bodies = await fake.waitFor(() => {
      const b = done();
      return b.length && actionValue(b[b.length - 1], 'labbot_feedback_up') ? b : undefined;
    }, 30_000);
    expect(bodies.length).toBeGreaterThanOrEqual(6);
    expect(fake.rejected.filter((r) => r.method === 'response_url' || r.body.channel === 'CLONGP')).toEqual([]);
    expect(fake.responses.filter((r) => r.id === 'long-priv')).toHaveLength(4);
    for (const c of fake.callsOf('chat.postEphemeral').filter((c) => c.body.channel === 'CLONGP')) expect(c.body.user).toBe('UASKER');
    for (const b of bodies) expect(validateMessage(b)).toBeUndefined();
    const all = bodies.map(sectionText).join('\n');
    for (let i = 0; i < STEPS; i++) expect(all).toContain(`*Step ${i}.*`);
    expect(actionValue(bodies[bodies.length - 1], 'labbot_share')).toBeDefined();
  });

  it('where chat.postEphemeral cannot reach the asker, the rest goes by direct message and the fifth post says so', async () => {
    openai.reply = () => veryLongAnswer();
    fake.failNext('chat.postEphemeral', { error: 'channel_not_found' });
    await post(
      bot.url,
      slashRequest(SIGNING_SECRET, {
        text: 'ask How do we block the membrane, again?',
        channel: 'CNOTIN',
        user: 'UDMUSER',
        responseUrl: fake.responseUrl('long-dm'),
      }),
    );
    const note = await fake.waitFor(() => fake.responses.filter((r) => r.id === 'long-dm')[4], 60_000);
    expect(JSON.stringify(note.body)).toContain('direct messages');
    const viaUrl = fake.responses
      .filter((r) => r.id === 'long-dm')
      .slice(0, 4)
      .map((r) => r.body);
    const viaDm = fake
      .callsOf('chat.postMessage')
      .filter((c) => c.body.channel === 'UDMUSER')
      .map((c) => c.body);
    expect(viaDm.length).toBeGreaterThanOrEqual(2);
    const all = [...viaUrl, ...viaDm].map(sectionText).join('\n');
    for (let i = 0; i < STEPS; i++) expect(all).toContain(`*Step ${i}.*`);
    expect(actionValue(viaDm[viaDm.length - 1], 'labbot_feedback_up')).toBeDefined();
  });

  it('a part chat.postEphemeral refuses as too long (msg_blocks_too_long) is re-split and sent, never truncated', async () => {
    openai.reply = () => veryLongAnswer();
    fake.failNext('chat.postEphemeral', { error: 'msg_blocks_too_long' });
    await post(
      bot.url,
      slashRequest(SIGNING_SECRET, {
        text: 'ask How do we block the membrane, step by step?',
        channel: 'CRESPLIT',
        responseUrl: fake.responseUrl('long-resplit'),
      }),
    );
    const ephemerals = () => fake.callsOf('chat.postEphemeral').filter((c) => c.body.channel === 'CRESPLIT');
    await fake.waitFor(() => {
      const e = ephemerals();
      return e.length > 1 && actionValue(e[e.length - 1].body, 'labbot_feedback_up');
    }, 30_000);
    const [refused, ...sent] = ephemerals();
    expect(blocksTextLength(sent[0].body.blocks)).toBeLessThan(blocksTextLength(refused.body.blocks));
    const all = [...fake.responses.filter((r) => r.id === 'long-resplit').map((r) => r.body), ...sent.map((c) => c.body)]
      .map(sectionText)
      .join('\n');
    for (let i = 0; i < STEPS; i++) expect(all).toContain(`*Step ${i}.*`);
  });
});
