// "Share in channel" under a private /labbot answer, as the channel sees it: shared once (a second
// click, a double click in flight and a click reaching another replica post nothing more), the
// private copy deleted, and a long answer shared as one message with the rest in its thread.
// Real Bolt, Redis and Chroma; Slack (with its conversation state) and the model are fakes.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Labbot } from '../src/app.ts';
import { passageLine, type ChatMessage, type FakeOpenAI } from './helpers/fake-openai.ts';
import { validateMessage, type FakeMessage, type FakeSlack } from './helpers/fake-slack.ts';
import { startTestBot, type RunningBot } from './helpers/slack-bot.ts';
import { startModelSlackHarness, type ModelSlackHarness } from './helpers/slack-harness.ts';
import { buttonValue, clickButton, renderConversation, runSlash, shownText } from './helpers/slack-interact.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const LONG_STEPS = 170;

/** 60 steps of a whole-mount immunostaining protocol, each its own line, as a lab writes them. */
function sixtyStepProtocol(): string {
  const phases: [string, (i: number) => string][] = [
    ['fix', (i) => `Fix the embryos in 4% PFA in PBS for ${2 + (i % 3)} hours at room temperature on a rocker (batch ${i}).`],
    ['wash', (i) => `Wash the embryos ${3 + (i % 2)} times for 5 minutes in PBST (PBS with 0.1% Tween-20), round ${i}.`],
    [
      'permeabilise',
      (i) =>
        `Permeabilise with proteinase K at ${10 * (1 + (i % 3))} µg/mL for ${5 + (i % 4)} minutes, then refix in 4% PFA for 20 minutes (stage ${i}).`,
    ],
    ['block', (i) => `Block in 10% goat serum, 1% DMSO and 0.8% Triton X-100 in PBST for ${1 + (i % 2)} hours (block ${i}).`],
    [
      'primary',
      (i) => `Incubate in primary antibody anti-acetylated tubulin 1:${500 + 100 * (i % 5)} in block buffer overnight at 4 °C (tube ${i}).`,
    ],
    [
      'secondary',
      (i) => `Incubate in Alexa Fluor 488 goat anti-mouse 1:${400 + 100 * (i % 4)} in block buffer for 4 hours in the dark (tube ${i}).`,
    ],
    [
      'mount',
      (i) =>
        `Mount the embryos in 1% low-melt agarose on a glass-bottom dish and image on the confocal with the 20× objective (dish ${i}).`,
    ],
  ];
  const steps = Array.from({ length: 60 }, (_, i) => `${i + 1}. ${phases[i % phases.length][1](i + 1)}`);
  return [
    '---',
    'title: Whole-mount immunostaining of zebrafish embryos',
    'authors:',
    '  - Ada Okafor',
    'year: 2024',
    'kind: protocol',
    '---',
    '',
    '# Whole-mount immunostaining of zebrafish embryos',
    '',
    '## Materials',
    '',
    '- 4% PFA in PBS',
    '- PBST (PBS with 0.1% Tween-20)',
    '- Goat serum, DMSO, Triton X-100',
    '',
    '## Procedure',
    '',
    ...steps,
    '',
  ].join('\n');
}

function labFolder(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-share-'));
  writeFileSync(
    path.join(dir, 'blocking.md'),
    '# Membrane blocking\n\nBlock the membrane in 5% milk in TBST for one hour at room temperature before the primary antibody.\n',
  );
  mkdirSync(path.join(dir, 'protocols'));
  writeFileSync(path.join(dir, 'protocols', 'zebrafish-immunostaining.md'), sixtyStepProtocol());
  return dir;
}

/** An answer too long for 5 messages (~65,000 characters, ~11,000 per message). */
function veryLongAnswer(): string {
  const para = (i: number) =>
    `**Step ${i}.** ${'Block the membrane in 5% milk in TBST for one hour. '.repeat(6)}Block the membrane in 5% milk in TBST for one hour. [S1]`;
  return Array.from({ length: LONG_STEPS }, (_, i) => para(i)).join('\n\n');
}

/** What a faithful model answers to "all the steps": every passage it was given, restated and cited. */
function everyPassage(messages: ChatMessage[]): string {
  const lines: string[] = [];
  for (let i = 1; passageLine(messages, `S${i}`); i++) lines.push(`- ${passageLine(messages, `S${i}`)} [S${i}]`);
  return lines.join('\n');
}

describe('Share in channel: once, the private copy deleted, long answers threaded', () => {
  let app: Labbot;
  let fake: FakeSlack;
  let openai: FakeOpenAI;
  let bot: RunningBot;
  let harness: ModelSlackHarness | undefined;
  const replicas: RunningBot[] = [];
  beforeAll(async () => {
    harness = await startModelSlackHarness({
      fileConfig: { sources: [{ id: 'lab', type: 'folder', path: labFolder() }], access: { default: 'public' } },
    });
    ({ app, fake, bot, openai } = harness);
    openai.reply = (messages) => `${passageLine(messages, 'S1')} [S1]`;
  });
  afterAll(async () => {
    for (const r of replicas) await r.close();
    await harness?.close();
  });

  /** Asks privately and returns the private message that carries the Share button. */
  async function askPrivately(question: string, channel: string, user: string, through = bot): Promise<FakeMessage> {
    fake.allowMentions(`<@${user}>`); // the attribution of a shared answer is labbot's own mention
    await runSlash(fake, through.url, { text: question, channel, user });
    return fake.waitFor(() => fake.conversation.ephemeralFor(user, channel).find((m) => buttonValue(m, 'labbot_share')), 60_000);
  }

  it('shares once: a double click in flight and a later click post one message; the private copy is deleted', async () => {
    const priv = await askPrivately('How long do we block the membrane?', 'CONCE', 'UONCE');
    await Promise.all([
      clickButton(fake, bot.url, priv, 'labbot_share', 'UONCE'),
      clickButton(fake, bot.url, priv, 'labbot_share', 'UONCE'),
    ]);
    const shared = await fake.waitFor(() => fake.conversation.visible('CONCE')[0]);
    expect(shownText(shared)).toContain('<@UONCE> asked: How long do we block the membrane?');
    expect(shownText(shared)).toMatch(/Block the membrane in 5% milk.*\[S1\]/);
    expect(buttonValue(shared, 'labbot_feedback_up')).toBeDefined();
    expect(buttonValue(shared, 'labbot_share')).toBeUndefined();
    // The private answer is gone; what stays is the command's acknowledgement (Slack cannot delete it).
    await fake.waitFor(() => !fake.conversation.ephemeralFor('UONCE', 'CONCE').some((m) => m.ts === priv.ts));
    expect(fake.conversation.ephemeralFor('UONCE', 'CONCE').map((m) => m.via)).toEqual(['ack']);

    await clickButton(fake, bot.url, priv, 'labbot_share', 'UONCE');
    await sleep(1000);
    expect(fake.conversation.visible('CONCE')).toHaveLength(1);
  });

  it('shares once across replicas: the same answer clicked on two bots at once is posted once', async () => {
    const other = await startTestBot(app, { prefix: bot.prefix });
    replicas.push(other);
    const priv = await askPrivately('How long do we block the membrane, again?', 'CREPLICA', 'UREP');
    await Promise.all([
      clickButton(fake, bot.url, priv, 'labbot_share', 'UREP'),
      clickButton(fake, other.url, priv, 'labbot_share', 'UREP'),
    ]);
    await fake.waitFor(() => fake.conversation.visible('CREPLICA')[0]);
    await sleep(1000);
    expect(fake.conversation.visible('CREPLICA')).toHaveLength(1);
    expect(fake.responses.filter((r) => r.body.response_type === 'in_channel' && JSON.stringify(r.body).includes('UREP'))).toHaveLength(1);
  });

  it('shares an answer of 6+ messages as one message with the rest in its thread, nothing lost', async () => {
    openai.reply = () => veryLongAnswer();
    try {
      const priv = await askPrivately('How do we block the membrane, step by step?', 'CLONG', 'ULONG');
      await clickButton(fake, bot.url, priv, 'labbot_share', 'ULONG');
      const top = () => fake.conversation.visible('CLONG').filter((m) => !m.threadTs);
      const last = await fake.waitFor(() => {
        const t = top()[0];
        const replies = t ? fake.conversation.visible('CLONG', { thread: t.ts }).filter((m) => m.ts !== t.ts) : [];
        return replies.find((m) => buttonValue(m, 'labbot_feedback_up'));
      }, 60_000);
      expect(top()).toHaveLength(1);
      const replies = fake.conversation.visible('CLONG', { thread: top()[0].ts }).filter((m) => m.ts !== top()[0].ts);
      expect(replies.length).toBeGreaterThanOrEqual(5);
      expect(replies.every((m) => m.threadTs === top()[0].ts)).toBe(true);
      expect(replies.at(-1)).toBe(last);
      expect(shownText(top()[0])).toContain('<@ULONG> asked:');
      expect(shownText(top()[0])).toContain('The rest of the answer is in the thread.');
      const all = [top()[0], ...replies].map(shownText).join('\n');
      let at = -1;
      for (let i = 0; i < LONG_STEPS; i++) {
        const next = all.indexOf(`*Step ${i}.*`);
        expect(next).toBeGreaterThan(at); // every step, in order
        at = next;
      }
      for (const m of [top()[0], ...replies]) expect(validateMessage({ text: m.text, blocks: m.blocks })).toBeUndefined();
      // Paced at Slack's 1 message per second per channel: no 429 on the way.
      expect(fake.rateLimited.filter((c) => c.body.channel === 'CLONG')).toEqual([]);
      await fake.waitFor(() => !fake.conversation.ephemeralFor('ULONG', 'CLONG').some((m) => m.ts === priv.ts));
      if (process.env.LABBOT_TRANSCRIPTS) {
        mkdirSync(process.env.LABBOT_TRANSCRIPTS, { recursive: true });
        writeFileSync(
          path.join(process.env.LABBOT_TRANSCRIPTS, 'share-long-answer.txt'),
          `${renderConversation(fake, 'CLONG', { user: 'ULONG', wrap: 240 })}\n`,
        );
      }
    } finally {
      openai.reply = (messages) => `${passageLine(messages, 'S1')} [S1]`;
    }
  });

  it('where labbot is not a member, a long answer is not split over top-level messages: the asker is told and keeps it', async () => {
    openai.reply = () => veryLongAnswer();
    try {
      const priv = await askPrivately('How do we block the membrane, in full?', 'CNOTMEMBER', 'UNM');
      fake.failNext('chat.postMessage', { error: 'not_in_channel' });
      await clickButton(fake, bot.url, priv, 'labbot_share', 'UNM');
      const told = await fake.waitFor(() =>
        fake.conversation.ephemeralFor('UNM', 'CNOTMEMBER').find((m) => /Invite me/.test(shownText(m))),
      );
      expect(shownText(told)).toContain('/invite @labbot');
      expect(fake.conversation.visible('CNOTMEMBER')).toEqual([]);
      expect(fake.conversation.ephemeralFor('UNM', 'CNOTMEMBER').some((m) => m.ts === priv.ts)).toBe(true);
      // Nothing was posted, so the share can be tried again (after the invitation).
      await clickButton(fake, bot.url, priv, 'labbot_share', 'UNM');
      await fake.waitFor(() => fake.conversation.visible('CNOTMEMBER').find((m) => !m.threadTs), 60_000);
    } finally {
      openai.reply = (messages) => `${passageLine(messages, 'S1')} [S1]`;
    }
  });

  it('a 60-step protocol asked with /labbot and shared: what the channel got, and the private copy gone', async () => {
    openai.reply = everyPassage;
    try {
      const question = 'What are all the steps of the zebrafish whole-mount immunostaining protocol?';
      const priv = await askPrivately(question, 'CPROTO', 'UPROTO');
      const before = renderConversation(fake, 'CPROTO', { user: 'UPROTO', wrap: 20_000 });
      await clickButton(fake, bot.url, priv, 'labbot_share', 'UPROTO');
      await fake.waitFor(
        () => fake.conversation.visible('CPROTO')[0] && !fake.conversation.ephemeralFor('UPROTO', 'CPROTO').some((m) => m.ts === priv.ts),
      );
      const shared = fake.conversation.visible('CPROTO');
      expect(shared).toHaveLength(1);
      expect(shownText(shared[0])).toContain(`<@UPROTO> asked: ${question}`);
      expect(shownText(shared[0])).toMatch(/Whole-mount immunostaining of zebrafish embryos/);
      // The channel got the answer the asker saw, and the asker's private copy is gone.
      expect(shownText(shared[0])).toContain(shownText(priv).split('\n')[0]);
      expect(fake.conversation.ephemeralFor('UPROTO', 'CPROTO').map((m) => m.via)).toEqual(['ack']);
      const after = renderConversation(fake, 'CPROTO', { user: 'UPROTO', wrap: 20_000 });
      if (process.env.LABBOT_TRANSCRIPTS) {
        mkdirSync(process.env.LABBOT_TRANSCRIPTS, { recursive: true });
        writeFileSync(
          path.join(process.env.LABBOT_TRANSCRIPTS, 'share-60-step-protocol.txt'),
          `/labbot ${question}\n\nBefore Share:\n${before}\n\nAfter Share:\n${after}\n`,
        );
      }
    } finally {
      openai.reply = (messages) => `${passageLine(messages, 'S1')} [S1]`;
    }
  });
});
