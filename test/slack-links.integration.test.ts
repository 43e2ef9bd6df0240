// Links a lab can trust, end to end against the strict fake Slack (real Bolt, Redis, Chroma): a
// document line `[the official lab portal](https://evil.example/login)` in Markdown, plain text and
// a PDF; a model's `[`ab32389`](https://www.abcam.com/ab32389)`; quotes copied as written; and the
// plain-text fallback after a failed post carrying the whole answer. The fake fails the suite on a
// masked link to a URL of no indexed document and on any control or invisible character.
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeOpenAI } from './helpers/fake-openai.ts';
import type { FakeSlack, SlackCall } from './helpers/fake-slack.ts';
import { SIGNING_SECRET, type RunningBot } from './helpers/slack-bot.ts';
import { startModelSlackHarness, startSlackHarness, type ModelSlackHarness, type SlackHarness } from './helpers/slack-harness.ts';
import { eventRequest, mentionEnvelope, post, slashRequest } from './helpers/slack-request.ts';
import { LINK_SECRET, protocolFolder, PUBLIC_URL } from './helpers/protocol-corpus.ts';
import { feedbackRecordId } from './helpers/slack-answers.ts';

const PORTAL = '[the official lab portal](https://evil.example/login)';
const PRIMERS =
  'The forward primer FWD_p53_ex4 and the reverse primer REV_p53_ex4 are kept in /data/primers/run_01/*.fasta on the lab server.';

// One document hostile every way at once: its canonical URL, a disguised link, a ping, a control
// character, a zero-width space inside a file name, and mrkdwn in the text.
const HOSTILE_DOC =
  '---\ntitle: "Door PIN <!channel>"\nurl: https://lab-portal.evil.example/door-pin\n---\n\n# Door PIN\n\n' +
  'Reset your door PIN at \\[the official lab portal\\](https://evil.example/login) before ' +
  'Friday <!channel>, then check /data/doors/pin\u200b_*list*.txt\u0002 for *your* entry.\n';

async function hostileFolder(): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-links-'));
  // In Markdown the line survives parsing as text when its brackets are escaped (or it sits in a code span).
  writeFileSync(
    path.join(dir, 'badge-access.md'),
    `# Badge access\n\nTo renew a lab badge, use \\${PORTAL.replace(']', '\\]')} and bring your ID to room 4.12.\n`,
  );
  writeFileSync(
    path.join(dir, 'freezer-alarm.txt'),
    `Freezer alarm\n\nWhen the freezer alarm sounds after hours, log the event in ${PORTAL} and call the facilities desk.\n`,
  );
  const pdf = await PDFDocument.create();
  const page = pdf.addPage([600, 400]);
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  page.drawText('Autoclave booking', { x: 40, y: 340, size: 16, font });
  page.drawText(`Book the autoclave in ${PORTAL} one day ahead of the run.`, { x: 40, y: 300, size: 10, font });
  writeFileSync(path.join(dir, 'autoclave.pdf'), await pdf.save());
  writeFileSync(path.join(dir, 'primers.md'), `# Primer storage\n\n${PRIMERS}\n`);
  writeFileSync(path.join(dir, 'door-pin.md'), HOSTILE_DOC);
  copyFileSync(path.resolve('examples/lab/protocols/western-blot.md'), path.join(dir, 'western-blot.md'));
  return dir;
}

/** The label of the first passage the model was given that contains `needle`. */
function labelWith(messages: { content: unknown }[], needle: string): string {
  const prompt = messages.map((m) => String(m.content)).join('\n');
  for (const m of prompt.matchAll(/<passage id="(S\d+)">([\s\S]*?)<\/passage>/g)) if (m[2].includes(needle)) return m[1];
  return 'S1';
}

const posted = (fake: FakeSlack, channel: string) =>
  fake.calls.filter((c) => c.body.channel === channel && (c.method === 'chat.update' || c.method === 'chat.postMessage'));
const sections = (c: SlackCall) =>
  ((c.body.blocks ?? []) as { type: string; text?: { text: string; verbatim?: boolean } }[]).filter((b) => b.type === 'section');
const answerOf = (fake: FakeSlack, channel: string) =>
  fake.waitFor(() => posted(fake, channel).find((c) => feedbackRecordId(c.body.blocks)), 30_000);

describe('document links, with no model', () => {
  let harness: SlackHarness | undefined;
  let fake: FakeSlack;
  let bot: RunningBot;
  beforeAll(async () => {
    harness = await startSlackHarness({ fileConfig: { sources: [{ id: 'links', type: 'folder', path: await hostileFolder() }] } });
    ({ fake, bot } = harness);
  });
  afterAll(async () => harness?.close()); // fails on any stray masked link or invisible character

  for (const [format, channel, question] of [
    ['.md', 'CLINKMD', 'How do I renew a lab badge?'],
    ['.txt', 'CLINKTXT', 'What do I do when the freezer alarm sounds after hours?'],
    ['PDF', 'CLINKPDF', 'How do I book the autoclave?'],
  ] as const) {
    it(`a disguised link in a ${format} document is posted as its text and host, in verbatim mrkdwn (issue 21)`, async () => {
      await post(bot.url, eventRequest(SIGNING_SECRET, mentionEnvelope({ text: question, channel })));
      const answer = await answerOf(fake, channel);
      const body = sections(answer)[0];
      expect(body.text!.text).toContain('the official lab portal (evil.example)');
      expect(JSON.stringify(answer.body)).not.toMatch(/<https:\/\/evil\.example[^>]*\|/);
      expect(body.text!.verbatim).toBe(true);
      expect(fake.strayLinks).toEqual([]);
    });
  }

  it('as posted: one answer citing a hostile document (links, text, quotes)', async () => {
    await post(bot.url, eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'How do I reset my door PIN?', channel: 'CASPOSTED' })));
    const answer = await answerOf(fake, 'CASPOSTED');
    const blocks = answer.body.blocks as { type: string; text?: { text: string }; elements?: { elements?: { text?: string }[] }[] }[];
    console.log(
      `as posted (${answer.method}):\n${JSON.stringify({ text: answer.body.text, blocks: blocks.filter((b) => b.type !== 'actions') }, null, 1)}`,
    );
    const body = blocks[0].text!.text;
    expect(body).toContain('Reset your door PIN at the official lab portal (evil.example) before Friday &lt;!channel&gt;');
    // The one link is the URL the document claims as its own, with its host in view.
    expect(JSON.stringify(blocks).match(/<https?:[^>]+\|/g)).toEqual(['<https://lab-portal.evil.example/door-pin|']);
    expect(JSON.stringify(blocks)).toContain('>* (lab-portal.evil.example) —');
    // The quote as the document reads once parsed (Markdown emphasis is gone), with no invisible character.
    const quote = blocks.find((b) => b.type === 'rich_text')!.elements![0].elements![0].text!;
    expect(quote).toContain(
      'the official lab portal](https://evil.example/login) before Friday <!channel>, then check /data/doors/pin_list.txt for your entry.',
    );
    expect(fake.strayInvisible).toEqual([]);
    expect(fake.strayMentions).toEqual([]);
  });

  it('quotes keep every character as the document has it: no zero-width space inside a primer name or path', async () => {
    await post(
      bot.url,
      eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'Where are the FWD_p53_ex4 primers kept?', channel: 'CQUOTE' })),
    );
    const answer = await answerOf(fake, 'CQUOTE');
    expect(JSON.stringify(answer.body.blocks)).toContain(JSON.stringify(PRIMERS));
    expect(JSON.stringify(answer.body)).not.toMatch(/\u200b|\\u200b/);
    expect(fake.strayInvisible).toEqual([]);
  });
});

describe('model output links and the plain-text fallback', () => {
  let harness: ModelSlackHarness | undefined;
  let fake: FakeSlack;
  let bot: RunningBot;
  let openai: FakeOpenAI;
  beforeAll(async () => {
    harness = await startModelSlackHarness({ fileConfig: { sources: [{ id: 'links', type: 'folder', path: await hostileFolder() }] } });
    ({ fake, bot, openai } = harness);
  });
  afterAll(async () => harness?.close());

  it('a code span inside link text keeps the catalogue number and posts no control character (issue 21)', async () => {
    openai.reply = (messages) =>
      `Use the anti-p53 antibody [\`ab32389\`](https://www.abcam.com/ab32389) at 1:1000 [${labelWith(messages, 'ab32389')}].`;
    await post(
      bot.url,
      eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'Which antibody and dilution for p53 Western blots?', channel: 'CGARBLE' })),
    );
    const answer = await answerOf(fake, 'CGARBLE');
    const text = sections(answer)[0].text!.text;
    expect(text).toContain('anti-p53 antibody `ab32389` (www.abcam.com) at 1:1000');
    expect(JSON.stringify(answer.body)).not.toMatch(/\\u000[0-9a-f]|[\u0000-\u0008]/);
    expect(fake.strayInvisible).toEqual([]);
    expect(fake.strayLinks).toEqual([]);
  });

  it('after message_not_found the plain-text fallback posts the whole answer, in as many posts as it takes (issue 21)', async () => {
    const parts = Array.from(
      { length: 16 },
      (_, i) =>
        `Part ${i}: ${'Incubate the membrane with anti-p53 ab32389 at 1:1000 in 5% BSA in TBST overnight at 4 °C on the rocker. '.repeat(5)}[S1]`,
    );
    const long = parts.join('\n\n');
    expect(long.length).toBeGreaterThan(8000);
    openai.reply = (messages) => long.replace(/\[S1\]/g, `[${labelWith(messages, 'ab32389')}]`);
    fake.failNext('chat.update', { error: 'message_not_found' });
    await post(
      bot.url,
      eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'How long is the primary antibody incubation for p53?', channel: 'CFALLBACK' })),
    );
    const texts = await fake.waitFor(() => {
      const plain = posted(fake, 'CFALLBACK').filter(
        (c) => c.method === 'chat.postMessage' && c.body.blocks === undefined && !/Searching/.test(String(c.body.text)),
      );
      const all = plain.map((c) => String(c.body.text)).join('\n');
      return all.includes('Part 15:') && all.includes('*Sources*') ? plain.map((c) => String(c.body.text)) : undefined;
    }, 30_000);
    expect(texts.length).toBeGreaterThanOrEqual(3);
    const all = texts.join('\n');
    for (let i = 0; i < 16; i++) expect(all).toContain(`Part ${i}:`);
    expect(all.match(/on the rocker/g)?.length).toBe(16 * 5);
    for (const t of texts) expect(t.length).toBeLessThanOrEqual(4000);
    expect(fake.rejected.filter((r) => r.body.channel === 'CFALLBACK' && r.method === 'chat.postMessage')).toEqual([]);
  });
});

describe('sources with no URL link to labbot’s document view (LABBOT_PUBLIC_URL)', () => {
  let harness: SlackHarness | undefined;
  let fake: FakeSlack;
  let bot: RunningBot;
  beforeAll(async () => {
    harness = await startSlackHarness({
      fileConfig: {
        sources: [{ id: 'protocols', type: 'folder', path: protocolFolder() }],
        access: { default: 'public', channels: { CPIVIEW: ['pi-only'] } },
      },
      env: { LABBOT_PUBLIC_URL: PUBLIC_URL, LABBOT_LINK_SECRET: LINK_SECRET },
    });
    ({ fake, bot } = harness);
  });
  afterAll(async () => harness?.close());

  it('links a local protocol to the cited step and offers the whole protocol (issue 21: a link, not none)', async () => {
    await post(
      bot.url,
      slashRequest(SIGNING_SECRET, {
        text: 'ask How much buffer QX42 do we add in the midiprep?',
        channel: 'CVIEW',
        responseUrl: fake.responseUrl('view-ask'),
      }),
    );
    const r = await fake.waitFor(() => fake.responses.find((x) => x.id === 'view-ask'), 30_000);
    const sources = JSON.stringify(r.body.blocks);
    const title = /<(https:\/\/labbot\.test\/doc\?[^|>]+)\|Plasmid midiprep>/.exec(
      JSON.parse(sources)
        .map((b: { text?: { text?: string } }) => b.text?.text ?? '')
        .join('\n'),
    );
    expect(title, sources).not.toBeNull();
    expect(title![1]).toMatch(/#step-\d+$/);
    expect(sources).toMatch(/<https:\/\/labbot\.test\/doc\?[^|>#]+\|open the whole document>/);
    expect(fake.strayLinks).toEqual([]);
  });
});
