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
    await client.chat.postMessage({ channel: 'C1', text: '<!subteam^S1|@team> <!everyone> <!channel>' });
    await fetch(fake.responseUrl('r'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'ok', blocks: [section('<@W42|bob>')] }) });
    expect(fake.strayMentions.map((m) => m.token).sort()).toEqual(['<!channel>', '<!everyone>', '<!here>', '<!subteam^S1|@team>', '<#C0123|general>', '<@U999>', '<@W42|bob>'].sort());
    expect(fake.strayMentions.find((m) => m.token === '<@W42|bob>')?.method).toBe('response_url');

    fake.strayMentions.length = 0;
    fake.allowMentions('<@UASKER>', /^<#C[A-Z0-9]+>$/);
    await client.chat.postMessage({ channel: 'C1', text: 'shared by <@UASKER> in <#C0SHARE>' });
    expect(fake.strayMentions).toEqual([]);
    await client.chat.postMessage({ channel: 'C1', text: 'not <@UOTHER>' });
    expect(fake.strayMentions.map((m) => m.token)).toEqual(['<@UOTHER>']);
  });

  it('close() fails when a stray mention was never dealt with', async () => {
    const other = await startFakeSlack();
    await new webApi.WebClient('xoxb-test', { slackApiUrl: other.apiUrl }).chat.postMessage({ channel: 'C1', text: '<!channel> hello' });
    await expect(other.close()).rejects.toThrow(/mention token.*<!channel>/);
  });
});
