// Item 11 of issue 24 (git and serve side): a private wiki is reached with a token from the
// environment (tokenEnv) or an SSH deploy key (sshKeyPath), and its credentials never reach the
// URL git is given, the clone's .git/config, any process's arguments (what `ps` shows), a log line,
// an error message, the dashboard or `labbot status --json`. A token left in the config file's URL
// keeps working, is warned about, and leaves an old clone's .git/config at the next sync.
// Real git over HTTP (git http-backend behind Basic auth) and over an ssh stand-in that runs
// git-upload-pack; a wrapper first on PATH records the arguments of every git labbot runs.
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/log.ts';
import { startServe, type Running } from '../../src/serve.ts';
import { testEnv } from '../helpers/app.ts';
import { serveGitHttp, type GitHttpRemote } from '../helpers/git-http.ts';
import { createGitWiki, githubPush, type GitWiki } from '../helpers/git-wiki.ts';
import { waitFor } from '../helpers/wait.ts';

const TOKEN = 'ghp_privateWikiToken0123456789';
const HOOK = 'hook-secret-env-0123456789';
// The dashboard always needs a token; a configured one lets the test read what it shows.
const ADMIN = 'admin-token-for-the-secrets-test-0123456789';
const BIN = path.resolve('bin/labbot.js');

// Every git labbot starts goes through this wrapper (PATH is looked up in the child's environment).
const bin = mkdtempSync(path.join(os.tmpdir(), 'labbot-secrets-bin-'));
const argvLog = path.join(bin, 'git-argv.log');
const sshLog = path.join(bin, 'ssh-argv.log');
const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
writeFileSync(path.join(bin, 'git'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${argvLog}'\nexec '${realGit}' "$@"\n`);
chmodSync(path.join(bin, 'git'), 0o755);
writeFileSync(argvLog, '');
writeFileSync(sshLog, '');

function captureText(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  return {
    stream: new Writable({
      write(chunk: Buffer, _enc, done) {
        chunks.push(chunk.toString());
        done();
      },
    }),
    text: () => chunks.join(''),
  };
}

/** Everything a person or another program could read off a running labbot, as one text. */
async function everythingShown(running: Running, env: Record<string, string>): Promise<string> {
  const pages = await Promise.all(
    ['/admin', '/admin/api/status', '/admin/queues/api/queues?activeQueue=labbot-index&status=failed&page=1'].map(async (p) =>
      (
        await fetch(`${running.url}${p}`, {
          headers: { accept: p === '/admin' ? 'text/html' : 'application/json', authorization: `Bearer ${ADMIN}` },
        })
      ).text(),
    ),
  );
  // The dashboard really was shown (served to this machine without a token), with the source on it.
  expect(pages[0]).toContain('<html');
  expect(pages[0]).toMatch(/remote\.git|wiki\.example/);
  expect(pages[1]).toMatch(/"bySource"/);
  const status = spawnSync(process.execPath, [BIN, 'status', '--json'], {
    env: { ...process.env, ...env, LOG_LEVEL: 'info' },
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect(status.status).toBe(0);
  return [...pages, status.stdout, status.stderr, readFileSync(argvLog, 'utf8')].join('\n');
}

const forms = (user: string, token: string) => [token, encodeURIComponent(token), Buffer.from(`${user}:${token}`).toString('base64')];

describe('git credentials stay out of URLs, clones, arguments, logs and the dashboard', () => {
  let wiki: GitWiki;
  let remote: GitHttpRemote;
  const opened: Running[] = [];
  const savedPath = process.env.PATH;

  beforeAll(async () => {
    process.env.PATH = `${bin}${path.delimiter}${savedPath}`;
    wiki = createGitWiki({ 'home.md': '# Home\n\nThe private wiki says PRIVATEHOME.\n' });
    remote = await serveGitHttp(wiki.remote, 'x-access-token', TOKEN);
  });

  afterAll(async () => {
    for (const r of opened) await r.close();
    await remote?.close();
    process.env.PATH = savedPath;
  });

  it('a private wiki is cloned and fetched with the token tokenEnv names, and the token is nowhere else', async () => {
    const out = captureText();
    const env = testEnv({
      env: { LABBOT_PORT: '0', LOG_LEVEL: 'info', WIKI_TOKEN: TOKEN, WIKI_HOOK_SECRET: HOOK, LABBOT_ADMIN_TOKEN: ADMIN },
      fileConfig: {
        sources: [{ id: 'wiki', type: 'git', url: remote.url, branch: 'main', tokenEnv: 'WIKI_TOKEN', secretEnv: 'WIKI_HOOK_SECRET' }],
      },
    });
    const config = loadConfig(env);
    const running = await startServe(config, createLogger('info', 'labbot', out.stream, config.secrets));
    opened.push(running);
    expect(running.app.catalog.lexicalSearch(['public'], 'PRIVATEHOME', 3).length).toBeGreaterThan(0);

    // An edit, announced by a webhook signed with the secret from the environment, is fetched.
    wiki.write('home.md', '# Home\n\nThe private wiki now says PRIVATEEDIT.\n');
    wiki.commitAndPush('edit');
    const push = githubPush(HOOK, { ref: 'refs/heads/main' }, 'private-1');
    expect((await fetch(`${running.url}/hooks/wiki/wiki`, { method: 'POST', headers: push.headers, body: push.body })).status).toBe(202);
    await waitFor(async () => running.app.catalog.lexicalSearch(['public'], 'PRIVATEEDIT', 3).length > 0, 30_000, 'the edit fetched');

    // The token went to the server as a header only, never in a URL.
    expect(remote.requests.length).toBeGreaterThan(0);
    expect(remote.requests.every((r) => r.allowed && !r.url.includes(TOKEN))).toBe(true);
    const gitConfig = readFileSync(path.join(config.sources[0].path, '.git', 'config'), 'utf8');
    expect(gitConfig).toContain(remote.url);
    const shown = [gitConfig, out.text(), await everythingShown(running, env)].join('\n');
    for (const f of [...forms('x-access-token', TOKEN), HOOK]) expect(shown).not.toContain(f);
    expect(readFileSync(argvLog, 'utf8')).toMatch(/clone .*127\.0\.0\.1/);
  }, 120_000);

  it("a token left in the config file's git URL still works, is warned about at start-up, and leaves an old clone's .git/config", async () => {
    const legacyUrl = remote.url.replace('http://', `http://x-access-token:${TOKEN}@`);
    const out = captureText();
    const env = testEnv({
      env: { LABBOT_PORT: '0', LOG_LEVEL: 'info', LABBOT_ADMIN_TOKEN: ADMIN },
      fileConfig: { sources: [{ id: 'old', type: 'git', url: legacyUrl, branch: 'main', secret: HOOK }] },
    });
    // The clone an earlier labbot made: the token written into its origin URL.
    const clone = path.join(env.LABBOT_DATA_DIR, 'git', 'old');
    mkdirSync(path.dirname(clone), { recursive: true });
    // Not execFileSync: the remote is served by this very process.
    await promisify(execFile)(realGit, ['clone', '--quiet', '--branch', 'main', legacyUrl, clone]);
    expect(readFileSync(path.join(clone, '.git', 'config'), 'utf8')).toContain(TOKEN);
    writeFileSync(argvLog, '');

    const config = loadConfig(env);
    const running = await startServe(config, createLogger('info', 'labbot', out.stream, config.secrets));
    opened.push(running);
    await waitFor(async () => (await running.app.records!.atPath('old', 'home.md')) !== undefined, 30_000, 'the old clone indexed');
    wiki.write('second.md', '# Second\n\nA second page, SECONDPAGE.\n');
    wiki.commitAndPush('second page');
    const push = githubPush(HOOK, { ref: 'refs/heads/main' }, 'legacy-1');
    expect((await fetch(`${running.url}/hooks/wiki/old`, { method: 'POST', headers: push.headers, body: push.body })).status).toBe(202);
    await waitFor(
      async () => running.app.catalog.lexicalSearch(['public'], 'SECONDPAGE', 3).length > 0,
      30_000,
      'the push fetched with the token from the URL',
    );

    const warnings = out
      .text()
      .split('\n')
      .filter((l) => l.includes('"level":40'));
    expect(warnings.some((l) => l.includes('source \\"old\\": credentials in its git URL') && l.includes('tokenEnv'))).toBe(true);
    expect(warnings.some((l) => l.includes('source \\"old\\": its webhook secret is written in') && l.includes('secretEnv'))).toBe(true);
    const gitConfig = readFileSync(path.join(clone, '.git', 'config'), 'utf8');
    expect(gitConfig).toContain(remote.url);
    const shown = [gitConfig, out.text(), await everythingShown(running, env)].join('\n');
    for (const f of [...forms('x-access-token', TOKEN), HOOK]) expect(shown).not.toContain(f);
  }, 120_000);

  it('a fetch that the remote refuses (a revoked token) is reported everywhere without the token', async () => {
    const out = captureText();
    const env = testEnv({
      env: { LABBOT_PORT: '0', LOG_LEVEL: 'info', WIKI_TOKEN: TOKEN, WIKI_HOOK_SECRET: HOOK, LABBOT_ADMIN_TOKEN: ADMIN },
      fileConfig: {
        sources: [{ id: 'wiki', type: 'git', url: remote.url, branch: 'main', tokenEnv: 'WIKI_TOKEN', secretEnv: 'WIKI_HOOK_SECRET' }],
        queue: { attempts: 1 },
      },
    });
    const config = loadConfig(env);
    const running = await startServe(config, createLogger('info', 'labbot', out.stream, config.secrets));
    opened.push(running);
    remote.accept('x-access-token', 'a-new-token-0123456789');
    try {
      wiki.write('third.md', '# Third\n\nTHIRDPAGE.\n');
      wiki.commitAndPush('third page');
      const push = githubPush(HOOK, { ref: 'refs/heads/main' }, 'revoked-1');
      expect((await fetch(`${running.url}/hooks/wiki/wiki`, { method: 'POST', headers: push.headers, body: push.body })).status).toBe(202);
      const lastError = await waitFor(
        async () => (await running.app.records!.sourceState('wiki')).lastError,
        30_000,
        'the failed sync recorded',
      );
      expect(lastError).toMatch(/git fetch failed/);
      const failed = await running.queue!.queue.getJobs(['failed']);
      expect(failed.length).toBeGreaterThan(0);
      const shown = [
        lastError,
        ...failed.map((j) => `${j.failedReason}\n${(j.stacktrace ?? []).join('\n')}`),
        out.text(),
        await everythingShown(running, env),
      ].join('\n');
      expect(shown).toContain('git fetch failed');
      for (const f of [...forms('x-access-token', TOKEN), HOOK]) expect(shown).not.toContain(f);
    } finally {
      remote.accept('x-access-token', TOKEN);
    }
  }, 120_000);

  it('an ssh remote is reached with the deploy key sshKeyPath names, for the clone and every fetch', async () => {
    const key = path.join(bin, 'deploy key'); // a space: the path is quoted for the shell git runs ssh with
    writeFileSync(key, 'not a real key: the ssh stand-in only checks that it is the one offered\n', { mode: 0o600 });
    // The stand-in plays ssh and the remote host: it runs git-upload-pack on the path git asks for,
    // and only when offered the deploy key (with IdentitiesOnly, as a deploy key needs).
    writeFileSync(
      path.join(bin, 'ssh'),
      `#!/bin/sh\nprintf '%s\\n' "$*" >> '${sshLog}'\nkey=''; only=''\nwhile ` +
        `[ $# -gt 1 ]; do case "$1" in -i) key="$2"; shift 2;; -o) [ "$2" = IdentitiesOnly=yes ` +
        `] && only=1; shift 2;; -p|-l|-F) shift 2;; *) shift;; esac; done\nif [ ` +
        `"$key" != '${key}' ] || [ -z "$only" ]; then echo 'git@wiki.example: Permission ` +
        `denied (publickey).' >&2; exit 255; fi\nexec sh -c "$1"\n`,
    );
    chmodSync(path.join(bin, 'ssh'), 0o755);
    const sshWiki = createGitWiki({ 'ssh.md': '# Over ssh\n\nThis page came over SSHPAGE.\n' });
    const env = testEnv({
      env: { LABBOT_PORT: '0', WIKI_HOOK_SECRET: HOOK },
      fileConfig: {
        sources: [
          {
            id: 'sshwiki',
            type: 'git',
            url: `ssh://git@wiki.example${sshWiki.remote}`,
            branch: 'main',
            sshKeyPath: key,
            secretEnv: 'WIKI_HOOK_SECRET',
          },
        ],
      },
    });
    const running = await startServe(loadConfig(env), createLogger('silent'));
    opened.push(running);
    expect(running.app.catalog.lexicalSearch(['public'], 'SSHPAGE', 3).length).toBeGreaterThan(0);
    sshWiki.write('ssh.md', '# Over ssh\n\nThis page changed over SSHEDIT.\n');
    sshWiki.commitAndPush('edit over ssh');
    const push = githubPush(HOOK, { ref: 'refs/heads/main' }, 'ssh-1');
    expect((await fetch(`${running.url}/hooks/wiki/sshwiki`, { method: 'POST', headers: push.headers, body: push.body })).status).toBe(202);
    await waitFor(async () => running.app.catalog.lexicalSearch(['public'], 'SSHEDIT', 3).length > 0, 30_000, 'the edit fetched over ssh');
    const calls = readFileSync(sshLog, 'utf8').trim().split('\n');
    expect(calls.length).toBeGreaterThanOrEqual(2);
    for (const c of calls) expect(c).toContain(`-i ${key} -o IdentitiesOnly=yes -o BatchMode=yes`);
  }, 120_000);
});
