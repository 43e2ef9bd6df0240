// Every path into the index obeys the same rules: links are never followed (start-up listing, git
// diffs, folder webhooks, full re-syncs), one bad entry never stops a source, unreadable sidecars
// fail closed, and a failing sync shows on the dashboard. Real git repos, Redis, BullMQ, Chroma.
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { enqueueSync } from '../src/queue/jobs.ts';
import { startServe, type Running } from '../src/serve.ts';
import { testEnv } from './helpers/app.ts';
import { startFakeOpenAI, type FakeOpenAI } from './helpers/fake-openai.ts';
import { makePaperPdf } from './fixtures/make.ts';
import { createGitWiki, genericChange, githubPush, wikiPage, type GitWiki } from './helpers/git-wiki.ts';
import { waitFor } from './helpers/wait.ts';

const SECRET = 'paths-secret-0123';
const TOKEN = 'paths-admin-token-0123456789';
const BROKEN_YAML = 'title: Grant strategy\naccess: pi-only\nauthors: [Ada Okafor, Min Lee\n';

describe('every path into the index obeys the same rules', () => {
  let wiki: GitWiki;
  let doomed: GitWiki;
  let outside: string;
  let folder: string;
  let fake: FakeOpenAI;
  let running: Running;
  let pdf: Uint8Array;
  let delivery = 0;

  const post = (source: string, req: { headers: Record<string, string>; body: string }) =>
    fetch(`${running.url}/hooks/wiki/${source}`, { method: 'POST', headers: req.headers, body: req.body });
  const push = (source = 'wiki') => post(source, githubPush(SECRET, { ref: 'refs/heads/main' }, `paths-${++delivery}`));
  const found = (word: string, groups = ['public', 'pi-only']) => running.app.catalog.lexicalSearch(groups, word, 5).length > 0;
  const record = (source: string, rel: string) => running.app.records!.atPath(source, rel);
  const problem = async (source: string, rel: string) => (await running.app.records!.problems(source)).find((p) => p.path === rel);
  const settle = () =>
    waitFor(
      async () => {
        const c = await running.queue!.queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
        return Object.values(c).every((n) => n === 0);
      },
      30_000,
      'queue idle',
    );

  beforeAll(async () => {
    outside = mkdtempSync(path.join(os.tmpdir(), 'labbot-outside-'));
    writeFileSync(path.join(outside, 'secret.md'), '# Secret\n\nThe outside file says OUTSIDESECRET and must never be indexed.\n');
    mkdirSync(path.join(outside, 'restricted'));
    writeFileSync(path.join(outside, 'restricted', 'plan.md'), '# Plan\n\nThe restricted plan says RESTRICTEDPLAN.\n');
    writeFileSync(path.join(outside, 'restricted', 'x.md'), '# X\n\nThe outside x says OUTSIDEX.\n');

    const pages: Record<string, string> = {};
    for (let i = 1; i <= 4; i++) pages[`page-${i}.md`] = wikiPage(i);
    wiki = createGitWiki(pages);
    symlinkSync(path.join(outside, 'secret.md'), path.join(wiki.work, 'shortcut.md'));
    symlinkSync(path.join(outside, 'restricted'), path.join(wiki.work, 'ext'));
    wiki.commitAndPush('links at start');
    doomed = createGitWiki({ 'home.md': wikiPage(9) });

    pdf = await makePaperPdf();
    folder = mkdtempSync(path.join(os.tmpdir(), 'labbot-paths-folder-'));
    writeFileSync(path.join(folder, 'ok.md'), '# OK\n\nThe ok page says OKPAGE.\n');
    mkdirSync(path.join(folder, 'sub'));
    writeFileSync(path.join(folder, 'sub', 'x.md'), '# X\n\nThe inside x says INSIDEX.\n');
    symlinkSync(path.join(outside, 'restricted'), path.join(folder, 'linkdir'));
    writeFileSync(path.join(folder, 'grant.pdf'), pdf);
    writeFileSync(path.join(folder, 'grant.yaml'), BROKEN_YAML);
    writeFileSync(path.join(folder, 'budget.txt'), 'The budget note says BUDGETNOTE.\n');
    writeFileSync(
      path.join(folder, 'budget.bib'),
      '@article{b, title={Budget}, access={pi-only}, year={2021}\n@article{c, title={unclosed',
    );
    writeFileSync(path.join(folder, 'memo.txt'), 'The memo says MEMONOTE.\n');
    writeFileSync(path.join(folder, 'memo.json'), '{"access": "pi-only",}');
    writeFileSync(path.join(outside, 'access.yaml'), 'access: pi-only\n');
    writeFileSync(path.join(folder, 'linked.txt'), 'The linked note says LINKEDNOTE.\n');
    symlinkSync(path.join(outside, 'access.yaml'), path.join(folder, 'linked.yaml'));

    fake = await startFakeOpenAI({ dimensions: 32 });
    const env = testEnv({
      env: {
        EMBEDDINGS: 'openai',
        LLM: 'none',
        OPENAI_BASE_URL: fake.baseURL,
        OPENAI_API_KEY: 'test',
        LABBOT_PORT: '0',
        LABBOT_ADMIN_TOKEN: TOKEN,
      },
      fileConfig: {
        sources: [
          { id: 'wiki', type: 'git', url: wiki.remote, branch: 'main', secret: SECRET, kind: 'wiki' },
          { id: 'docs', type: 'folder', path: folder, secret: SECRET },
          { id: 'doomed', type: 'git', url: doomed.remote, branch: 'main', secret: SECRET, kind: 'wiki' },
        ],
        queue: { attempts: 2, backoffMs: 200 },
        access: { default: 'public', channels: { CPI: ['pi-only'] } },
      },
    });
    running = await startServe(loadConfig(env), createLogger('silent'));
  }, 120_000);

  afterAll(async () => {
    await running?.close();
    await fake?.close();
  });

  it('start-up listing: links are skipped and recorded as problems, nothing behind them is indexed', async () => {
    expect(running.app.catalog.stats().bySource.wiki.documents).toBe(4);
    expect(found('OUTSIDESECRET')).toBe(false);
    expect(found('RESTRICTEDPLAN')).toBe(false);
    expect((await problem('wiki', 'shortcut.md'))?.reason).toMatch(/symbolic link/);
    expect((await problem('wiki', 'ext'))?.reason).toMatch(/symbolic link/);
    expect((await problem('docs', 'linkdir'))?.reason).toMatch(/symbolic link/);
  });

  it('start-up listing: a document whose .yaml, .bib or .json sidecar cannot be parsed is not indexed, and the problem is recorded', async () => {
    expect(await record('docs', 'grant.pdf')).toBeUndefined();
    expect(await record('docs', 'budget.txt')).toBeUndefined();
    expect(await record('docs', 'memo.txt')).toBeUndefined();
    expect(found('Hypoxia Remodels Mitochondrial')).toBe(false);
    expect(found('BUDGETNOTE')).toBe(false);
    expect(found('MEMONOTE')).toBe(false);
    expect((await problem('docs', 'grant.pdf'))?.reason).toMatch(/grant\.yaml.*not indexed/);
    expect((await problem('docs', 'budget.txt'))?.reason).toMatch(/budget\.bib.*not indexed/);
    expect((await problem('docs', 'memo.txt'))?.reason).toMatch(/memo\.json.*not indexed/);
    expect(found('OKPAGE')).toBe(true);
  });

  it('start-up listing: a document whose sidecar is a link is not indexed either (the link may carry its access group)', async () => {
    expect(await record('docs', 'linked.txt')).toBeUndefined();
    expect(found('LINKEDNOTE')).toBe(false);
    expect((await problem('docs', 'linked.txt'))?.reason).toMatch(/linked\.yaml.*symbolic link/);
  });

  it('a git commit adding a file link and a folder link: nothing outside is read, the sync completes, advances, and later pages arrive', async () => {
    symlinkSync(path.join(outside, 'restricted'), path.join(wiki.work, 'notes.md'));
    symlinkSync(path.join(outside, 'secret.md'), path.join(wiki.work, 'bad.md'));
    wiki.write('later.md', '# Later\n\nThe later page says LATERPAGE.\n');
    const head = wiki.commitAndPush('add links and a page');
    expect((await push()).status).toBe(202);
    await waitFor(
      async () => (await running.app.records!.sourceState('wiki')).commit === head && found('LATERPAGE'),
      20_000,
      'later page indexed',
    );
    await settle();
    expect(found('RESTRICTEDPLAN')).toBe(false);
    expect(found('OUTSIDESECRET')).toBe(false);
    expect((await running.app.records!.bySource('wiki')).filter((d) => d.path.startsWith('notes.md') || d.path === 'bad.md')).toEqual([]);
    expect((await problem('wiki', 'notes.md'))?.reason).toMatch(/symbolic link/);
    expect((await problem('wiki', 'bad.md'))?.reason).toMatch(/symbolic link/);

    wiki.write('later-2.md', '# Later two\n\nThe second later page says LATERTWO.\n');
    const head2 = wiki.commitAndPush('another page');
    expect((await push()).status).toBe(202);
    await waitFor(
      async () => (await running.app.records!.sourceState('wiki')).commit === head2 && found('LATERTWO'),
      20_000,
      'second later page indexed',
    );
  });

  it('a git page replaced by a link leaves the index and is recorded', async () => {
    expect(await record('wiki', 'page-2.md')).toBeDefined();
    wiki.remove('page-2.md');
    symlinkSync(path.join(outside, 'secret.md'), path.join(wiki.work, 'page-2.md'));
    wiki.commitAndPush('page 2 becomes a link');
    expect((await push()).status).toBe(202);
    await waitFor(async () => !(await record('wiki', 'page-2.md')), 20_000, 'page 2 removed');
    expect(found('PAGE2BOOK')).toBe(false);
    expect(found('OUTSIDESECRET')).toBe(false);
    expect((await problem('wiki', 'page-2.md'))?.reason).toMatch(/symbolic link/);
  });

  it('a folder webhook naming a path through a linked folder reads nothing outside; the other named file is indexed', async () => {
    writeFileSync(path.join(folder, 'ok.md'), '# OK\n\nThe ok page now says OKTWO.\n');
    const res = await post('docs', genericChange(SECRET, { changed: ['linkdir/plan.md', 'ok.md'] }, 'paths-folder-1'));
    expect(res.status).toBe(202);
    await waitFor(async () => found('OKTWO'), 20_000, 'ok.md re-indexed');
    await settle();
    expect(found('RESTRICTEDPLAN')).toBe(false);
    expect(await record('docs', 'linkdir/plan.md')).toBeUndefined();
    expect((await problem('docs', 'linkdir/plan.md'))?.reason).toMatch(/"linkdir" is a symbolic link/);
  });

  it('a full re-sync removes what sits behind a folder that became a link, and never reads through it', async () => {
    expect(found('INSIDEX')).toBe(true);
    rmSync(path.join(folder, 'sub'), { recursive: true });
    symlinkSync(path.join(outside, 'restricted'), path.join(folder, 'sub'));
    await enqueueSync(running.queue!.queue, { source: 'docs', reason: 'test', full: true });
    await waitFor(async () => !(await record('docs', 'sub/x.md')), 20_000, 'sub/x.md removed');
    await settle();
    expect(found('INSIDEX')).toBe(false);
    expect(found('OUTSIDEX')).toBe(false);
    expect(found('RESTRICTEDPLAN')).toBe(false);
    expect((await problem('docs', 'sub'))?.reason).toMatch(/symbolic link/);
  });

  it('an in-process re-ingest (labbot ingest, start-up, rebuild) drops a page that became a link and reports the link', async () => {
    writeFileSync(path.join(folder, 'keep.md'), '# Keep\n\nThe keep page says KEEPPAGE.\n');
    await running.app.ingest({ sourceId: 'docs', root: folder, paths: [path.join(folder, 'keep.md')] });
    expect(found('KEEPPAGE')).toBe(true);
    rmSync(path.join(folder, 'keep.md'));
    symlinkSync(path.join(outside, 'secret.md'), path.join(folder, 'keep.md'));
    const summary = await running.app.ingest({ sourceId: 'docs', root: folder });
    expect(summary.outcomes.find((o) => o.path === path.join(folder, 'keep.md'))).toMatchObject({
      status: 'skipped',
      reason: expect.stringMatching(/symbolic link/),
    });
    expect(found('KEEPPAGE')).toBe(false);
    expect(found('OUTSIDESECRET')).toBe(false);
    // Named directly, the link is refused too.
    const named = await running.app.ingest({ sourceId: 'docs', root: folder, paths: [path.join(folder, 'keep.md')] });
    expect(named.skipped.map((o) => o.reason)).toEqual([expect.stringMatching(/symbolic link/)]);
    expect(found('OUTSIDESECRET')).toBe(false);
  });

  it('through the queue: an unreadable sidecar keeps its document out; once fixed it is indexed in its group only', async () => {
    writeFileSync(path.join(folder, 'late.pdf'), pdf);
    writeFileSync(path.join(folder, 'late.yaml'), BROKEN_YAML);
    expect((await post('docs', genericChange(SECRET, { changed: ['late.pdf'] }))).status).toBe(202);
    await waitFor(async () => problem('docs', 'late.pdf'), 20_000, 'late.pdf problem recorded');
    await settle();
    expect(await record('docs', 'late.pdf')).toBeUndefined();
    expect((await problem('docs', 'late.pdf'))?.reason).toMatch(/late\.yaml/);

    writeFileSync(path.join(folder, 'late-link.txt'), 'The late linked note says LATELINKED.\n');
    symlinkSync(path.join(outside, 'access.yaml'), path.join(folder, 'late-link.yaml'));
    expect((await post('docs', genericChange(SECRET, { changed: ['late-link.txt'] }))).status).toBe(202);
    await waitFor(async () => problem('docs', 'late-link.txt'), 20_000, 'late-link.txt problem recorded');
    await settle();
    expect(await record('docs', 'late-link.txt')).toBeUndefined();
    expect(found('LATELINKED')).toBe(false);
    expect((await problem('docs', 'late-link.txt'))?.reason).toMatch(/late-link\.yaml.*symbolic link/);

    writeFileSync(path.join(folder, 'late.yaml'), 'title: Grant strategy\naccess: pi-only\n');
    expect((await post('docs', genericChange(SECRET, { changed: ['late.yaml'] }))).status).toBe(202);
    const rec = await waitFor(async () => record('docs', 'late.pdf'), 20_000, 'late.pdf indexed');
    expect(rec.access).toBe('pi-only');
    expect(found('Hypoxia Remodels Mitochondrial', ['public'])).toBe(false);
    expect(found('Hypoxia Remodels Mitochondrial', ['pi-only'])).toBe(true);
  });

  it('a sync that fails shows on the dashboard', async () => {
    renameSync(doomed.remote, `${doomed.remote}.gone`);
    expect((await push('doomed')).status).toBe(202);
    const state = await waitFor(
      async () => {
        const s = await running.app.records!.sourceState('doomed');
        return s.lastError ? s : undefined;
      },
      20_000,
      'sync failure recorded',
    );
    expect(state.lastError).toMatch(/git fetch failed/);
    const page = await fetch(`${running.url}/admin`, { headers: { authorization: `Bearer ${TOKEN}`, accept: 'text/html' } });
    expect(page.status).toBe(200);
    const body = await page.text();
    expect(body).toMatch(/Last sync failed: [^<]*git fetch failed/);
  });
});
