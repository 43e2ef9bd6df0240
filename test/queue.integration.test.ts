// The queue worker against a real git wiki, real Redis, real Chroma: initial sync, edits,
// deletions and renames arriving by signed webhooks, and what must be refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { startServe, type Running } from '../src/serve.ts';
import { startFakeOpenAI, type FakeOpenAI } from './helpers/fake-openai.ts';
import { createGitWiki, genericChange, githubPush, wikiPage, type GitWiki } from './helpers/git-wiki.ts';
import { testEnv } from './helpers/app.ts';
import { waitFor } from './helpers/wait.ts';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const SECRET = 'wiki-secret-0123';

describe('queue worker with a git wiki', () => {
  let wiki: GitWiki;
  let fake: FakeOpenAI;
  let running: Running;
  let folder: string;
  let delivery = 0;

  const post = async (source: string, req: { headers: Record<string, string>; body: string }) =>
    fetch(`${running.url}/hooks/wiki/${source}`, { method: 'POST', headers: req.headers, body: req.body });
  const push = () => post('wiki', githubPush(SECRET, { ref: 'refs/heads/main' }, `d-${++delivery}`));
  const ask = async (question: string) => running.app.ask(question, {});
  const record = (rel: string) => running.app.records!.atPath('wiki', rel);
  /** Earlier tests' syncs may still be enqueueing document jobs: let them finish first. */
  const settle = () =>
    waitFor(
      async () => {
        const c = await running.queue!.queue.getJobCounts('waiting', 'active', 'delayed');
        return c.waiting + c.active + c.delayed === 0;
      },
      20_000,
      'queue idle',
    );
  const jobCount = async () => {
    const c = await running.queue!.queue.getJobCounts('waiting', 'active', 'completed', 'failed', 'delayed');
    return Object.values(c).reduce((a, b) => a + b, 0);
  };

  beforeAll(async () => {
    const pages: Record<string, string> = {};
    for (let i = 1; i <= 20; i++) pages[`pages/page-${i}.md`] = wikiPage(i);
    pages['pages/stable-id.md'] =
      `---\nid: wiki-stable\ntitle: Stable page\n---\n# Stable page\n\nThe spill kit is under the sink; code STABLEKIT.\n`;
    pages['pages/broken.md'] = `---\ntitle: [unclosed\n---\n# Broken\n\nThis page has broken front matter.\n`;
    wiki = createGitWiki(pages);
    folder = mkdtempSync(path.join(os.tmpdir(), 'labbot-folder-'));
    writeFileSync(path.join(folder, 'note.md'), '# Note\n\nThe folder note says FOLDERNOTE.\n');
    fake = await startFakeOpenAI({ dimensions: 64 });
    const env = testEnv({
      env: { EMBEDDINGS: 'openai', LLM: 'none', OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'test', LABBOT_PORT: '0' },
      fileConfig: {
        sources: [
          { id: 'wiki', type: 'git', url: wiki.remote, branch: 'main', secret: SECRET, kind: 'wiki' },
          { id: 'docs', type: 'folder', path: folder, secret: SECRET },
          { id: 'nosecret', type: 'folder', path: folder },
        ],
        access: { default: 'public', channels: {} },
      },
    });
    running = await startServe(loadConfig(env), createLogger('silent'));
  }, 120_000);

  afterAll(async () => {
    await running?.close();
    await fake?.close();
  });

  it('indexes every page at start, and reports the broken one with its reason', async () => {
    const stats = running.app.catalog.stats();
    expect(stats.bySource.wiki.documents).toBe(21);
    expect(await running.app.records!.count()).toBeGreaterThanOrEqual(21);
    const problems = await running.app.records!.problems('wiki');
    expect(problems.map((p) => p.path)).toContain('pages/broken.md');
    expect(problems.find((p) => p.path === 'pages/broken.md')!.reason).toMatch(/front matter|YAML/i);
    const state = await running.app.records!.sourceState('wiki');
    expect(state.commit).toMatch(/^[0-9a-f]{40}$/);
  });

  it('an edited page pushed with a signed webhook: only its changed chunks are embedded, and ask returns the new text', async () => {
    const before = await record('pages/page-3.md');
    const embeddedBefore = fake.embedded.length;
    wiki.write('pages/page-3.md', wikiPage(3).replace('checklist code PAGE3CLEAN', 'checklist code NEWCLEAN3 and wear nitrile gloves'));
    wiki.commitAndPush('edit page 3');
    const res = await push();
    expect(res.status).toBe(202);
    const after = await waitFor(
      async () => {
        const r = await record('pages/page-3.md');
        return r && r.contentHash !== before!.contentHash ? r : undefined;
      },
      15_000,
      'page 3 re-indexed',
    );
    const embedded = fake.embedded.slice(embeddedBefore);
    const changedChunks = after.chunkHashes.filter((h) => !before!.chunkHashes.includes(h)).length;
    expect(changedChunks).toBeGreaterThan(0);
    // Some chunks of the page are unchanged, so re-embedding the whole page would show here.
    expect(changedChunks).toBeLessThan(after.chunkIds.length);
    expect(embedded.length).toBe(changedChunks);
    expect(embedded.every((t) => t.includes('NEWCLEAN3'))).toBe(true);
    const answer = await ask('What is the checklist code NEWCLEAN3?');
    expect(answer.passages.some((p) => p.text.includes('NEWCLEAN3'))).toBe(true);
    expect(answer.citations.some((c) => c.doc_id === 'wiki:pages/page-3.md')).toBe(true);
  });

  it('a deleted page leaves Chroma, the lexical index and the records; no answer cites it', async () => {
    const rec = await record('pages/page-7.md');
    expect(rec).toBeDefined();
    wiki.remove('pages/page-7.md');
    wiki.commitAndPush('delete page 7');
    expect((await push()).status).toBe(202);
    await waitFor(async () => !(await record('pages/page-7.md')), 15_000, 'page 7 removed');
    expect(running.app.catalog.doc(rec!.id)).toBeUndefined();
    const vectors = await running.app.store.embeddingsOf('public', rec!.chunkIds);
    expect(vectors.size).toBe(0);
    const answer = await ask('What is the slot code PAGE7BOOK?');
    expect(answer.citations.some((c) => c.doc_id === rec!.id)).toBe(false);
    expect(answer.passages.some((p) => p.text.includes('PAGE7BOOK'))).toBe(false);
  });

  it('a renamed page keeps its id when front matter sets one; otherwise the old path goes and the new one comes', async () => {
    wiki.move('pages/stable-id.md', 'safety/spill-kit.md');
    wiki.move('pages/page-5.md', 'archive/page-5.md');
    wiki.commitAndPush('rename pages');
    expect((await push()).status).toBe(202);
    await waitFor(
      async () => (await running.app.records!.byId('wiki-stable'))?.path === 'safety/spill-kit.md',
      15_000,
      'stable page moved',
    );
    await waitFor(async () => !(await record('pages/page-5.md')) && (await record('archive/page-5.md')), 15_000, 'page 5 moved');
    expect(running.app.catalog.doc('wiki:pages/page-5.md')).toBeUndefined();
    expect(running.app.catalog.doc('wiki:archive/page-5.md')).toBeDefined();
    expect(running.app.catalog.doc('wiki-stable')?.path).toBe('safety/spill-kit.md');
    const answer = await ask('Where is the spill kit? STABLEKIT');
    expect(answer.citations.filter((c) => c.doc_id === 'wiki-stable')).toHaveLength(1);
  });

  it('bad or missing signatures get 401 and enqueue nothing', async () => {
    await settle();
    const before = await jobCount();
    const good = githubPush(SECRET, { ref: 'refs/heads/main' }, 'bad-1');
    const forged = { ...good, headers: { ...good.headers, 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` } };
    expect((await post('wiki', forged)).status).toBe(401);
    const unsigned = { ...good, headers: { 'content-type': 'application/json', 'x-github-event': 'push' } };
    expect((await post('wiki', unsigned)).status).toBe(401);
    const gitlab = {
      body: '{}',
      headers: { 'content-type': 'application/json', 'x-gitlab-event': 'Push Hook', 'x-gitlab-token': 'wrong-token-123' },
    };
    expect((await post('wiki', gitlab)).status).toBe(401);
    const generic = genericChange('not-the-secret', { changed: ['note.md'] });
    expect((await post('docs', generic)).status).toBe(401);
    expect((await post('nosecret', genericChange(SECRET, { changed: ['note.md'] }))).status).toBe(403);
    expect((await post('unknown', genericChange(SECRET, { changed: ['note.md'] }))).status).toBe(404);
    expect(await jobCount()).toBe(before);
  });

  it('the same delivery twice gives one sync job; GitLab tokens are accepted', async () => {
    const req = githubPush(SECRET, { ref: 'refs/heads/main' }, 'replayed-delivery');
    const first = await post('wiki', req);
    const second = await post('wiki', req);
    expect(first.status).toBe(202);
    expect(second.status).toBe(200);
    expect(((await second.json()) as { duplicate: boolean }).duplicate).toBe(true);
    const gl = await post('wiki', {
      body: '{}',
      headers: {
        'content-type': 'application/json',
        'x-gitlab-event': 'Wiki Page Hook',
        'x-gitlab-token': SECRET,
        'x-gitlab-event-uuid': 'gl-1',
      },
    });
    expect(gl.status).toBe(202);
  });

  it('paths with .. or absolute paths are refused; oversized bodies get 413', async () => {
    await settle();
    const before = await jobCount();
    for (const p of ['../etc/passwd', '/etc/passwd', 'a/../../b.md', 'a\\..\\b.md']) {
      const res = await post('docs', genericChange(SECRET, { changed: [p] }));
      expect(res.status, p).toBe(400);
    }
    const huge = genericChange(SECRET, { changed: ['x'.repeat(2 * 1024 * 1024)] });
    expect((await post('docs', huge)).status).toBe(413);
    expect(await jobCount()).toBe(before);
  });

  it('a generic webhook on a folder source indexes the named file', async () => {
    writeFileSync(path.join(folder, 'note.md'), '# Note\n\nThe folder note now says FOLDERNEW.\n');
    const res = await post('docs', genericChange(SECRET, { changed: ['note.md'] }, 'folder-1'));
    expect(res.status).toBe(202);
    await waitFor(async () => running.app.catalog.lexicalSearch(['public'], 'FOLDERNEW', 3).length > 0, 15_000, 'folder note re-indexed');
  });
});
