// The fake Slack refuses what Slack refuses, through the real WebClient and plain HTTP posts to a
// response_url, so the bot's tests cannot stay green where production would fail.
import { webApi } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlack, type FakeSlack } from './helpers/fake-slack.ts';

const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });

async function errorOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (err) {
    return (err as { data?: { error?: string } }).data?.error ?? (err as Error).message;
  }
}

describe('fake Slack strictness', () => {
  let fake: FakeSlack;
  let client: webApi.WebClient;
  beforeEach(async () => {
    fake = await startFakeSlack();
    client = new webApi.WebClient('xoxb-test', { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });
  });
  afterEach(async () => {
    fake.strayMentions.length = 0; // each test asserts on them itself
    await fake.close();
  });

  it('answers msg_blocks_too_long past 12,000 characters of block text, however the blocks are cut', async () => {
    const blocks = Array.from({ length: 5 }, () => section('x'.repeat(2500))); // 12,500, each block valid
    expect(await errorOf(client.chat.postMessage({ channel: 'C1', text: 'fallback', blocks }))).toBe('msg_blocks_too_long');
    expect(await errorOf(client.chat.update({ channel: 'C1', ts: '1.1', text: 'fallback', blocks }))).toBe('msg_blocks_too_long');
    const ok = await client.chat.postMessage({ channel: 'C1', text: 'fallback', blocks: blocks.slice(0, 4) });
    expect(ok.ok).toBe(true);
  });

  it('answers msg_too_long for a fallback text past 4,000 characters', async () => {
    expect(await errorOf(client.chat.postMessage({ channel: 'C1', text: 'y'.repeat(4001) }))).toBe('msg_too_long');
    expect((await client.chat.postMessage({ channel: 'C1', text: 'y'.repeat(4000) })).ok).toBe(true);
  });

  it('takes at most 5 posts on one response_url, and none after 30 minutes', async () => {
    const url = fake.responseUrl('five');
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: `post ${i}` }) })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 404]);
    expect(fake.responses.filter((r) => r.id === 'five')).toHaveLength(5);
    expect(fake.rejected.at(-1)).toMatchObject({ method: 'response_url', error: 'used_url' });

    const late = fake.responseUrl('late');
    fake.advanceClock(30 * 60_000 + 1);
    const res = await fetch(late, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'too late' }) });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: string }).error).toBe('expired_url');
  });

  it('flags every mention token in posted text, blocks and response_url posts unless a test allowed it', async () => {
    await client.chat.postMessage({ channel: 'C1', text: 'hi <!here>', blocks: [section('see <#C0123|general> and <@U999>'), section('&lt;!channel&gt; is escaped')] });
    await client.chat.postMessage({ channel: 'C2', text: '<!subteam^S1|@team> <!everyone> <!channel>' });
    await fetch(fake.responseUrl('r'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'ok', blocks: [section('<@W42|bob>')] }) });
    expect(fake.strayMentions.map((m) => m.token).sort()).toEqual(['<!channel>', '<!everyone>', '<!here>', '<!subteam^S1|@team>', '<#C0123|general>', '<@U999>', '<@W42|bob>'].sort());
    expect(fake.strayMentions.find((m) => m.token === '<@W42|bob>')?.method).toBe('response_url');

    fake.strayMentions.length = 0;
    fake.allowMentions('<@UASKER>', /^<#C[A-Z0-9]+>$/);
    await client.chat.postMessage({ channel: 'C3', text: 'shared by <@UASKER> in <#C0SHARE>' });
    expect(fake.strayMentions).toEqual([]);
    await client.chat.postMessage({ channel: 'C4', text: 'not <@UOTHER>' });
    expect(fake.strayMentions.map((m) => m.token)).toEqual(['<@UOTHER>']);
  });

  it('takes 1 chat.postMessage per second per channel: the next one within the second gets 429 with Retry-After', async () => {
    const post = (channel: string) => fetch(`${fake.apiUrl}chat.postMessage`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer xoxb-test' }, body: JSON.stringify({ channel, text: 'hi' }) });
    expect((await post('CRATE')).status).toBe(200);
    const limited = await post('CRATE');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    // Another channel is not held back; the same channel is again after a second.
    expect((await post('COTHER')).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1000));
    expect((await post('CRATE')).status).toBe(200);
    expect(fake.rateLimited).toHaveLength(1);
    expect(fake.visible('CRATE')).toHaveLength(2);
  });

  it('keeps messages as Slack shows them: edits, deletions, and ephemeral ones chat.update/delete cannot reach', async () => {
    const posted = await client.chat.postMessage({ channel: 'CKEEP', text: 'first' });
    await client.chat.update({ channel: 'CKEEP', ts: posted.ts!, text: 'edited' });
    expect(fake.visible('CKEEP').map((m) => m.text)).toEqual(['edited']);
    expect(fake.visible('CKEEP')[0].versions.map((v) => v.text)).toEqual(['first', 'edited']);
    expect(await errorOf(client.chat.update({ channel: 'CKEEP', ts: '999.000001', text: 'x' }))).toBe('message_not_found');
    const eph = await client.chat.postEphemeral({ channel: 'CKEEP', user: 'UASKER', text: 'only you' });
    expect(fake.ephemeralFor('UASKER', 'CKEEP').map((m) => m.text)).toEqual(['only you']);
    expect(await errorOf(client.chat.update({ channel: 'CKEEP', ts: eph.message_ts!, text: 'x' }))).toBe('message_not_found');
    expect(await errorOf(client.chat.delete({ channel: 'CKEEP', ts: eph.message_ts! }))).toBe('message_not_found');
    // A user id posts in the app's DM with that user; edits then need the DM's id.
    const dm = await client.chat.postMessage({ channel: 'UDMME', text: 'progress' });
    expect(dm.channel).toBe('DDMME');
    expect(await errorOf(client.chat.update({ channel: 'UDMME', ts: dm.ts!, text: 'x' }))).toBe('channel_not_found');
    await client.chat.update({ channel: dm.channel!, ts: dm.ts!, text: 'done' });
    expect(fake.visible('DDMME').map((m) => m.text)).toEqual(['done']);
    await client.chat.delete({ channel: 'CKEEP', ts: posted.ts! });
    expect(fake.visible('CKEEP')).toEqual([]);
    expect(await errorOf(client.chat.delete({ channel: 'CKEEP', ts: posted.ts! }))).toBe('message_not_found');
  });

  it('applies replace_original and delete_original where Slack does: never to a command’s responses, to the message a button was on', async () => {
    const send = (url: string, body: Record<string, unknown>) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const cmd = fake.commandUrl('cmd', { channel: 'CCMD', user: 'UASKER' });
    fake.recordAck('cmd', JSON.stringify({ response_type: 'ephemeral', text: 'Searching…' }));
    expect(fake.ephemeralFor('UASKER', 'CCMD').map((m) => m.text)).toEqual(['Searching…']);
    // A command's acknowledgement cannot be replaced: the "replacement" is a new message.
    expect((await send(cmd, { response_type: 'ephemeral', replace_original: true, text: 'the answer' })).status).toBe(200);
    expect(fake.ephemeralFor('UASKER', 'CCMD').map((m) => m.text)).toEqual(['Searching…', 'the answer']);
    expect((await send(cmd, { delete_original: true })).status).toBe(404);
    expect(fake.visible('CCMD')).toEqual([]);

    // A click on the answer: without replace_original false its response replaces it.
    const [, answer] = fake.ephemeralFor('UASKER', 'CCMD');
    const click = fake.actionUrl('click', answer, 'UASKER');
    expect((await send(click, { response_type: 'in_channel', replace_original: false, text: 'for everyone' })).status).toBe(200);
    expect(fake.visible('CCMD').map((m) => m.text)).toEqual(['for everyone']);
    expect((await send(click, { delete_original: true })).status).toBe(200);
    expect(fake.ephemeralFor('UASKER', 'CCMD').map((m) => m.text)).toEqual(['Searching…']);
    const again = await send(click, { delete_original: true });
    expect(again.status).toBe(404);
    expect(((await again.json()) as { error: string }).error).toBe('message_not_found');
    const other = fake.actionUrl('click2', fake.ephemeralFor('UASKER', 'CCMD')[0], 'UASKER');
    await send(other, { response_type: 'ephemeral', text: 'replaced by default' });
    expect(fake.ephemeralFor('UASKER', 'CCMD').map((m) => m.text)).toEqual(['replaced by default']);
  });

  it('close() fails when a stray mention was never dealt with', async () => {
    const other = await startFakeSlack();
    await new webApi.WebClient('xoxb-test', { slackApiUrl: other.apiUrl }).chat.postMessage({ channel: 'C1', text: '<!channel> hello' });
    await expect(other.close()).rejects.toThrow(/mention token.*<!channel>/);
  });
});
