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
  /** A post, then the fake's clock past Slack's 1 message per second per channel (tests of other limits). */
  const paced = async (args: Parameters<webApi.WebClient['chat']['postMessage']>[0]) => {
    try {
      return await client.chat.postMessage(args);
    } finally {
      fake.advanceClock(1000);
    }
  };
  afterEach(async () => {
    // each test asserts on them itself
    fake.strayMentions.length = 0;
    fake.strayLinks.length = 0;
    fake.strayInvisible.length = 0;
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
    for (let i = 0; i < 6; i++)
      statuses.push(
        (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: `post ${i}` }) }))
          .status,
      );
    expect(statuses).toEqual([200, 200, 200, 200, 200, 404]);
    expect(fake.responses.filter((r) => r.id === 'five')).toHaveLength(5);
    expect(fake.rejected.at(-1)).toMatchObject({ method: 'response_url', error: 'used_url' });

    const late = fake.responseUrl('late');
    fake.advanceClock(30 * 60_000 + 1);
    const res = await fetch(late, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'too late' }),
    });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: string }).error).toBe('expired_url');
  });

  it('flags every mention token in posted text, blocks and response_url posts unless a test allowed it', async () => {
    await client.chat.postMessage({
      channel: 'C1',
      text: 'hi <!here>',
      blocks: [section('see <#C0123|general> and <@U999>'), section('&lt;!channel&gt; is escaped')],
    });
    await client.chat.postMessage({ channel: 'C2', text: '<!subteam^S1|@team> <!everyone> <!channel>' });
    await fetch(fake.responseUrl('r'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'ok', blocks: [section('<@W42|bob>')] }),
    });
    expect(fake.strayMentions.map((m) => m.token).sort()).toEqual(
      ['<!channel>', '<!everyone>', '<!here>', '<!subteam^S1|@team>', '<#C0123|general>', '<@U999>', '<@W42|bob>'].sort(),
    );
    expect(fake.strayMentions.find((m) => m.token === '<@W42|bob>')?.method).toBe('response_url');

    fake.strayMentions.length = 0;
    fake.allowMentions('<@UASKER>', /^<#C[A-Z0-9]+>$/);
    await client.chat.postMessage({ channel: 'C3', text: 'shared by <@UASKER> in <#C0SHARE>' });
    expect(fake.strayMentions).toEqual([]);
    await client.chat.postMessage({ channel: 'C4', text: 'not <@UOTHER>' });
    expect(fake.strayMentions.map((m) => m.token)).toEqual(['<@UOTHER>']);
  });

  it('takes 1 chat.postMessage per second per channel: the next one within the second gets 429 with Retry-After', async () => {
    const post = (channel: string) =>
      fetch(`${fake.apiUrl}chat.postMessage`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer xoxb-test' },
        body: JSON.stringify({ channel, text: 'hi' }),
      });
    expect((await post('CRATE')).status).toBe(200);
    const limited = await post('CRATE');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    // Another channel is not held back; the same channel is again after a second.
    expect((await post('COTHER')).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1000));
    expect((await post('CRATE')).status).toBe(200);
    expect(fake.rateLimited).toHaveLength(1);
    expect(fake.conversation.visible('CRATE')).toHaveLength(2);
  });

  it('keeps messages as Slack shows them: edits, deletions, and ephemeral ones chat.update/delete cannot reach', async () => {
    const posted = await client.chat.postMessage({ channel: 'CKEEP', text: 'first' });
    await client.chat.update({ channel: 'CKEEP', ts: posted.ts!, text: 'edited' });
    expect(fake.conversation.visible('CKEEP').map((m) => m.text)).toEqual(['edited']);
    expect(fake.conversation.visible('CKEEP')[0].versions.map((v) => v.text)).toEqual(['first', 'edited']);
    expect(await errorOf(client.chat.update({ channel: 'CKEEP', ts: '999.000001', text: 'x' }))).toBe('message_not_found');
    const eph = await client.chat.postEphemeral({ channel: 'CKEEP', user: 'UASKER', text: 'only you' });
    expect(fake.conversation.ephemeralFor('UASKER', 'CKEEP').map((m) => m.text)).toEqual(['only you']);
    expect(await errorOf(client.chat.update({ channel: 'CKEEP', ts: eph.message_ts!, text: 'x' }))).toBe('message_not_found');
    expect(await errorOf(client.chat.delete({ channel: 'CKEEP', ts: eph.message_ts! }))).toBe('message_not_found');
    // A user id posts in the app's DM with that user; edits then need the DM's id.
    const dm = await client.chat.postMessage({ channel: 'UDMME', text: 'progress' });
    expect(dm.channel).toBe('DDMME');
    expect(await errorOf(client.chat.update({ channel: 'UDMME', ts: dm.ts!, text: 'x' }))).toBe('channel_not_found');
    await client.chat.update({ channel: dm.channel!, ts: dm.ts!, text: 'done' });
    expect(fake.conversation.visible('DDMME').map((m) => m.text)).toEqual(['done']);
    await client.chat.delete({ channel: 'CKEEP', ts: posted.ts! });
    expect(fake.conversation.visible('CKEEP')).toEqual([]);
    expect(await errorOf(client.chat.delete({ channel: 'CKEEP', ts: posted.ts! }))).toBe('message_not_found');
  });

  it('applies replace_original and delete_original where Slack does: never to a command’s responses, to the message a button was on', async () => {
    const send = (url: string, body: Record<string, unknown>) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const cmd = fake.commandUrl('cmd', { channel: 'CCMD', user: 'UASKER' });
    fake.recordAck('cmd', JSON.stringify({ response_type: 'ephemeral', text: 'Searching…' }));
    expect(fake.conversation.ephemeralFor('UASKER', 'CCMD').map((m) => m.text)).toEqual(['Searching…']);
    // A command's acknowledgement cannot be replaced: the "replacement" is a new message.
    expect((await send(cmd, { response_type: 'ephemeral', replace_original: true, text: 'the answer' })).status).toBe(200);
    expect(fake.conversation.ephemeralFor('UASKER', 'CCMD').map((m) => m.text)).toEqual(['Searching…', 'the answer']);
    expect((await send(cmd, { delete_original: true })).status).toBe(404);
    expect(fake.conversation.visible('CCMD')).toEqual([]);

    // A click on the answer: without replace_original false its response replaces it.
    const [, answer] = fake.conversation.ephemeralFor('UASKER', 'CCMD');
    const click = fake.actionUrl('click', answer, 'UASKER');
    expect((await send(click, { response_type: 'in_channel', replace_original: false, text: 'for everyone' })).status).toBe(200);
    expect(fake.conversation.visible('CCMD').map((m) => m.text)).toEqual(['for everyone']);
    expect((await send(click, { delete_original: true })).status).toBe(200);
    expect(fake.conversation.ephemeralFor('UASKER', 'CCMD').map((m) => m.text)).toEqual(['Searching…']);
    const again = await send(click, { delete_original: true });
    expect(again.status).toBe(404);
    expect(((await again.json()) as { error: string }).error).toBe('message_not_found');
    const other = fake.actionUrl('click2', fake.conversation.ephemeralFor('UASKER', 'CCMD')[0], 'UASKER');
    await send(other, { response_type: 'ephemeral', text: 'replaced by default' });
    expect(fake.conversation.ephemeralFor('UASKER', 'CCMD').map((m) => m.text)).toEqual(['replaced by default']);
  });

  it('close() fails when a stray mention was never dealt with', async () => {
    const other = await startFakeSlack();
    await new webApi.WebClient('xoxb-test', { slackApiUrl: other.apiUrl }).chat.postMessage({ channel: 'C1', text: '<!channel> hello' });
    await expect(other.close()).rejects.toThrow(/mention token.*<!channel>/);
  });

  it('refuses a block_id over 255 characters or repeated within one message, as Slack does', async () => {
    const withId = (id: string) => ({ ...section('x'), block_id: id });
    expect(await errorOf(client.chat.postMessage({ channel: 'C1', text: 't', blocks: [withId('a'.repeat(256))] }))).toBe('invalid_blocks');
    expect(await errorOf(client.chat.postMessage({ channel: 'C1', text: 't', blocks: [withId('same'), withId('same')] }))).toBe(
      'invalid_blocks',
    );
    expect(await errorOf(client.chat.postMessage({ channel: 'C1', text: 't', blocks: [withId('')] }))).toBe('invalid_blocks');
    expect((await client.chat.postMessage({ channel: 'C1', text: 't', blocks: [withId('a'.repeat(255)), withId('b')] })).ok).toBe(true);
  });

  it('checks rich text and text objects the way Slack documents them', async () => {
    const quote = (elements: unknown[]) => [{ type: 'rich_text', elements: [{ type: 'rich_text_quote', elements }] }];
    expect(
      (await paced({ channel: 'C1', text: 't', blocks: quote([{ type: 'text', text: 'as *written*', style: { italic: true } }]) })).ok,
    ).toBe(true);
    for (const bad of [
      quote([]),
      quote([{ type: 'text', text: '' }]),
      quote([{ type: 'text', text: 'x', style: { blink: true } }]),
      quote([{ type: 'marquee', text: 'x' }]),
      [{ type: 'rich_text', elements: [] }],
    ]) {
      expect(await errorOf(paced({ channel: 'C1', text: 't', blocks: bad as never }))).toBe('invalid_blocks');
    }
    expect(
      await errorOf(
        paced({
          channel: 'C1',
          text: 't',
          blocks: [{ type: 'section', text: { type: 'plain_text', text: 'x', verbatim: true } }] as never,
        }),
      ),
    ).toBe('invalid_blocks');
    // A rich-text mention element pings like a token; a text element saying "<!channel>" does not.
    await paced({
      channel: 'C1',
      text: 't',
      blocks: quote([
        { type: 'broadcast', range: 'channel' },
        { type: 'text', text: '<!here>' },
      ]) as never,
    });
    expect(fake.strayMentions.map((m) => m.token)).toEqual(['<!channel>']);
  });

  it('flags masked links to URLs no test allowed, in mrkdwn, rich text and streamed Markdown; a bare or escaped one is no masked link', async () => {
    fake.allowLinks('https://doi.org/10.5555/x', () => ['https://lab.example.org/p.pdf']);
    await paced({
      channel: 'C1',
      text: 'see <https://evil.example/login|the portal>',
      blocks: [
        section(
          '<https://doi.org/10.5555/x|ok> <https://lab.example.org/p.pdf#page=3|page 3> https://evil.example/bare <https://evil.example/shown>',
        ),
      ],
    });
    await paced({
      channel: 'C1',
      text: 't',
      blocks: [
        {
          type: 'rich_text',
          elements: [{ type: 'rich_text_section', elements: [{ type: 'link', url: 'https://evil.example/r', text: 'lab wiki' }] }],
        },
      ] as never,
    });
    await fetch(fake.responseUrl('l'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ markdown_text: '[portal](https://evil.example/m) and \\[not](https://evil.example/escaped)' }),
    });
    expect(fake.strayLinks.map((l) => l.url).sort()).toEqual([
      'https://evil.example/login',
      'https://evil.example/m',
      'https://evil.example/r',
    ]);
  });

  it('flags control and invisible formatting characters anywhere in what is sent, not emoji joiners or tabs', async () => {
    await paced({ channel: 'C1', text: 'ok 👩‍🔬\ttab\nline', blocks: [section('FWD\u200b_p53')] });
    await paced({ channel: 'C1', text: '<https://x.org|\u00020\u0002>' });
    expect(fake.strayInvisible.flatMap((x) => x.chars).sort()).toEqual(['U+0002', 'U+200B']);
    const other = await startFakeSlack();
    await new webApi.WebClient('xoxb-test', { slackApiUrl: other.apiUrl }).chat.postMessage({
      channel: 'C1',
      text: 'bidi \u202e override',
    });
    await expect(other.close()).rejects.toThrow(/invisible characters: chat.postMessage: U\+202E/);
  });

  it('answers conversations.info with the conversation object, a test’s sharing flags, or its error', async () => {
    fake.conversations.set('CSHARED', { is_shared: true, is_ext_shared: true });
    fake.conversations.set('CGONE', { error: 'channel_not_found' });
    const shared = await client.conversations.info({ channel: 'CSHARED' });
    expect(shared.channel).toMatchObject({ id: 'CSHARED', is_channel: true, is_shared: true, is_ext_shared: true, is_org_shared: false });
    expect((await client.conversations.info({ channel: 'GPRIV' })).channel).toMatchObject({ is_private: true, is_ext_shared: false });
    expect((await client.conversations.info({ channel: 'D123' })).channel).toMatchObject({ is_im: true });
    expect(await errorOf(client.conversations.info({ channel: 'CGONE' }))).toBe('channel_not_found');
    // A DM is labbot's own (its `user` is the other member) or, between two people, not labbot's to see.
    expect((await client.conversations.info({ channel: 'D123' })).channel).toEqual(
      expect.objectContaining({ id: 'D123', is_im: true, user: 'U123', is_org_shared: false, priority: 0 }),
    );
    expect((await client.conversations.info({ channel: 'D123' })).channel).not.toHaveProperty('is_mpim');
    fake.conversations.set('DPEOPLE', { members: ['UPI', 'USTUDENT'] });
    expect(await errorOf(client.conversations.info({ channel: 'DPEOPLE' }))).toBe('channel_not_found');
    fake.conversations.set('DWITHBOT', { members: ['USTUDENT', 'UBOT'] });
    expect((await client.conversations.info({ channel: 'DWITHBOT' })).channel).toMatchObject({ is_im: true, user: 'USTUDENT' });
    // A group DM: is_mpim, private, not a channel or group; seen only when labbot is in it.
    fake.conversations.set('CGROUPDM', { mpim: true, members: ['UPI', 'USTUDENT', 'UBOT'] });
    fake.conversations.set('GGROUPDM', { mpim: true, members: ['UPI', 'USTUDENT'] });
    expect((await client.conversations.info({ channel: 'CGROUPDM' })).channel).toMatchObject({
      is_mpim: true,
      is_im: false,
      is_channel: false,
      is_group: false,
      is_private: true,
      name: 'mpdm-upi--ustudent-1',
    });
    expect(await errorOf(client.conversations.info({ channel: 'GGROUPDM' }))).toBe('channel_not_found');
    expect(await errorOf(client.conversations.info({ channel: 'not-an-id' }))).toBe('channel_not_found');
  });
});

// The agent experience's methods, as strict as docs.slack.dev describes them.
describe('fake Slack strictness: status lines, prompts, streams, feedback buttons, message state', () => {
  let fake: FakeSlack;
  let client: webApi.WebClient;
  beforeEach(async () => {
    fake = await startFakeSlack();
    client = new webApi.WebClient('xoxb-test', { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });
  });
  afterEach(async () => fake.close());

  const feedback = (positive: Record<string, unknown>) => ({
    type: 'context_actions',
    elements: [
      {
        type: 'feedback_buttons',
        action_id: 'fb',
        positive_button: positive,
        negative_button: { text: { type: 'plain_text', text: '👎' }, value: 'down:1' },
      },
    ],
  });

  it('assistant.threads.setStatus needs channel_id and thread_ts and takes at most 10 loading messages', async () => {
    const call = (args: Record<string, unknown>) => errorOf(client.apiCall('assistant.threads.setStatus', args));
    expect(await call({ channel_id: 'C1', status: 'is working…' })).toBe('invalid_arguments');
    expect(await call({ thread_ts: '1.1', status: 'is working…' })).toBe('invalid_arguments');
    expect(
      await call({ channel_id: 'C1', thread_ts: '1.1', status: 'x', loading_messages: Array.from({ length: 11 }, (_, i) => `m${i}`) }),
    ).toBe('invalid_arguments');
    expect(
      await call({ channel_id: 'C1', thread_ts: '1.1', status: 'x', loading_messages: Array.from({ length: 10 }, (_, i) => `m${i}`) }),
    ).toBeUndefined();
    expect(fake.conversation.statuses.get('C1:1.1')?.status).toBe('x');
    // A reply in the thread clears it, as Slack does.
    await client.chat.postMessage({ channel: 'C1', thread_ts: '1.1', text: 'the answer' });
    expect(fake.conversation.statuses.has('C1:1.1')).toBe(false);
  });

  it('setSuggestedPrompts takes 1 to 4 prompts; an agent_view app’s prompts with a thread_ts are silently dropped', async () => {
    const p = (n: number) => Array.from({ length: n }, (_, i) => ({ title: `t${i}`, message: `m${i}` }));
    expect(await errorOf(client.assistant.threads.setSuggestedPrompts({ channel_id: 'D1', prompts: p(5) }))).toBe('invalid_arguments');
    expect(await errorOf(client.assistant.threads.setSuggestedPrompts({ channel_id: 'D1', prompts: [] }))).toBe('invalid_arguments');
    expect(
      await errorOf(client.assistant.threads.setSuggestedPrompts({ channel_id: 'D1', thread_ts: '1.1', prompts: p(2) })),
    ).toBeUndefined();
    expect(fake.conversation.prompts.size).toBe(0);
    expect(await errorOf(client.assistant.threads.setSuggestedPrompts({ channel_id: 'D1', prompts: p(4) }))).toBeUndefined();
    expect(fake.conversation.prompts.get('D1')).toHaveLength(4);
  });

  it('chat.startStream outside a DM needs recipient_user_id and recipient_team_id; stopStream checks its blocks', async () => {
    expect(await errorOf(client.chat.startStream({ channel: 'C1', thread_ts: '1.1', markdown_text: 'hi' }))).toBe('invalid_arguments');
    expect(await errorOf(client.chat.startStream({ channel: 'C1', thread_ts: '1.1', markdown_text: 'hi', recipient_user_id: 'U1' }))).toBe(
      'invalid_arguments',
    );
    const started = await client.chat.startStream({
      channel: 'C1',
      thread_ts: '1.1',
      markdown_text: 'hi',
      recipient_user_id: 'U1',
      recipient_team_id: 'T1',
    });
    expect(await errorOf(client.chat.stopStream({ channel: 'C1', ts: started.ts!, blocks: [{ type: 'nonsense' }] as never }))).toBe(
      'invalid_blocks',
    );
    expect(
      await errorOf(
        client.chat.stopStream({
          channel: 'C1',
          ts: started.ts!,
          blocks: [feedback({ text: { type: 'plain_text', text: '👍' }, value: 'up:1' })] as never,
        }),
      ),
    ).toBeUndefined();
    expect(await errorOf(client.chat.appendStream({ channel: 'C1', ts: started.ts!, markdown_text: 'more' }))).toBe(
      'message_not_in_streaming_state',
    );
    expect((await client.chat.startStream({ channel: 'D1', thread_ts: '1.1', markdown_text: 'hi' })).ok).toBe(true);
  });

  it('keeps a thread in one conversation: its post and stream in order, the stream’s text as streamed, ephemeral replies apart', async () => {
    const parent = await client.chat.postMessage({ channel: 'CONE', text: 'the question' });
    await client.apiCall('assistant.threads.setStatus', { channel_id: 'CONE', thread_ts: parent.ts!, status: 'is searching…' });
    await client.chat.postEphemeral({ channel: 'CONE', user: 'UASKER', thread_ts: parent.ts!, text: 'only you' });
    const started = await client.chat.startStream({
      channel: 'CONE',
      thread_ts: parent.ts!,
      markdown_text: 'five ',
      recipient_user_id: 'UASKER',
      recipient_team_id: 'T0LAB',
    });
    expect(fake.conversation.statuses.has(`CONE:${parent.ts!}`)).toBe(false);
    await client.chat.appendStream({ channel: 'CONE', ts: started.ts!, markdown_text: 'minutes' });
    expect(fake.conversation.visible('CONE', { thread: parent.ts! }).map((m) => [m.via, m.text])).toEqual([
      ['chat.postMessage', 'the question'],
      ['chat.startStream', 'five minutes'],
    ]);
    expect(fake.conversation.message(started.ts!)?.stream).toEqual({ text: 'five minutes', stopped: false });
    expect(fake.conversation.ephemeralFor('UASKER', 'CONE').map((m) => [m.threadTs, m.text])).toEqual([[parent.ts!, 'only you']]);
    // An edit replaces what the message shows; the stream keeps what was streamed.
    await client.chat.update({ channel: 'CONE', ts: started.ts!, text: 'the checked answer' });
    const answer = fake.conversation.message(started.ts!)!;
    expect([answer.text, answer.stream?.text, answer.versions.length]).toEqual(['the checked answer', 'five minutes', 2]);
    await client.chat.delete({ channel: 'CONE', ts: started.ts! });
    expect(fake.conversation.visible('CONE').map((m) => m.text)).toEqual(['the question']);
    expect(fake.conversation.message(started.ts!)?.deleted).toBe(true);
  });

  it('refuses malformed feedback buttons: no value, text over 75 characters, more than 5 elements', async () => {
    const post = (blocks: unknown[]) => errorOf(client.chat.postMessage({ channel: 'C1', text: 'x', blocks: blocks as never }));
    expect(await post([feedback({ text: { type: 'plain_text', text: '👍' } })])).toBe('invalid_blocks');
    expect(await post([feedback({ text: { type: 'plain_text', text: 'y'.repeat(76) }, value: 'up:1' })])).toBe('invalid_blocks');
    expect(await post([feedback({ text: { type: 'mrkdwn', text: '👍' }, value: 'up:1' })])).toBe('invalid_blocks');
    const five = feedback({ text: { type: 'plain_text', text: '👍' }, value: 'up:1' });
    expect(await post([{ ...five, elements: Array.from({ length: 6 }, () => five.elements[0]) }])).toBe('invalid_blocks');
    expect(await post([five])).toBeUndefined();
  });

  it('chat.update and chat.delete need a message that exists; reactions are per message and name; unknown methods fail', async () => {
    expect(await errorOf(client.chat.update({ channel: 'C1', ts: '123.456', text: 'x' }))).toBe('message_not_found');
    expect(await errorOf(client.chat.delete({ channel: 'C1', ts: '123.456' }))).toBe('message_not_found');
    const posted = await client.chat.postMessage({ channel: 'C1', text: 'hello' });
    expect(await errorOf(client.chat.update({ channel: 'C2', ts: posted.ts!, text: 'x' }))).toBe('message_not_found');
    expect(await errorOf(client.chat.delete({ channel: 'C1', ts: posted.ts! }))).toBeUndefined();
    expect(await errorOf(client.chat.update({ channel: 'C1', ts: posted.ts!, text: 'x' }))).toBe('message_not_found');
    expect(await errorOf(client.reactions.add({ channel: 'C1', timestamp: '1.1' } as never))).toBe('invalid_arguments');
    expect(await errorOf(client.reactions.add({ channel: 'C1', timestamp: '1.1', name: 'eyes' }))).toBeUndefined();
    expect(await errorOf(client.reactions.add({ channel: 'C1', timestamp: '1.1', name: 'eyes' }))).toBe('already_reacted');
    expect(await errorOf(client.reactions.remove({ channel: 'C1', timestamp: '1.1', name: 'tada' }))).toBe('no_reaction');
    expect(await errorOf(client.apiCall('assistant.threads.setTitle', { channel_id: 'D1', thread_ts: '1.1', title: 'x' }))).toBe(
      'unknown_method',
    );
  });
});
