// `/labbot reindex` within response_url's limits (at most 5 posts in 30 minutes): a two-source
// sync posts "queued" and one summary there; progress goes to the admin by direct message.
// Real Bolt, Redis and Chroma; the in-process reindexer with no throttle, so every progress
// event would reach Slack.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../src/app.ts';
import { type FakeSlack } from './helpers/fake-slack.ts';
import { SIGNING_SECRET, type RunningBot } from './helpers/slack-bot.ts';
import { startSlackHarness, type SlackHarness } from './helpers/slack-harness.ts';
import { post, slashRequest } from './helpers/slack-request.ts';

const LAB = path.resolve('examples/lab');
const fileConfig = {
  sources: [
    { id: 'papers', type: 'folder', path: path.join(LAB, 'papers') },
    { id: 'wiki', type: 'folder', path: path.join(LAB, 'wiki') },
  ],
};

describe('/labbot reindex within response_url limits', () => {
  let app: App;
  let fake: FakeSlack;
  let bot: RunningBot;
  let harness: SlackHarness | undefined;
  beforeAll(async () => {
    harness = await startSlackHarness({ fileConfig, ingest: false });
    ({ app, fake, bot } = harness);
  });
  afterAll(async () => harness?.close());

  it('posts "queued" and one final summary on response_url; progress by DM to the admin', async () => {
    const url = fake.responseUrl('ri-two');
    expect((await post(bot.url, slashRequest(SIGNING_SECRET, { text: 'reindex all', user: 'UADMIN', responseUrl: url }))).status).toBe(200);
    const summary = await fake.waitFor(() => fake.responses.find((r) => r.id === 'ri-two' && /finished/.test(String(r.body.text))), 60_000);
    const posts = fake.responses.filter((r) => r.id === 'ri-two');
    expect(posts).toHaveLength(2);
    expect(String(posts[0].body.text)).toMatch(/queued for papers, wiki/);
    expect(String(summary.body.text)).toMatch(/papers: done in .* indexed/);
    expect(String(summary.body.text)).toMatch(/wiki: done in .* indexed/);
    expect(summary.body.response_type).toBe('ephemeral');
    const dms = fake.callsOf('chat.postMessage').filter((c) => c.body.channel === 'UADMIN');
    expect(dms.length).toBeGreaterThan(0);
    expect(dms.every((c) => /progress: (papers|wiki): /.test(String(c.body.text)))).toBe(true);
    expect(app.catalog.stats().bySource.papers?.documents).toBeGreaterThan(0);
    expect(app.catalog.stats().bySource.wiki?.documents).toBeGreaterThan(0);
  });
});
