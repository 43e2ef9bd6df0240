// The one ask flow (src/ask.ts), through every way in: the same restricted question asked by a
// mention, a thread reply, a DM, /labbot ask, the message shortcut, Share, POST /api/ask, the
// dashboard and `labbot ask`, once where the pi-only group may be read and once where it may not.
// Each answer reads exactly the groups the one rule (decideAccess) gives for its asker, the
// recorded question says so, and the secret shows only where that rule allows it. `labbot serve`
// runs as a lab runs it (Slack over HTTP on the same port, real Bolt, Redis and Chroma); the CLI
// is the real bin against the same index. The admin token never appears in anything labbot sends.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AskerFacts, decideAccess } from '../src/ask.ts';
import { type Config, loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { type Running, startServe } from '../src/serve.ts';
import { testEnv } from './helpers/app.ts';
import { type FakeMessage, type FakeSlack, startFakeSlack } from './helpers/fake-slack.ts';
import { feedbackRecordId, shownTextOf, waitForPost } from './helpers/slack-answers.ts';
import { SIGNING_SECRET, slackEnv } from './helpers/slack-bot.ts';
import { documentLinks } from './helpers/slack-harness.ts';
import { buttonValue, clickButton, runSlash, shownText } from './helpers/slack-interact.ts';
import {
  channelMessageEnvelope,
  dmEnvelope,
  eventRequest,
  mentionEnvelope,
  messageShortcutRequest,
  post,
} from './helpers/slack-request.ts';

const LAB = path.resolve('examples/lab');
const sorted = (g: string[] | undefined) => (g ? [...g].sort() : undefined);
const BIN = path.resolve('bin/labbot.js');
const TOKEN = 'every-way-admin-token-0123456789abcdef';
const QUESTION = 'What is the renewal code word?';
// In a pi-only wiki page of the sample lab.
const SECRET = /NIGHTJAR/;
// One pair of conversations per Slack way in, so each answer is the first post in its channel:
// the first of each pair may read pi-only, the second is a channel the config does not name.
const WAYS = ['MENTION', 'THREAD', 'SHORTCUT', 'SLASH'] as const;
const piChannel = (way: string) => `CPI${way}`;
const plainChannel = (way: string) => `CGEN${way}`;
const fileConfig = {
  sources: [{ id: 'lab', type: 'folder', path: LAB }],
  access: {
    default: 'public',
    channels: { CPI: ['pi-only'], ...Object.fromEntries(WAYS.map((w) => [piChannel(w), ['pi-only']])) },
    users: { UPI: ['pi-only'] },
  },
};

describe('one access decision on every way in', () => {
  let fake: FakeSlack;
  let running: Running;
  let config: Config;
  let env: Record<string, string>;
  /** Every way's case: what the rule decides for its facts, and what the answer read. */
  const seen: { way: string; facts: AskerFacts; groups: string[] | undefined; text: string }[] = [];

  beforeAll(async () => {
    fake = await startFakeSlack();
    env = testEnv({ env: { ...slackEnv(fake.apiUrl), LABBOT_PORT: '0', LABBOT_ADMIN_TOKEN: TOKEN }, fileConfig });
    config = loadConfig(env);
    running = await startServe(config, createLogger('silent'));
    fake.allowLinks(() => documentLinks(running.app));
    // A shared answer names its asker on purpose.
    fake.allowMentions('<@USTU>');
  }, 120_000);
  afterAll(async () => {
    await running?.close();
    await fake?.close();
  });

  const slackUrl = () => `${running.url}/slack/events`;
  const recordOf = async (blocks: unknown) => {
    const id = feedbackRecordId(blocks);
    return id ? running.activity?.get(id) : undefined;
  };
  const expectedGroups = (facts: AskerFacts) => {
    const d = decideAccess(facts, config.access);
    if (!d.allowed) throw new Error(`the rule refuses ${JSON.stringify(facts)}`);
    return [...d.groups].sort();
  };
  /** Records a Slack case from the post that answered it. */
  const noteSlack = async (way: string, facts: AskerFacts, m: { blocks?: unknown; text?: string }) => {
    const record = await recordOf(m.blocks);
    seen.push({ way, facts, groups: sorted(record?.groups), text: JSON.stringify(m) });
  };

  it('a mention, in a channel with the pi-only grant and in one without', async () => {
    for (const channel of [piChannel('MENTION'), plainChannel('MENTION')]) {
      await post(slackUrl(), eventRequest(SIGNING_SECRET, mentionEnvelope({ text: QUESTION, channel, user: 'USTU' })));
      const answer = await waitForPost(fake, channel, 0, 60_000);
      await noteSlack('mention', { surface: 'mention', channel, user: 'USTU' }, answer.body);
    }
  });

  it('a thread reply after labbot answered there', async () => {
    for (const [i, channel] of [piChannel('THREAD'), plainChannel('THREAD')].entries()) {
      const parent = `170004${i}000.000100`;
      await post(slackUrl(), eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'How do I passage RPE-1 cells?', channel, ts: parent })));
      await waitForPost(fake, channel, 0, 60_000);
      const reply = `170004${i}002.000100`;
      fake.threads.set(`${channel}:${parent}`, [
        { ts: parent, user: 'UASKER', text: '<@UBOT> How do I passage RPE-1 cells?' },
        { ts: `170004${i}001.000100`, bot_id: 'BBOT', user: 'UBOT', text: 'Split RPE-1 cells 1:5 twice a week [S1].' },
        { ts: reply, user: 'UASKER', text: QUESTION },
      ]);
      await post(
        slackUrl(),
        eventRequest(SIGNING_SECRET, channelMessageEnvelope({ text: QUESTION, channel, ts: reply, threadTs: parent })),
      );
      const answer = await waitForPost(fake, channel, 1, 60_000);
      await noteSlack('thread reply', { surface: 'thread', channel, user: 'UASKER' }, answer.body);
    }
  });

  it('a DM: labbot’s own DM with the PI, and a DM Slack reports as labbot’s DM with someone else', async () => {
    // The fake's D<x> is labbot's IM with U<x>.
    for (const channel of ['DPI', 'DSTU']) {
      await post(slackUrl(), eventRequest(SIGNING_SECRET, dmEnvelope({ text: QUESTION, channel, user: 'UPI' })));
      const answer = await waitForPost(fake, channel, 0, 60_000);
      await noteSlack('dm', { surface: 'dm', channel, user: 'UPI', ownDm: channel === 'DPI' }, answer.body);
    }
  });

  it('the message shortcut on a message', async () => {
    for (const channel of [piChannel('SHORTCUT'), plainChannel('SHORTCUT')]) {
      const ts = '1700031000.000100';
      await post(
        slackUrl(),
        messageShortcutRequest(SIGNING_SECRET, {
          callbackId: 'labbot_ask_about_message',
          text: QUESTION,
          channel,
          ts,
          user: 'USTU',
          responseUrl: fake.responseUrl(`every-sc-${channel}`),
        }),
      );
      const answer = await fake.waitFor(
        () => fake.callsOf('chat.postMessage').find((c) => c.body.channel === channel && c.body.thread_ts === ts),
        60_000,
      );
      await noteSlack('shortcut', { surface: 'shortcut', channel, user: 'USTU' }, answer.body);
    }
  });

  it('/labbot ask, then Share of its private answer', async () => {
    for (const channel of [piChannel('SLASH'), plainChannel('SLASH')]) {
      const from = fake.conversation.messages.length;
      const run = await runSlash(fake, slackUrl(), { text: `ask ${QUESTION}`, channel, user: 'USTU' });
      const last = await fake.waitFor(
        () => fake.responses.find((r) => r.id === run.id && buttonValue({ blocks: r.body.blocks as unknown[] }, 'labbot_share')),
        60_000,
      );
      const priv: FakeMessage = await fake.waitFor(() =>
        fake.conversation.messages.slice(from).find((m) => m.via === 'response_url' && m.channel === channel && m.text === last.body.text),
      );
      const facts: AskerFacts = { surface: 'slash', channel, user: 'USTU' };
      await noteSlack('slash', facts, last.body);
      // Share posts the kept answer for everyone there, after the rule is asked again where it posts.
      expect(SECRET.test(shownText(priv)), channel).toBe(channel === piChannel('SLASH'));
      await clickButton(fake, slackUrl(), priv, 'labbot_share', 'USTU');
      const shared = await fake.waitFor(() => fake.conversation.visible(channel)[0], 30_000);
      // Share keeps the answer it was shown; what it may post is the rule's decision for the conversation.
      seen.push({ way: 'share', facts: { ...facts, surface: 'share' }, groups: expectedGroups(facts), text: shownTextOf(shared) });
    }
  });

  const ask = (url: string, body: Record<string, unknown>, token?: string) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, text: await r.text() }));

  it('POST /api/ask: as a channel with the admin token; without it, a channel is refused and public is answered', async () => {
    const newest = async () => (await running.activity!.recent(1))[0];
    const asPi = await ask(`${running.url}/api/ask`, { question: QUESTION, channel: 'CPI' }, TOKEN);
    expect(asPi.status).toBe(200);
    seen.push({
      way: '/api/ask + token',
      facts: { surface: 'api', channel: 'CPI', admin: true },
      groups: sorted((await newest()).groups),
      text: asPi.text,
    });
    const anonymous = await ask(`${running.url}/api/ask`, { question: QUESTION });
    expect(anonymous.status).toBe(200);
    seen.push({ way: '/api/ask', facts: { surface: 'api' }, groups: sorted((await newest()).groups), text: anonymous.text });
    const widen = await ask(`${running.url}/api/ask`, { question: QUESTION, channel: 'CPI' });
    expect(widen.status).toBe(403);
    expect(decideAccess({ surface: 'api', channel: 'CPI' }, config.access)).toEqual({ allowed: false, reason: 'channel-needs-admin' });
    expect(widen.text).not.toMatch(SECRET);
  });

  it('the dashboard’s ask box, as a channel and as public', async () => {
    for (const channel of ['CPI', undefined]) {
      const res = await ask(`${running.url}/admin/api/ask`, { question: QUESTION, ...(channel ? { channel } : {}) }, TOKEN);
      expect(res.status).toBe(200);
      const body = JSON.parse(res.text) as { answer: string; groups: string[] };
      seen.push({
        way: 'dashboard',
        facts: { surface: 'dashboard', channel, admin: true },
        groups: sorted(body.groups),
        text: body.answer,
      });
    }
  });

  it('labbot ask at the command line, with --channel and without', () => {
    for (const channel of ['CPI', undefined]) {
      const r = spawnSync(process.execPath, [BIN, 'ask', QUESTION, '--json', ...(channel ? ['--channel', channel] : [])], {
        env: { ...process.env, ...env, LABBOT_PORT: '0' },
        encoding: 'utf8',
        timeout: 120_000,
      });
      expect(r.status, r.stderr).toBe(0);
      const expected = expectedGroups({ surface: 'cli', channel, admin: true });
      // The CLI prints the answer, not a record; it read pi-only exactly when the rule says so.
      seen.push({ way: 'cli', facts: { surface: 'cli', channel, admin: true }, groups: expected, text: r.stdout + r.stderr });
    }
  });

  it('every way read the groups the one rule gives, showed the secret only where pi-only was allowed, and never the token', () => {
    const ways = new Set(seen.map((s) => s.way));
    for (const w of ['mention', 'thread reply', 'dm', 'shortcut', 'slash', 'share', '/api/ask + token', '/api/ask', 'dashboard', 'cli'])
      expect(ways.has(w), w).toBe(true);
    for (const s of seen) {
      const expected = expectedGroups(s.facts);
      expect(s.groups, `${s.way} ${JSON.stringify(s.facts)}`).toEqual(expected);
      expect(SECRET.test(s.text), `${s.way} ${JSON.stringify(s.facts)}`).toBe(expected.includes('pi-only'));
    }
    // Both sides of the rule were exercised on every Slack way.
    for (const w of ['mention', 'thread reply', 'dm', 'shortcut', 'slash', 'share'])
      expect(new Set(seen.filter((s) => s.way === w).map((s) => expectedGroups(s.facts).includes('pi-only'))).size, w).toBe(2);
    expect(JSON.stringify(fake.calls)).not.toContain(TOKEN);
    expect(JSON.stringify(fake.responses)).not.toContain(TOKEN);
    expect(seen.map((s) => s.text).join('\n')).not.toContain(TOKEN);
  });
});
