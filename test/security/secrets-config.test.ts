// Item 11 of issue 24 (config side): every secret can come from the environment, none has to be
// in labbot.config.json (which is shared, mounted and often committed), a secret still in the
// file keeps working but is warned about, and no secret value is echoed by a config error or
// reaches a log line.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/log.ts';

const HOOK = 'hook-secret-from-env-0123';
const TOKEN = 'ghp_tokenFromTheEnvironment0123';

function load(fileConfig: object, env: Record<string, string> = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-secrets-config-'));
  writeFileSync(path.join(dir, 'labbot.config.json'), JSON.stringify(fileConfig));
  writeFileSync(path.join(dir, 'deploy_key'), '-----BEGIN OPENSSH PRIVATE KEY-----\n-----END OPENSSH PRIVATE KEY-----\n');
  return {
    dir,
    config: loadConfig({ LABBOT_CONFIG: path.join(dir, 'labbot.config.json'), LABBOT_DATA_DIR: path.join(dir, 'data'), ...env }),
  };
}
const errorOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
};

describe('secrets come from the environment', () => {
  it('a webhook secret (secretEnv) and a git token (tokenEnv) are read from the variables they name; the file holds only names', () => {
    const { config } = load(
      {
        sources: [
          {
            id: 'wiki',
            type: 'git',
            url: 'https://github.com/lab/handbook.wiki.git',
            tokenEnv: 'WIKI_TOKEN',
            secretEnv: 'WIKI_HOOK_SECRET',
          },
          { id: 'docs', type: 'folder', path: '.', secretEnv: 'DOCS_HOOK_SECRET' },
        ],
      },
      { WIKI_TOKEN: TOKEN, WIKI_HOOK_SECRET: HOOK, DOCS_HOOK_SECRET: `${HOOK}-docs` },
    );
    const [wiki, docs] = config.sources;
    expect(wiki.secret).toBe(HOOK);
    expect(docs.secret).toBe(`${HOOK}-docs`);
    expect(wiki.url).toBe('https://github.com/lab/handbook.wiki.git');
    expect(wiki.gitAuth?.basic).toEqual({ user: 'x-access-token', password: TOKEN });
    expect(config.warnings).toEqual([]);
    expect(config.secrets).toEqual(expect.arrayContaining([HOOK, `${HOOK}-docs`, TOKEN]));
  });

  it("a user name in the URL (GitLab's oauth2) goes with the token; the URL passed on carries no credentials", () => {
    const { config } = load(
      { sources: [{ id: 'wiki', type: 'git', url: 'https://oauth2@gitlab.example.org/lab/wiki.git', tokenEnv: 'WIKI_TOKEN' }] },
      { WIKI_TOKEN: TOKEN },
    );
    expect(config.sources[0].url).toBe('https://gitlab.example.org/lab/wiki.git');
    expect(config.sources[0].gitAuth?.basic).toEqual({ user: 'oauth2', password: TOKEN });
    expect(config.warnings).toEqual([]);
  });

  it('an SSH deploy key is named by its path (sshKeyPath, relative to the config file)', () => {
    const { dir, config } = load({
      sources: [{ id: 'wiki', type: 'git', url: 'git@github.com:lab/handbook.wiki.git', sshKeyPath: 'deploy_key' }],
    });
    expect(config.sources[0].gitAuth?.sshKeyPath).toBe(path.join(dir, 'deploy_key'));
    expect(config.sources[0].url).toBe('git@github.com:lab/handbook.wiki.git');
  });

  it('a variable named but not set, or a secret too short, is a config error that names the variable and never a value', () => {
    expect(errorOf(() => load({ sources: [{ id: 'w', type: 'git', url: 'https://h.example/w.git', tokenEnv: 'NOT_SET_TOKEN' }] }))).toMatch(
      /source "w" reads its git token from NOT_SET_TOKEN, which is not set/,
    );
    expect(errorOf(() => load({ sources: [{ id: 'd', type: 'folder', path: '.', secretEnv: 'NOT_SET_HOOK' }] }))).toMatch(
      /source "d" reads its webhook secret from NOT_SET_HOOK, which is not set/,
    );
    const short = errorOf(() =>
      load({ sources: [{ id: 'd', type: 'folder', path: '.', secretEnv: 'SHORT_HOOK' }] }, { SHORT_HOOK: 'abc1234' }),
    );
    expect(short).toMatch(/SHORT_HOOK.*at least 8 characters/);
    expect(short).not.toContain('abc1234');
    expect(errorOf(() => load({ sources: [{ id: 'd', type: 'folder', path: '.', secret: 'tiny123' }] }))).not.toContain('tiny123');
  });

  it('each mistake in how a secret is named is a clear config error', () => {
    expect(errorOf(() => load({ sources: [{ id: 'd', type: 'folder', path: '.', secret: HOOK, secretEnv: 'HOOK' }] }, { HOOK }))).toMatch(
      /either "secret" or "secretEnv"/,
    );
    expect(
      errorOf(() => load({ sources: [{ id: 'w', type: 'git', url: 'git@github.com:lab/w.git', tokenEnv: 'T' }] }, { T: TOKEN })),
    ).toMatch(/tokenEnv.*https/);
    expect(
      errorOf(() => load({ sources: [{ id: 'w', type: 'git', url: 'https://github.com/lab/w.git', sshKeyPath: 'deploy_key' }] })),
    ).toMatch(/sshKeyPath.*ssh/);
    expect(
      errorOf(() => load({ sources: [{ id: 'w', type: 'git', url: 'git@github.com:lab/w.git', sshKeyPath: 'no-such-key' }] })),
    ).toMatch(/no-such-key.*not a readable file/);
    expect(errorOf(() => load({ sources: [{ id: 'd', type: 'folder', path: '.', tokenEnv: 'T' }] }, { T: TOKEN }))).toMatch(
      /"tokenEnv" and "sshKeyPath" are for git sources/,
    );
    expect(
      errorOf(() => load({ sources: [{ id: 'w', type: 'git', url: 'https://github.com/lab/w.git', tokenEnv: 'lower-case' }] })),
    ).toMatch(/names an environment variable/);
  });
});

describe('a secret still in the config file', () => {
  it('a webhook secret in the file keeps working and is warned about, without its value', () => {
    const { config } = load({ sources: [{ id: 'docs', type: 'folder', path: '.', secret: HOOK }] });
    expect(config.sources[0].secret).toBe(HOOK);
    expect(config.warnings).toHaveLength(1);
    expect(config.warnings[0]).toMatch(/source "docs".*webhook secret.*secretEnv/);
    expect(config.warnings[0]).not.toContain(HOOK);
  });

  it('a token inside a git URL keeps working, leaves the URL, and is warned about, without its value', () => {
    const { config } = load({
      sources: [
        { id: 'a', type: 'git', url: `https://x-access-token:${TOKEN}@github.com/lab/a.wiki.git` },
        { id: 'b', type: 'git', url: `https://${TOKEN}@github.com/lab/b.wiki.git` },
        { id: 'c', type: 'git', url: `https://user:p%40ss%2Fword1@git.example.org/c.git` },
      ],
    });
    const [a, b, c] = config.sources;
    expect([a.url, b.url, c.url]).toEqual([
      'https://github.com/lab/a.wiki.git',
      'https://github.com/lab/b.wiki.git',
      'https://git.example.org/c.git',
    ]);
    // Exactly the credentials git would have sent from the URL (a token alone is a user name).
    expect(a.gitAuth?.basic).toEqual({ user: 'x-access-token', password: TOKEN });
    expect(b.gitAuth?.basic).toEqual({ user: TOKEN, password: '' });
    expect(c.gitAuth?.basic).toEqual({ user: 'user', password: 'p@ss/word1' });
    expect(config.warnings).toHaveLength(3);
    for (const w of config.warnings) {
      expect(w).toMatch(/credentials in its git URL.*tokenEnv/);
      expect(w).not.toContain(TOKEN);
      expect(w).not.toContain('p@ss');
    }
    expect(config.secrets).toEqual(expect.arrayContaining([TOKEN, 'p@ss/word1']));
  });

  it('tokenEnv wins over a token left in the URL', () => {
    const { config } = load(
      {
        sources: [{ id: 'a', type: 'git', url: 'https://x-access-token:old-token-123@github.com/lab/a.wiki.git', tokenEnv: 'WIKI_TOKEN' }],
      },
      { WIKI_TOKEN: TOKEN },
    );
    expect(config.sources[0].gitAuth?.basic).toEqual({ user: 'x-access-token', password: TOKEN });
    expect(config.sources[0].url).toBe('https://github.com/lab/a.wiki.git');
    expect(config.warnings).toHaveLength(1);
  });
});

describe('no secret reaches a log line', () => {
  it('every configured secret is redacted from every line the logger writes, whatever road it took', () => {
    const { config } = load(
      {
        sources: [
          {
            id: 'wiki',
            type: 'git',
            url: 'https://oauth2@gitlab.example.org/lab/w.git',
            tokenEnv: 'WIKI_TOKEN',
            secretEnv: 'WIKI_HOOK_SECRET',
          },
        ],
      },
      {
        WIKI_TOKEN: TOKEN,
        WIKI_HOOK_SECRET: HOOK,
        OPENAI_API_KEY: 'sk-openai-key-0123456789',
        LABBOT_ADMIN_TOKEN: 'admin-token-0123456789',
      },
    );
    const lines: string[] = [];
    const out = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const log = createLogger('info', 'labbot', out, config.secrets);
    const basic = Buffer.from(`oauth2:${TOKEN}`).toString('base64');
    log.error(
      {
        err: new Error(`fatal: could not read from https://github.com/lab/w.git?token=${encodeURIComponent(TOKEN)}`),
        header: `Authorization: Basic ${basic}`,
        hook: HOOK,
        config,
      },
      `giving up with ${TOKEN}`,
    );
    log.info({ keys: ['sk-openai-key-0123456789', 'admin-token-0123456789'] }, 'keys');
    const text = lines.join('');
    expect(text).toContain('giving up with [redacted]');
    for (const secret of [TOKEN, HOOK, basic, 'sk-openai-key-0123456789', 'admin-token-0123456789']) expect(text).not.toContain(secret);
  });
});
