// Item 9 of issue 24: a captured, signed webhook body can be replayed under a new delivery id
// (the id header is not signed), and it is accepted and queued. That stays harmless because a sync
// never trusts what a delivery says: each named path is checked against the file as it is now, and
// a git source diffs commits whatever the payload says. Real Redis, BullMQ, Chroma and git.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/log.ts';
import { startServe, type Running } from '../../src/serve.ts';
import { testEnv } from '../helpers/app.ts';
import { createGitWiki, genericChange, githubPush, type GitWiki } from '../helpers/git-wiki.ts';
import { waitFor } from '../helpers/wait.ts';

const SECRET = 'replay-secret-0123';

describe('a replayed webhook delivery', () => {
  let running: Running;
  let folder: string;
  let wiki: GitWiki;
  const post = (source: string, req: { headers: Record<string, string>; body: string }) =>
    fetch(`${running.url}/hooks/wiki/${source}`, { method: 'POST', headers: req.headers, body: req.body });
  const found = (word: string) => running.app.catalog.lexicalSearch(['public'], word, 3).length > 0;
  /** The job a delivery queued, and everything it queued in turn, has run. */
  const ranToEnd = async (res: Response) => {
    expect(res.status).toBe(202);
    const { queued } = (await res.json()) as { queued: string };
    const queue = running.queue!.queue;
    await waitFor(
      async () => {
        const job = await queue.getJob(queued);
        const state = job ? await job.getState() : 'gone';
        const c = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
        return (state === 'completed' || state === 'gone') && Object.values(c).every((n) => n === 0);
      },
      30_000,
      `job ${queued} and its document jobs done`,
    );
  };

  beforeAll(async () => {
    folder = mkdtempSync(path.join(os.tmpdir(), 'labbot-replay-'));
    writeFileSync(path.join(folder, 'keep.md'), '# Keep\n\nThe spill kit code is KEEPSPILL.\n');
    wiki = createGitWiki({ 'rota.md': '# Rota\n\nThe rota code is ROTAWIKI.\n' });
    const env = testEnv({
      env: { LABBOT_PORT: '0' },
      fileConfig: {
        sources: [
          { id: 'docs', type: 'folder', path: folder, secret: SECRET },
          { id: 'wiki', type: 'git', url: wiki.remote, branch: 'main', secret: SECRET },
        ],
      },
    });
    running = await startServe(loadConfig(env), createLogger('silent'));
    expect(found('KEEPSPILL') && found('ROTAWIKI')).toBe(true);
  }, 120_000);

  afterAll(async () => {
    await running?.close();
  });

  it('a replayed deletion of a file that still exists removes nothing', async () => {
    // The page is deleted and the deletion delivered; the body is captured on the way.
    rmSync(path.join(folder, 'keep.md'));
    const deletion = genericChange(SECRET, { deleted: ['keep.md'] }, 'delete-1');
    await ranToEnd(await post('docs', deletion));
    expect(found('KEEPSPILL')).toBe(false);
    // The page comes back.
    writeFileSync(path.join(folder, 'keep.md'), '# Keep\n\nThe spill kit code is KEEPSPILL.\n');
    await ranToEnd(await post('docs', genericChange(SECRET, { changed: ['keep.md'] }, 'restore-1')));
    expect(found('KEEPSPILL')).toBe(true);

    // The captured deletion, replayed under a delivery id never seen: accepted and queued...
    const replay = { ...deletion, headers: { ...deletion.headers, 'x-labbot-delivery': 'delete-1-replayed' } };
    await ranToEnd(await post('docs', replay));
    // ...and the file, still there, stays indexed with its record.
    expect(found('KEEPSPILL')).toBe(true);
    expect(await running.app.records!.atPath('docs', 'keep.md')).toBeDefined();
  }, 90_000);

  it('a replayed push to a git source removes nothing that is still in the branch', async () => {
    wiki.remove('rota.md');
    wiki.commitAndPush('rota removed');
    const push = githubPush(SECRET, { ref: 'refs/heads/main', commits: [{ removed: ['rota.md'] }] }, 'push-1');
    await ranToEnd(await post('wiki', push));
    expect(found('ROTAWIKI')).toBe(false);
    wiki.write('rota.md', '# Rota\n\nThe rota code is ROTAWIKI.\n');
    wiki.commitAndPush('rota restored');
    await ranToEnd(await post('wiki', githubPush(SECRET, { ref: 'refs/heads/main' }, 'push-2')));
    expect(found('ROTAWIKI')).toBe(true);

    await ranToEnd(await post('wiki', { ...push, headers: { ...push.headers, 'x-github-delivery': 'push-1-replayed' } }));
    expect(found('ROTAWIKI')).toBe(true);
    expect(await running.app.records!.atPath('wiki', 'rota.md')).toBeDefined();
  }, 90_000);
});
