// What labbot posts and reads, end to end against the strict fake Slack (real Bolt, Redis, Chroma;
// the model is a fake OpenAI endpoint): a long model answer citing a document whose canonical URL
// is hostile, a message Slack refuses as too long, and questions as Slack encodes them.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { webApi } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Labbot } from '../src/app.ts';
import { threadHistory } from '../src/slack/answer-question.ts';
import type { FakeOpenAI } from './helpers/fake-openai.ts';
import { startModelSlackHarness, type ModelSlackHarness } from './helpers/slack-harness.ts';
import { blocksTextLength, findMentions, validateMessage, type FakeSlack, type SlackCall } from './helpers/fake-slack.ts';
import { SIGNING_SECRET, type RunningBot } from './helpers/slack-bot.ts';
import { feedbackRecordId } from './helpers/slack-answers.ts';
import { eventRequest, mentionEnvelope, post, slashRequest } from './helpers/slack-request.ts';

const STEPS = 52;
// The issue's URL with its spaces is dropped earlier (cite.ts links only whitespace-free URLs); this
// one gets through to the Slack formatter, where today it became an @everyone and a second link.
const HOSTILE = 'https://x.org/><!everyone><https://evil.example/login|Sign_in_again';

function folderWithHostileDoc(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-hostile-'));
  writeFileSync(
    path.join(dir, 'blocking.html'),
    `<!doctype html><html lang="en"><head><title>Membrane blocking</title><link rel="canonical" href="${HOSTILE.replace(/"/g, '&quot;')}"></head>` +
      '<body><h1>Membrane blocking</h1><p>Block the membrane in 5% milk in TBST for one hour at ' +
      'room temperature before the primary antibody.</p></body></html>',
  );
  return dir;
}

/** The answer, as the model writes it: ~20,000 characters with Markdown that must not become markup. */
function longAnswer(): string {
  const hostile = 'Ask [the team](!channel) or `<!channel>` and `map<a,b>`; <!here> <@U0123> &lt;ok&gt; [Sign in](javascript:alert(1))';
  // The hostile text rides inside a sentence its passage supports, so the citation check keeps it.
  const para = (i: number) =>
    `**Step ${i}.** ${'Block the membrane in 5% milk in TBST for one hour. '.repeat(6)}Block ` +
    `the membrane in 5% milk in TBST for one hour${i % 10 === 0 ? ` with milk and TBST: ${hostile}` : ''}. [S1]`;
  return Array.from({ length: STEPS }, (_, i) => para(i)).join('\n\n');
}

/** The messages that carry the answer: the checked answer replacing the streamed preview, and its continuations. */
function answerCalls(fake: FakeSlack, channel: string): SlackCall[] {
  return fake.calls.filter((c) => c.body.channel === channel && (c.method === 'chat.update' || c.method === 'chat.postMessage'));
}

const sectionText = (c: SlackCall) =>
  ((c.body.blocks as { type: string; text?: { text: string } }[]) ?? [])
    .filter((b) => b.type === 'section')
    .map((b) => b.text!.text)
    .join('\n');

describe('Slack output and input, end to end', () => {
  let app: Labbot;
  let fake: FakeSlack;
  let openai: FakeOpenAI;
  let bot: RunningBot;
  let harness: ModelSlackHarness | undefined;
  beforeAll(async () => {
    harness = await startModelSlackHarness({
      fileConfig: { sources: [{ id: 'lab', type: 'folder', path: folderWithHostileDoc() }], access: { default: 'public' } },
      ingest: false,
    });
    ({ app, fake, bot, openai } = harness);
    const s = await app.ingestSource(app.config.sources[0]);
    expect(s.failed).toEqual([]);
    expect(app.catalog.stats().documents).toBe(1);
  });
  afterAll(async () => {
    await harness?.close(); // the fake fails the suite if anything labbot posted would have pinged
  });

  it('posts a 20,000-character answer citing a hostile URL as valid messages: no mention, no phishing link, Sources and buttons last', async () => {
    const answer = longAnswer();
    expect(answer.length).toBeGreaterThan(20_000);
    openai.reply = () => answer;
    await post(bot.url, eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'How do we block the membrane?', channel: 'CLONG' })));
    const calls = await fake.waitFor(() => {
      const c = answerCalls(fake, 'CLONG');
      return c.length && JSON.stringify(c[c.length - 1].body.blocks ?? []).includes('feedback_buttons') ? c : undefined;
    }, 30_000);
    expect(fake.rejected.filter((r) => r.body.channel === 'CLONG')).toEqual([]);
    expect(calls[0].method).toBe('chat.update');
    expect(calls.length).toBeGreaterThanOrEqual(2);
    const report = calls.map((c) => ({
      method: c.method,
      blocks: (c.body.blocks as unknown[]).length,
      blockChars: blocksTextLength(c.body.blocks),
      textChars: String(c.body.text).length,
    }));
    console.log(
      `long answer (${answer.length} chars) as posted: ${calls.length} messages ${JSON.stringify(report)}; ` +
        `mention tokens: ${JSON.stringify(calls.flatMap((c) => findMentions(c.body)))}`,
    );
    for (const c of calls) {
      expect(validateMessage(c.body)).toBeUndefined();
      expect(findMentions(c.body)).toEqual([]);
      expect(JSON.stringify(c.body)).not.toMatch(/<https:\/\/evil|<javascript|<!channel|<!here|<!everyone|<@U0123/);
    }
    const all = calls.map(sectionText).join('\n');
    for (let i = 0; i < STEPS; i++) expect(all).toContain(`*Step ${i}.*`);
    // Counted in the answer only: the Sources list may quote the same sentence once.
    expect(answerPart(all).match(/Block the membrane in 5% milk/g)).toHaveLength(STEPS * 7);
    expect(all).toContain(
      'Ask the team or `&lt;!channel&gt;` and `map&lt;a,b&gt;`; &lt;!here&gt; &lt;@U0123&gt; &amp;lt;ok&amp;gt; Sign in',
    );
    const last = calls[calls.length - 1];
    expect(sectionText(last)).toContain(
      '*<https://x.org/%3E%3C!everyone%3E%3Chttps://evil.example/login%7CSign_in_again|Membrane blocking>*',
    );
    for (const c of calls.slice(0, -1)) expect(JSON.stringify(c.body.blocks)).not.toMatch(/\*Sources\*|labbot_feedback/);
    expect(fake.strayMentions).toEqual([]);
  });

  /** The text before the Sources heading. */
  const answerPart = (text: string) => text.slice(0, text.indexOf('*Sources*') >= 0 ? text.indexOf('*Sources*') : undefined);

  it('on msg_blocks_too_long re-splits the message and posts all of it, never a truncated text', async () => {
    openai.reply = () => longAnswer();
    fake.failNext('chat.update', { error: 'msg_blocks_too_long' });
    await post(
      bot.url,
      eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'How do we block the membrane, in detail?', channel: 'CSPLIT' })),
    );
    const calls = await fake.waitFor(() => {
      const c = answerCalls(fake, 'CSPLIT');
      return c.length && JSON.stringify(c[c.length - 1].body.blocks ?? []).includes('feedback_buttons') ? c : undefined;
    }, 30_000);
    expect(calls[0].method).toBe('chat.update'); // the refused one
    const delivered = calls.slice(1);
    expect(delivered[0].method).toBe('chat.update'); // its first half replaces the streamed preview
    for (const c of delivered) expect(c.body.blocks).toBeDefined();
    const all = delivered.map(sectionText).join('\n');
    for (let i = 0; i < STEPS; i++) expect(all).toContain(`*Step ${i}.*`);
    expect(answerPart(all).match(/Block the membrane in 5% milk/g)).toHaveLength(STEPS * 7);
    expect(blocksTextLength(delivered[0].body.blocks)).toBeLessThan(blocksTextLength(calls[0].body.blocks));
  });

  it('reads the question as Slack encodes it: entities, links, channels and users become plain text', async () => {
    openai.reply = () => 'Block for one hour [S1].';
    const text = 'Is R&amp;D milk &lt;5%&gt; ok per <https://wiki.example/blocking|the wiki> in <#C0123|lab-general>? ask <@U999> <!here>';
    await post(bot.url, eventRequest(SIGNING_SECRET, mentionEnvelope({ text, channel: 'CINPUT' })));
    // The answer is streamed (its Sources and feedback come with chat.stopStream), or posted, or replaces the stream.
    const done = await fake.waitFor(() =>
      fake.calls.find(
        (c) =>
          c.body.channel === 'CINPUT' &&
          ['chat.stopStream', 'chat.postMessage', 'chat.update'].includes(c.method) &&
          feedbackRecordId(c.body.blocks),
      ),
    );
    const id = feedbackRecordId(done.body.blocks);
    const record = await bot.activity.get(id!);
    expect(record?.question).toBe('Is R&D milk <5%> ok per the wiki (https://wiki.example/blocking) in #lab-general? ask @user @here');
    const sent = JSON.stringify(openai.requests.at(-1)?.body);
    expect(sent).not.toMatch(/&amp;|&lt;|u999|U999|C0123|<https/);
  });

  it('reads the thread history as plain text too', async () => {
    const client = new webApi.WebClient('xoxb-test', { slackApiUrl: fake.apiUrl });
    fake.threads.set('CHIST:1700000300.000100', [
      {
        ts: '1700000300.000100',
        user: 'UASKER',
        text: '<@UBOT> What about Tris &amp; glycine per <https://wiki.example/buffers|buffers>?',
      },
      { ts: '1700000301.000100', bot_id: 'BBOT', user: 'UBOT', text: 'Use 25 mM Tris &amp; 192 mM glycine [S1].' },
      { ts: '1700000302.000100', user: 'UASKER', text: '<@UBOT> and for <@U777|maria>?' },
    ]);
    const turns = await threadHistory(
      client,
      { channel: 'CHIST', threadTs: '1700000300.000100', eventTs: '1700000302.000100', botUserId: 'UBOT' },
      [],
    );
    expect(turns).toEqual([
      { role: 'user', text: 'What about Tris & glycine per buffers (https://wiki.example/buffers)?' },
      { role: 'assistant', text: 'Use 25 mM Tris & 192 mM glycine [S1].' },
    ]);
  });

  it('reads /labbot ask text the same way', async () => {
    openai.requests.length = 0;
    openai.reply = () => 'Block for one hour [S1].';
    const url = fake.responseUrl('ask-encoded');
    await post(
      bot.url,
      slashRequest(SIGNING_SECRET, { text: 'ask milk &amp; TBST &lt;1h&gt; per <https://wiki.example/x|the wiki>?', responseUrl: url }),
    );
    await fake.waitFor(() => fake.responses.find((r) => r.id === 'ask-encoded'));
    const sent = JSON.stringify(openai.requests.find((r) => r.path.endsWith('/chat/completions'))?.body);
    expect(sent).toContain('milk & TBST <1h> per the wiki (https://wiki.example/x)?');
  });
});
