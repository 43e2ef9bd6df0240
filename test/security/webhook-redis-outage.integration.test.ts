// Item 6 of issue 24: a webhook that arrives while Redis is down is answered 503 (with
// Retry-After) within the sender's timeout instead of hanging, and the change it announced still
// reaches the index once Redis is back, without the sender retrying (GitHub never does).
// A redis-server of the test's own is stopped and started; real Chroma, real BullMQ.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startServe, type Running } from '../../src/serve.ts';
import { freePort } from '../../src/store/chroma-server.ts';
import { testEnv } from '../helpers/app.ts';
import { createGitWiki, genericChange, githubPush, type GitWiki } from '../helpers/git-wiki.ts';
import { captureLog, type CapturedLog } from '../helpers/log-capture.ts';
import { ownRedis, type OwnRedis } from '../helpers/own-redis.ts';
import { waitFor } from '../helpers/wait.ts';

const SECRET = 'outage-secret-0123';

describe('a webhook during a Redis outage', () => {
  let redis: OwnRedis;
  let running: Running;
  let folder: string;
  let wiki: GitWiki;
  let logs: CapturedLog;
  const post = (source: string, req: { headers: Record<string, string>; body: string }) =>
    fetch(`${running.url}/hooks/wiki/${source}`, { method: 'POST', headers: req.headers, body: req.body });
  const found = (word: string) => running.app.catalog.lexicalSearch(['public'], word, 3).length > 0;

  beforeAll(async () => {
    redis = await ownRedis();
    await redis.start();
    folder = mkdtempSync(path.join(os.tmpdir(), 'labbot-outage-'));
    writeFileSync(path.join(folder, 'start.md'), '# Start\n\nThe folder starts with STARTFOLDER.\n');
    wiki = createGitWiki({ 'home.md': '# Home\n\nThe wiki starts with STARTWIKI.\n' });
    logs = captureLog('info');
    const env = testEnv({
      env: { REDIS_URL: redis.url, LABBOT_PORT: '0', WIKI_HOOK_SECRET: SECRET },
      fileConfig: {
        sources: [
          { id: 'docs', type: 'folder', path: folder, secret: SECRET },
          { id: 'wiki', type: 'git', url: wiki.remote, branch: 'main', secret: SECRET },
        ],
        queue: { backoffMs: 200, webhookTimeoutMs: 1000 },
      },
    });
    running = await startServe(loadConfig(env), logs.log);
    expect(found('STARTFOLDER') && found('STARTWIKI')).toBe(true);
  }, 120_000);

  afterAll(async () => {
    // A test that failed mid-outage must not leave serve's close waiting for Redis.
    if (redis && !redis.isUp()) await redis.start();
    await running?.close();
    redis?.stop();
  });

  it('is answered 503 with Retry-After while Redis is down, and its change is indexed once Redis is back without the sender retrying', async () => {
    writeFileSync(path.join(folder, 'later.md'), '# Later\n\nWritten during the outage: OUTAGEFOLDER.\n');
    wiki.write('later.md', '# Later\n\nPushed during the outage: OUTAGEWIKI.\n');
    wiki.commitAndPush('a page pushed while Redis is down');
    redis.stop();

    // No delivery header (nothing to deduplicate on) and a GitHub push with one: both roads.
    const generic = await post('docs', genericChange(SECRET, { changed: ['later.md'] }));
    const push = await post('wiki', githubPush(SECRET, { ref: 'refs/heads/main' }, 'outage-delivery-1'));
    for (const res of [generic, push]) {
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(((await res.json()) as { error: string }).error).toMatch(/queue/i);
    }
    // Not lost silently: each refused delivery is logged as an error naming its source.
    const refused = logs.lines.filter((l) => l.level === 50 && String(l.msg).includes('could not be queued'));
    expect(refused.map((l) => l.source).sort()).toEqual(['docs', 'wiki']);

    await redis.start();
    await waitFor(async () => found('OUTAGEFOLDER') && found('OUTAGEWIKI'), 60_000, 'both changes indexed after Redis came back');
    const caughtUp = logs.lines.filter((l) => String(l.msg).includes('queued a catch-up sync'));
    expect(caughtUp.map((l) => l.source).sort()).toEqual(['docs', 'wiki']);
  }, 120_000);

  it('is answered 503 when Redis is connected but does not answer in time (queue.webhookTimeoutMs), and the change still arrives', async () => {
    writeFileSync(path.join(folder, 'frozen.md'), '# Frozen\n\nWritten while Redis hung: FROZENFOLDER.\n');
    redis.pause(5000);
    expect(running.redis!.status).toBe('ready');
    const res = await post('docs', genericChange(SECRET, { changed: ['frozen.md'] }, 'frozen-delivery-1'));
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(((await res.json()) as { error: string }).error).toMatch(/did not answer in time/);
    await waitFor(async () => found('FROZENFOLDER'), 60_000, 'the change indexed after Redis answered again');
  }, 120_000);

  it('is answered 503, not 404, when Redis was unreachable when serve started', async () => {
    const nowhere = await freePort();
    const alone = await startServe(
      loadConfig(
        testEnv({
          env: { REDIS_URL: `redis://127.0.0.1:${nowhere}`, LABBOT_PORT: '0' },
          fileConfig: { sources: [{ id: 'docs', type: 'folder', path: folder, secret: SECRET }] },
        }),
      ),
      captureLog('silent').log,
    );
    try {
      const res = await fetch(`${alone.url}/hooks/wiki/docs`, { method: 'POST', ...genericChange(SECRET, { changed: ['start.md'] }) });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      // The signature is still checked first: an unsigned request learns nothing about the queue.
      const unsigned = await fetch(`${alone.url}/hooks/wiki/docs`, {
        method: 'POST',
        body: '{"changed":[]}',
        headers: { 'content-type': 'application/json' },
      });
      expect(unsigned.status).toBe(401);
    } finally {
      await alone.close();
    }
  }, 60_000);
});
