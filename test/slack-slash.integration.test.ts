// `/labbot` as a lab member types it: a question is acknowledged at once with a private
// "Searching…" that repeats it (in the ack itself, before a slow model has answered), `/labbot
// <question>` without `ask` is a question, and the subcommands keep working by one documented
// rule (routeSlashCommand). Real Bolt, Redis and Chroma; Slack and the model are fakes.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Labbot } from '../src/app.ts';
import { routeSlashCommand } from '../src/slack/slash.ts';
import { passageLine, type FakeOpenAI } from './helpers/fake-openai.ts';
import type { FakeSlack } from './helpers/fake-slack.ts';
import type { RunningBot } from './helpers/slack-bot.ts';
import { startModelSlackHarness, type ModelSlackHarness } from './helpers/slack-harness.ts';
import { runSlash, shownText } from './helpers/slack-interact.ts';

function labFolder(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-slash-'));
  writeFileSync(
    path.join(dir, 'blocking.md'),
    '# Membrane blocking\n\nBlock the membrane in 5% milk in TBST for one hour at room temperature before the primary antibody.\n',
  );
  writeFileSync(
    path.join(dir, 'orders.md'),
    '# Antibody orders\n\nThe TP53 antibody order (ab32389) is placed by Ada every first Monday; its status is on the orders sheet.\n',
  );
  return dir;
}

describe('/labbot: acknowledged at once, a question without `ask`, subcommands by one rule', () => {
  let app: Labbot;
  let fake: FakeSlack;
  let openai: FakeOpenAI;
  let bot: RunningBot;
  let harness: ModelSlackHarness | undefined;
  beforeAll(async () => {
    harness = await startModelSlackHarness({
      fileConfig: { sources: [{ id: 'lab', type: 'folder', path: labFolder() }], access: { default: 'public' } },
    });
    ({ app, fake, bot, openai } = harness);
    openai.reply = (messages) => `${passageLine(messages, 'S1')} [S1]`;
  });
  afterAll(async () => harness?.close());

  it('acknowledges a question with a private "Searching…" that repeats it, before a slow model answers', async () => {
    openai.chatDelayMs = 1500;
    try {
      const run = await runSlash(fake, bot.url, { text: 'ask How long do we block the membrane?', channel: 'CSLOW', user: 'USLOW' });
      expect(run.status).toBe(200);
      // The acknowledgement itself carries the message: nothing has gone to response_url yet and
      // the model has not answered, yet the asker already sees their question and "Searching…".
      expect(fake.responses.filter((r) => r.id === run.id)).toEqual([]);
      const seen = fake.conversation.ephemeralFor('USLOW', 'CSLOW');
      expect(seen).toHaveLength(1);
      expect(JSON.parse(run.ack)).toMatchObject({ response_type: 'ephemeral' });
      expect(shownText(seen[0])).toContain('How long do we block the membrane?');
      expect(shownText(seen[0])).toMatch(/Searching the lab/);

      await fake.waitFor(() => fake.conversation.ephemeralFor('USLOW', 'CSLOW').length === 2, 30_000);
      const [, answer] = fake.conversation.ephemeralFor('USLOW', 'CSLOW');
      expect(shownText(answer)).toMatch(/Block the membrane in 5% milk.*\[S1\]/);
      expect(fake.conversation.visible('CSLOW')).toEqual([]);
    } finally {
      openai.chatDelayMs = 0;
    }
  });

  it('answers `/labbot <question>` (no `ask`) as a question, not with the help text', async () => {
    const run = await runSlash(fake, bot.url, { text: 'How long do we block the membrane?', channel: 'CNOASK', user: 'UNOASK' });
    expect(shownText(fake.conversation.ephemeralFor('UNOASK', 'CNOASK')[0])).toMatch(/Searching the lab/);
    const answer = await fake.waitFor(() => fake.conversation.ephemeralFor('UNOASK', 'CNOASK')[1], 30_000);
    expect(shownText(answer)).toMatch(/\[S1\]/);
    expect(shownText(answer)).not.toContain('/labbot status');
    const recent = await bot.activity.recent(50);
    expect(recent.find((r) => r.user === 'UNOASK')?.question).toBe('How long do we block the membrane?');
    expect(fake.responses.filter((r) => r.id === run.id)).toHaveLength(1);
  });

  it('keeps help, status and reindex, and answers questions that merely start with those words', async () => {
    const reply = async (text: string, user: string) => {
      const run = await runSlash(fake, bot.url, { text, channel: 'CSUB', user });
      return { run, body: await fake.waitFor(() => fake.responses.find((r) => r.id === run.id), 30_000) };
    };
    const help = await reply('help', 'UHELP');
    expect(help.run.ack).toBe('');
    expect(String(help.body.body.text)).toContain('/labbot <question>');
    expect(String((await reply('Status?', 'USTATUS')).body.body.text)).toContain(app.version);
    expect(String((await reply('reindex lab', 'UNOTADMIN')).body.body.text)).toMatch(/Only labbot admins/);

    const q = await reply('status of the TP53 antibody order?', 'UQ1');
    expect(shownText(fake.conversation.ephemeralFor('UQ1', 'CSUB')[0])).toMatch(/Searching the lab/);
    expect(JSON.stringify(q.body.body.blocks)).toMatch(/\[S1\]/);
    await reply('ask status', 'UQ2');
    const recent = await bot.activity.recent(50);
    expect(recent.find((r) => r.user === 'UQ1')?.question).toBe('status of the TP53 antibody order?');
    expect(recent.find((r) => r.user === 'UQ2')?.question).toBe('status');
  });
});

describe('routeSlashCommand: the one rule for reading /labbot', () => {
  it.each([
    ['', { kind: 'help' }],
    ['help', { kind: 'help' }],
    ['HELP?', { kind: 'help' }],
    ['status', { kind: 'status' }],
    ['status.', { kind: 'status' }],
    ['reindex', { kind: 'reindex', target: '' }],
    ['reindex wiki', { kind: 'reindex', target: 'wiki' }],
    ['reindex all', { kind: 'reindex', target: 'all' }],
    ['ask', { kind: 'ask', question: '' }],
    ['ask status', { kind: 'ask', question: 'status' }],
    ['Ask   How long is the TRIzol incubation?', { kind: 'ask', question: 'How long is the TRIzol incubation?' }],
    ['How long is the TRIzol incubation?', { kind: 'ask', question: 'How long is the TRIzol incubation?' }],
    ['status of the TP53 antibody order?', { kind: 'ask', question: 'status of the TP53 antibody order?' }],
    ['help me plan a qPCR', { kind: 'ask', question: 'help me plan a qPCR' }],
    ['reindex the wiki now please', { kind: 'ask', question: 'reindex the wiki now please' }],
  ])('%j', (text, route) => {
    expect(routeSlashCommand(text)).toEqual(route);
  });
});
