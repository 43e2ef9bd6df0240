// `labbot serve` as a lab runs it, with Slack over HTTP: the bot is mounted on /slack/events of
// the same port, answers a signed mention once, and `/labbot reindex` goes through the queue.
import { writeFileSync, mkdtempSync, cpSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { startServe, type Running } from '../src/serve.ts';
import { testEnv } from './helpers/app.ts';
import { startFakeSlack, type FakeSlack } from './helpers/fake-slack.ts';
import { SIGNING_SECRET, slackEnv } from './helpers/slack-bot.ts';
import { eventRequest, mentionEnvelope, post, slashRequest } from './helpers/slack-request.ts';
import { waitFor } from './helpers/wait.ts';
import { documentLinks } from './helpers/slack-harness.ts';

describe('serve with Slack', () => {
  let fake: FakeSlack;
  let running: Running;
  let folder: string;

  beforeAll(async () => {
    fake = await startFakeSlack();
    folder = mkdtempSync(path.join(os.tmpdir(), 'labbot-serve-slack-'));
    cpSync(path.resolve('examples/lab'), folder, { recursive: true });
    const env = testEnv({
      env: { ...slackEnv(fake.apiUrl), LABBOT_PORT: '0' },
      fileConfig: { sources: [{ id: 'lab', type: 'folder', path: folder }], access: { default: 'public', channels: { CPI: ['pi-only'] } } },
    });
    running = await startServe(loadConfig(env), createLogger('silent'));
    fake.allowLinks(() => documentLinks(running.app));
  }, 60_000);

  afterAll(async () => {
    await running?.close();
    await fake?.close();
  });

  it('mounts the bot on the serve port and answers a signed mention once, with citations', async () => {
    expect(running.slack?.mode).toBe('http');
    const env = mentionEnvelope({ text: 'How long do we block the membrane?', channel: 'CSERVE' });
    const req = eventRequest(SIGNING_SECRET, env);
    const res = await post(`${running.url}/slack/events`, req);
    expect(res.status).toBe(200);
    const again = await post(`${running.url}/slack/events`, eventRequest(SIGNING_SECRET, env, { retryNum: 1 }));
    expect(again.status).toBe(200);
    const update = await fake.waitFor(() => fake.callsOf('chat.postMessage').find((c) => c.body.channel === 'CSERVE'), 20_000);
    expect(JSON.stringify(update.body.blocks)).toContain('Sources');
    // A later mention answered means the retry went through Bolt before it (events are taken in
    // order): a second answer to CSERVE would have been started by then. No fixed wait.
    const later = await post(
      `${running.url}/slack/events`,
      eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'How long do we block the membrane?', channel: 'CSERVE2' })),
    );
    expect(later.status).toBe(200);
    await fake.waitFor(() => fake.callsOf('chat.postMessage').find((c) => c.body.channel === 'CSERVE2'), 20_000);
    expect(fake.callsOf('chat.postMessage').filter((c) => c.body.channel === 'CSERVE')).toHaveLength(1);
    expect(fake.callsOf('chat.update').filter((c) => c.body.channel === 'CSERVE')).toHaveLength(0);
    // The question reached the activity store the dashboard reads.
    const recent = await running.activity!.recent(5);
    expect(recent.some((r) => r.source === 'slack' && r.channel === 'CSERVE')).toBe(true);
  });

  it('/labbot reindex from an admin queues a sync job and reports its result on response_url', async () => {
    writeFileSync(path.join(folder, 'wiki', 'new-page.md'), '# Dry ice\n\nDry ice is ordered on Mondays; order code DRYICE77.\n');
    const url = fake.responseUrl('reindex-1');
    const res = await post(
      `${running.url}/slack/events`,
      slashRequest(SIGNING_SECRET, { text: 'reindex lab', user: 'UADMIN', responseUrl: url }),
    );
    expect(res.status).toBe(200);
    const final = await fake.waitFor(
      () => fake.responses.find((r) => /changed documents done|nothing changed/.test(JSON.stringify(r.body))),
      30_000,
    );
    expect(JSON.stringify(final.body)).toMatch(/lab: 1\/1 changed documents done/);
    // Progress through the queue: one message in the admin's DM, edited until it is the summary.
    expect(fake.callsOf('chat.postMessage').filter((c) => c.body.channel === 'UADMIN')).toHaveLength(1);
    await fake.waitFor(
      () =>
        fake.conversation
          .visible('DADMIN')
          .find((m) => /Re-sync finished[\s\S]*lab: 1\/1 changed documents done/.test(JSON.stringify(m.blocks))),
      10_000,
    );
    await waitFor(async () => running.app.catalog.lexicalSearch(['public'], 'DRYICE77', 3).length > 0, 10_000, 'new page searchable');
    const st = await running.queue!.queue.getJobCounts('completed');
    expect(st.completed).toBeGreaterThanOrEqual(2);
  });
});
