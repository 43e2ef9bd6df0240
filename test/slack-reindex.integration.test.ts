// `/labbot reindex` within Slack's limits: response_url (at most 5 posts in 30 minutes) gets
// "queued" and one final summary, privately in the channel where the command ran; progress is one
// message in the admin's DM with labbot, edited in place at most every progressEditMs and ending
// as the same summary, never a DM per step. Real Bolt, Redis and Chroma; the in-process
// reindexer, which reports every file.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Labbot } from '../src/app.ts';
import type { FakeSlack } from './helpers/fake-slack.ts';
import type { RunningBot } from './helpers/slack-bot.ts';
import { startSlackHarness, type SlackHarness } from './helpers/slack-harness.ts';
import { runSlash, shownText } from './helpers/slack-interact.ts';

const EDIT_MS = 400;

/** Two sources of many small pages, so a re-sync reports progress many times. */
function sources(): { papers: string; wiki: string } {
  const root = mkdtempSync(path.join(os.tmpdir(), 'labbot-reindex-'));
  const papers = path.join(root, 'papers');
  const wiki = path.join(root, 'wiki');
  mkdirSync(papers);
  mkdirSync(wiki);
  for (let i = 0; i < 60; i++) {
    writeFileSync(
      path.join(papers, `paper-${i}.md`),
      `# Paper ${i}\n\n${`Result ${i}: the assay measured p53 at dose ${i} in replicate ${i % 3}. `.repeat(40)}\n`,
    );
    writeFileSync(
      path.join(wiki, `page-${i}.md`),
      `# Page ${i}\n\n${`Bench ${i} is booked on the lab calendar for slot ${i}. `.repeat(40)}\n`,
    );
  }
  return { papers, wiki };
}

describe('/labbot reindex: one progress message that updates, the summary where docs/slack.md says', () => {
  let app: Labbot;
  let fake: FakeSlack;
  let bot: RunningBot;
  let harness: SlackHarness | undefined;
  beforeAll(async () => {
    const s = sources();
    harness = await startSlackHarness({
      fileConfig: {
        sources: [
          { id: 'papers', type: 'folder', path: s.papers },
          { id: 'wiki', type: 'folder', path: s.wiki },
        ],
      },
      ingest: false,
      bot: { progressEditMs: EDIT_MS },
    });
    ({ app, fake, bot } = harness);
  });
  afterAll(async () => harness?.close());

  it('posts progress once and edits it (rate-limited); "queued" and the summary go to response_url', async () => {
    const run = await runSlash(fake, bot.url, { text: 'reindex all', channel: 'COPS', user: 'UADMIN' });
    expect(run.status).toBe(200);
    const summary = await fake.waitFor(() => fake.responses.find((r) => r.id === run.id && /finished/.test(String(r.body.text))), 120_000);
    const posts = fake.responses.filter((r) => r.id === run.id);
    expect(posts).toHaveLength(2);
    expect(String(posts[0].body.text)).toMatch(/queued for papers, wiki/);
    expect(summary.body.response_type).toBe('ephemeral');
    expect(String(summary.body.text)).toMatch(/papers: done in .* 60 indexed/);
    expect(String(summary.body.text)).toMatch(/wiki: done in .* 60 indexed/);

    // One message in the admin's DM with labbot, never a DM per step.
    const dms = fake.callsOf('chat.postMessage').filter((c) => c.body.channel === 'UADMIN');
    expect(dms).toHaveLength(1);
    const [progress] = fake.conversation.visible('DADMIN');
    expect(fake.conversation.visible('DADMIN')).toHaveLength(1);
    await fake.waitFor(() => /finished/.test(shownText(progress)));
    expect(progress.versions.length).toBeGreaterThanOrEqual(3);
    // Edits at most every EDIT_MS (the last one, the summary, is shown at once).
    const gaps = progress.versions.slice(1, -1).map((v, i) => v.at - progress.versions[i].at);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(EDIT_MS - 20);
    expect(shownText(progress.versions[1])).toMatch(/Re-sync in progress/);
    expect(shownText(progress)).toBe(shownText({ blocks: summary.body.blocks as unknown[], text: String(summary.body.text) }));
    expect(app.catalog.stats().bySource.papers?.documents).toBe(60);
    expect(app.catalog.stats().bySource.wiki?.documents).toBe(60);
    expect(fake.rejected).toEqual([]);

    if (process.env.LABBOT_TRANSCRIPTS) {
      mkdirSync(process.env.LABBOT_TRANSCRIPTS, { recursive: true });
      const t0 = progress.versions[0].at;
      const edits = progress.versions.map(
        (v, i) => `${i === 0 ? 'posted' : `edit ${i}`} at +${((v.at - t0) / 1000).toFixed(1)} s:\n${shownText(v).replace(/^/gm, '  | ')}`,
      );
      const replies = posts.map(
        (p, i) =>
          `response_url post ${i + 1} (${String(p.body.response_type)}):\n` +
          `${shownText({ blocks: p.body.blocks as unknown[], text: String(p.body.text) }).replace(/^/gm, '  | ')}`,
      );
      writeFileSync(
        path.join(process.env.LABBOT_TRANSCRIPTS, 'reindex-progress.txt'),
        `/labbot reindex all (UADMIN in #COPS)\n\n${replies.join('\n')}\n\nThe ` +
          `progress message in UADMIN's DM with labbot (chat.postMessage once, then ` +
          `chat.update):\n${edits.join('\n')}\n`,
      );
    }
  });
});
