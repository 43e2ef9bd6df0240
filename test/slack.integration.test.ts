// The Slack bot end to end: real Bolt (HTTP mode), real Redis, real Chroma with the sample corpus;
// only Slack is replaced, by a fake Web API on 127.0.0.1 that enforces Block Kit limits.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Labbot } from '../src/app.ts';
import type { FakeSlack, SlackCall } from './helpers/fake-slack.ts';
import { SIGNING_SECRET, type RunningBot } from './helpers/slack-bot.ts';
import { feedbackRecordId, waitForPost } from './helpers/slack-answers.ts';
import {
  blockActionRequest,
  dmEnvelope,
  eventRequest,
  feedbackButtonsRequest,
  mentionEnvelope,
  post,
  sign,
  slashRequest,
} from './helpers/slack-request.ts';
import { startSlackHarness, type SlackHarness } from './helpers/slack-harness.ts';

const LAB = path.resolve('examples/lab');
const fileConfig = {
  sources: [{ id: 'lab', type: 'folder', path: LAB }],
  access: { default: 'public', channels: { CPI: ['pi-only'] }, users: { UPI: ['pi-only'] } },
};

let barriers = 0;

/** Every text a call would show in Slack (fallback text and section/context texts). */
function shownText(c: SlackCall): string {
  const blocks = (c.body.blocks as { text?: { text?: string }; elements?: { text?: string | { text?: string } }[] }[] | undefined) ?? [];
  const parts = [String(c.body.text ?? '')];
  for (const b of blocks) {
    if (b.text?.text) parts.push(b.text.text);
    for (const e of b.elements ?? []) parts.push(typeof e.text === 'string' ? e.text : (e.text?.text ?? ''));
  }
  return parts.join('\n');
}

describe('Slack bot over HTTP (Events API)', () => {
  let app: Labbot;
  let fake: FakeSlack;
  let bot: RunningBot;

  /**
   * Instead of a fixed sleep before checking that something did NOT happen: a new mention sent
   * now is answered only after the events sent before it went through Bolt (it takes them in
   * order), so once its answer is in, a duplicate answer would already have been started.
   * Returns the channel it used, to leave out of the counts.
   */
  async function barrier(): Promise<string> {
    barriers += 1;
    const channel = `CBARRIER${barriers}`;
    expect(
      (await post(bot.url, eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'How long do we block the membrane?', channel })))).status,
    ).toBe(200);
    await waitForPost(fake, channel);
    return channel;
  }

  let harness: SlackHarness | undefined;
  beforeAll(async () => {
    harness = await startSlackHarness({ fileConfig });
    ({ fake, app, bot } = harness);
    expect(harness.ingested?.failed).toEqual([]);
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('answers url_verification with the challenge', async () => {
    const res = await post(bot.url, eventRequest(SIGNING_SECRET, { type: 'url_verification', token: 'x', challenge: 'chal-123' }));
    expect(res.status).toBe(200);
    expect(res.text).toContain('chal-123');
  });

  it('rejects a bad signature and a stale timestamp with 401 and makes no Slack call', async () => {
    const before = fake.calls.length;
    const env = mentionEnvelope({ text: 'What dilution for the primary antibody?' });
    const bad = eventRequest('wrong-secret-0123456789', env);
    expect((await post(bot.url, bad)).status).toBe(401);
    const stale = eventRequest(SIGNING_SECRET, env, { timestamp: Math.floor(Date.now() / 1000) - 600 });
    expect((await post(bot.url, stale)).status).toBe(401);
    const tampered = eventRequest(SIGNING_SECRET, env);
    tampered.body = tampered.body.replace('primary', 'secondary');
    expect((await post(bot.url, tampered)).status).toBe(401);
    const channel = await barrier();
    expect(fake.calls.slice(before).filter((c) => (c.body.channel ?? c.body.channel_id) !== channel)).toEqual([]);
  });

  it('answers a mention once, in its thread, with a valid citation; retries give no second answer', async () => {
    const env = mentionEnvelope({ text: 'What antibody dilution is used for the Western blot primary antibody?', channel: 'CMENTION' });
    const ts = (env.event as { ts: string }).ts;
    const res = await post(bot.url, eventRequest(SIGNING_SECRET, env));
    expect(res.status).toBe(200);
    expect(res.ms).toBeLessThan(1000);
    // The answer is the one message posted (the notifying one), in the thread; a status line showed labbot at work.
    const update = await waitForPost(fake, 'CMENTION');
    expect(fake.callsOf('chat.postMessage').filter((c) => c.body.channel === 'CMENTION')).toHaveLength(1);
    expect(update.body.thread_ts).toBe(ts);
    expect(fake.callsOf('assistant.threads.setStatus').find((c) => c.body.channel_id === 'CMENTION')?.body.thread_ts).toBe(ts);
    const text = shownText(update);
    expect(text).toMatch(/\[S\d+\]/);
    expect(text).toContain('*Sources*');
    expect(text).toMatch(/extractive|Quoted from the sources/i);
    expect(text).not.toContain('<@UBOT>');
    // The feedback buttons carry the record id; the record's citations point at indexed documents.
    const id = feedbackRecordId(update.body.blocks);
    expect(id).toBeTruthy();
    const record = await bot.activity.get(id!);
    expect(record?.citations.length).toBeGreaterThan(0);
    for (const c of record!.citations) expect(app.catalog.doc(c.doc_id)).toBeDefined();
    expect(record?.source).toBe('slack');
    expect(record?.channel).toBe('CMENTION');

    // Slack retries (and a second replica receiving the same event) must not answer again.
    for (const retryNum of [1, 2]) {
      const r = await post(bot.url, eventRequest(SIGNING_SECRET, env, { retryNum }));
      expect(r.status).toBe(200);
    }
    await barrier();
    expect(fake.calls.filter((c) => c.body.channel === 'CMENTION' && c.method.startsWith('chat.'))).toHaveLength(1);
  });

  it('uses the thread for a follow-up: conversations.replies, question rewritten with the earlier topic', async () => {
    const parentTs = '1700000100.000100';
    fake.threads.set(`CTHREAD:${parentTs}`, [
      { ts: parentTs, user: 'UASKER', text: '<@UBOT> How do I passage RPE-1 cells?' },
      { ts: '1700000101.000100', bot_id: 'BBOT', user: 'UBOT', text: 'Split RPE-1 cells 1:5 twice a week [S1].' },
      { ts: '1700000102.000100', user: 'UASKER', text: '<@UBOT> and for HEK293T?' },
    ]);
    const env = mentionEnvelope({ text: 'and for HEK293T?', channel: 'CTHREAD', ts: '1700000102.000100', threadTs: parentTs });
    expect((await post(bot.url, eventRequest(SIGNING_SECRET, env))).status).toBe(200);
    const update = await waitForPost(fake, 'CTHREAD');
    const replies = fake.callsOf('conversations.replies').filter((c) => c.body.channel === 'CTHREAD');
    expect(replies).toHaveLength(1);
    expect(replies[0].body.ts).toBe(parentTs);
    expect(fake.callsOf('chat.postMessage').find((c) => c.body.channel === 'CTHREAD')?.body.thread_ts).toBe(parentTs);
    const record = await bot.activity.get(feedbackRecordId(update.body.blocks)!);
    expect(record?.question).toBe('and for HEK293T?');
    expect(record?.searchedAs).toMatch(/HEK293T/);
    expect(record?.searchedAs).toMatch(/passage/i);
    expect(record?.searchedAs).not.toMatch(/RPE-1/);
  });

  it('answers a direct message, and ignores bot messages and edits in DMs', async () => {
    const ignoredBot = dmEnvelope({ text: 'I am a bot', channel: 'DBOTS', botId: 'BOTHER' });
    const ignoredEdit = dmEnvelope({ text: 'edited', channel: 'DBOTS', subtype: 'message_changed' });
    await post(bot.url, eventRequest(SIGNING_SECRET, ignoredBot));
    await post(bot.url, eventRequest(SIGNING_SECRET, ignoredEdit));
    const env = dmEnvelope({ text: 'What dilution is used for the primary antibody in the Western blot?', channel: 'DUSER1', user: 'UDM' });
    expect((await post(bot.url, eventRequest(SIGNING_SECRET, env))).status).toBe(200);
    const update = await waitForPost(fake, 'DUSER1');
    expect(shownText(update)).toMatch(/\[S\d+\]/);
    // Answered in a thread under the question, so each DM question keeps its own conversation.
    expect(fake.callsOf('chat.postMessage').find((c) => c.body.channel === 'DUSER1')?.body.thread_ts).toBe(
      (env.event as { ts: string }).ts,
    );
    const recent = await bot.activity.recent(20);
    expect(recent.find((r) => r.user === 'UDM')?.source).toBe('dm');
    expect(fake.calls.some((c) => c.body.channel === 'DBOTS')).toBe(false);
  });

  it('never shows the pi-only document in a channel without the group, while channel CPI sees it', async () => {
    const questions = [
      'What is the renewal code word?',
      'NIGHTJAR',
      'What is the code name of the unpublished follow-up study in the grant renewal?',
      'grant renewal budget total requested postdoctoral position',
      'Do not mention NIGHTJAR in lab meetings until the provisional patent is filed',
    ];
    let i = 0;
    for (const q of questions) {
      i += 1;
      const channel = `COPEN${i}`;
      await post(bot.url, eventRequest(SIGNING_SECRET, mentionEnvelope({ text: q, channel, user: 'UPI' })));
      const update = await waitForPost(fake, channel);
      expect(shownText(update)).not.toMatch(/NIGHTJAR/i);
      expect(shownText(update)).not.toMatch(/Grant renewal budget/i);
    }
    // A DM from a user without grants is public-only too.
    await post(
      bot.url,
      eventRequest(SIGNING_SECRET, dmEnvelope({ text: 'What is the renewal code word?', channel: 'DNOGRANT', user: 'UNOBODY' })),
    );
    const dm = await waitForPost(fake, 'DNOGRANT');
    expect(shownText(dm)).not.toMatch(/NIGHTJAR/i);

    await post(bot.url, eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'What is the renewal code word?', channel: 'CPI' })));
    const pi = await waitForPost(fake, 'CPI');
    expect(shownText(pi)).toMatch(/NIGHTJAR/);
    expect(shownText(pi)).toMatch(/Grant renewal budget/i);
  });

  it('survives a 429 with Retry-After on chat.postMessage and still delivers the answer', async () => {
    fake.failNext('chat.postMessage', { status: 429, retryAfter: 1 });
    await post(bot.url, eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'How is the freezer organised?', channel: 'CRATE' })));
    const updates = await fake.waitFor(() => {
      const u = fake.callsOf('chat.postMessage').filter((c) => c.body.channel === 'CRATE');
      return u.length >= 2 ? u : undefined;
    });
    expect(updates[1].at - updates[0].at).toBeGreaterThanOrEqual(900);
    expect(shownText(updates[1]).length).toBeGreaterThan(20);
  });

  it('tells the user when Slack rejects the blocks (ok:false) instead of staying silent', async () => {
    fake.failNext('chat.postMessage', { error: 'invalid_blocks' });
    await post(bot.url, eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'What is the BCA assay used for?', channel: 'CBLOCKS' })));
    const plain = await fake.waitFor(() => fake.callsOf('chat.postMessage').filter((c) => c.body.channel === 'CBLOCKS')[1]);
    expect(plain.body.blocks).toBeUndefined();
    expect(String(plain.body.text).length).toBeGreaterThan(10);
  });

  it('slash commands ack fast and reply ephemerally on response_url', async () => {
    const url = fake.responseUrl('ask1');
    const res = await post(
      bot.url,
      slashRequest(SIGNING_SECRET, { text: 'ask What dilution for the primary antibody in the Western blot?', responseUrl: url }),
    );
    expect(res.status).toBe(200);
    expect(res.ms).toBeLessThan(3000);
    const reply = await fake.waitFor(() => fake.responses.find((r) => r.id === 'ask1'));
    expect(reply.body.response_type).toBe('ephemeral');
    expect(JSON.stringify(reply.body.blocks)).toMatch(/\[S\d+\]/);
    expect(JSON.stringify(reply.body.blocks)).toContain('labbot_feedback_up');

    const help = fake.responseUrl('help1');
    // An empty command is the help (any other text is a question: test/slack-slash.integration.test.ts).
    await post(bot.url, slashRequest(SIGNING_SECRET, { text: '', responseUrl: help }));
    const h = await fake.waitFor(() => fake.responses.find((r) => r.id === 'help1'));
    expect(String(h.body.text)).toContain('/labbot ask');

    const status = fake.responseUrl('status1');
    await post(bot.url, slashRequest(SIGNING_SECRET, { text: 'status', responseUrl: status }));
    const st = await fake.waitFor(() => fake.responses.find((r) => r.id === 'status1'));
    expect(String(st.body.text)).toContain(app.version);
    expect(String(st.body.text)).toMatch(new RegExp(`\\*lab\\*: ${app.catalog.stats().bySource.lab.documents} documents`));
  });

  it('/labbot ask in CPI sees the restricted document; in another channel it does not', async () => {
    await post(
      bot.url,
      slashRequest(SIGNING_SECRET, { text: 'ask What is the renewal code word?', channel: 'CPI', responseUrl: fake.responseUrl('pi') }),
    );
    await post(
      bot.url,
      slashRequest(SIGNING_SECRET, {
        text: 'ask What is the renewal code word?',
        channel: 'COTHER',
        user: 'UPI',
        responseUrl: fake.responseUrl('open'),
      }),
    );
    const pi = await fake.waitFor(() => fake.responses.find((r) => r.id === 'pi'));
    const open = await fake.waitFor(() => fake.responses.find((r) => r.id === 'open'));
    expect(JSON.stringify(pi.body)).toMatch(/NIGHTJAR/);
    expect(JSON.stringify(open.body)).not.toMatch(/NIGHTJAR/);
  });

  it('reindex is for admins only; an admin gets the queued line at once and the result later', async () => {
    const refused = fake.responseUrl('ri-no');
    const r1 = await post(bot.url, slashRequest(SIGNING_SECRET, { text: 'reindex all', user: 'UNOTADMIN', responseUrl: refused }));
    expect(r1.status).toBe(200);
    const no = await fake.waitFor(() => fake.responses.find((r) => r.id === 'ri-no'));
    expect(String(no.body.text)).toMatch(/admins/i);

    const unknown = fake.responseUrl('ri-unknown');
    await post(bot.url, slashRequest(SIGNING_SECRET, { text: 'reindex nosuch', user: 'UADMIN', responseUrl: unknown }));
    const u = await fake.waitFor(() => fake.responses.find((r) => r.id === 'ri-unknown'));
    expect(String(u.body.text)).toMatch(/Unknown source "nosuch".*lab/);
    // Checked once a later command has been answered, not after a fixed wait.
    expect(fake.responses.filter((r) => r.id === 'ri-no')).toHaveLength(1);

    const ok = fake.responseUrl('ri-ok');
    const r2 = await post(bot.url, slashRequest(SIGNING_SECRET, { text: 'reindex lab', user: 'UADMIN', responseUrl: ok }));
    expect(r2.ms).toBeLessThan(3000);
    const queued = await fake.waitFor(() => fake.responses.find((r) => r.id === 'ri-ok' && /queued/i.test(String(r.body.text))));
    expect(String(queued.body.text)).toContain('lab');
    const done = await fake.waitFor(() => fake.responses.find((r) => r.id === 'ri-ok' && /lab: done/.test(String(r.body.text))), 60_000);
    expect(String(done.body.text)).toMatch(/unchanged/);
    expect(done.body.response_type).toBe('ephemeral');
    const st = await bot.reindexer.status();
    expect(Date.parse(st.lastSync.lab)).toBeGreaterThan(Date.now() - 120_000);
  });

  it('stores 👍/👎 votes with the question record, from Slack’s feedback buttons and from classic buttons', async () => {
    await post(bot.url, eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'What is the BCA assay for?', channel: 'CVOTE' })));
    const update = await waitForPost(fake, 'CVOTE');
    const native = (
      update.body.blocks as {
        type: string;
        elements?: { type: string; action_id?: string; positive_button?: { value: string }; negative_button?: { value: string } }[];
      }[]
    ).find((b) => b.type === 'context_actions')!.elements!;
    expect(native.map((e) => [e.type, e.action_id])).toEqual([['feedback_buttons', 'labbot_feedback']]);
    const id = feedbackRecordId(update.body.blocks)!;
    expect(native[0].negative_button?.value).toBe(`down:${id}`);
    const r = await post(
      bot.url,
      feedbackButtonsRequest(SIGNING_SECRET, { value: `up:${id}`, user: 'UV1', channel: 'CVOTE', responseUrl: fake.responseUrl('v1') }),
    );
    expect(r.status).toBe(200);
    // Answers posted before carry classic buttons (one action id per vote): still recorded.
    await post(
      bot.url,
      blockActionRequest(SIGNING_SECRET, { actionId: 'labbot_feedback_down', value: id, user: 'UV2', responseUrl: fake.responseUrl('v2') }),
    );
    await fake.waitFor(() => fake.responses.find((x) => x.id === 'v1') && fake.responses.find((x) => x.id === 'v2'));
    const record = await bot.activity.get(id);
    expect(record?.feedback).toEqual({ up: 1, down: 1 });
    expect(record?.votes).toEqual({ UV1: 'up', UV2: 'down' });
    expect(record?.question).toBe('What is the BCA assay for?');
    expect(record?.answer.length).toBeGreaterThan(0);

    await post(
      bot.url,
      blockActionRequest(SIGNING_SECRET, { actionId: 'labbot_feedback_up', value: 'nope-unknown', responseUrl: fake.responseUrl('v3') }),
    );
    const v3 = await fake.waitFor(() => fake.responses.find((x) => x.id === 'v3'));
    expect(String(v3.body.text)).toMatch(/too old/);
  });

  it('answers a bare mention with a hint instead of silence', async () => {
    await post(bot.url, eventRequest(SIGNING_SECRET, mentionEnvelope({ text: '', channel: 'CBARE' })));
    const msg = await fake.waitFor(() => fake.callsOf('chat.postMessage').find((c) => c.body.channel === 'CBARE'));
    expect(String(msg.body.text)).toMatch(/Ask me a question/);
  });

  it('signs are checked on slash commands too', async () => {
    const req = slashRequest(SIGNING_SECRET, { text: 'help', responseUrl: fake.responseUrl('unsigned') });
    req.headers = { ...req.headers, ...sign('another-secret-0123456789', req.body) };
    expect((await post(bot.url, req)).status).toBe(401);
  });
});
