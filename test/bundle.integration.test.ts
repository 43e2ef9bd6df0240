// bin/labbot.js runs a bundle of the sources (bin/bundle.js), on a copy of the repository: built
// once per version of the sources, rebuilt when one changes, old ones pruned, and the sources
// run through tsx when no bundle can be built.
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repo = path.resolve('.');
const bundles = (root: string) =>
  existsSync(path.join(root, 'dist'))
    ? readdirSync(path.join(root, 'dist'))
        .filter((n) => /^[0-9a-f]{16}$/.test(n))
        .sort()
    : [];

describe('the CLI bundle', () => {
  let root: string;
  const help = () =>
    spawnSync(process.execPath, [path.join(root, 'bin', 'labbot.js'), '--help'], { cwd: root, encoding: 'utf8', timeout: 120_000 });

  beforeAll(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'labbot-bundle-'));
    for (const d of ['src', 'bin']) cpSync(path.join(repo, d), path.join(root, d), { recursive: true });
    cpSync(path.join(repo, 'package.json'), path.join(root, 'package.json'));
    symlinkSync(path.join(repo, 'node_modules'), path.join(root, 'node_modules'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('is built on the first run, with the dashboard files, and reused by the next', () => {
    const first = help();
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toContain('Usage: labbot');
    const [fp] = bundles(root);
    expect(bundles(root)).toHaveLength(1);
    expect(existsSync(path.join(root, 'dist', fp, 'cli.js'))).toBe(true);
    expect(readdirSync(path.join(root, 'dist', fp, 'static')).sort()).toEqual(
      readdirSync(path.join(repo, 'src', 'admin', 'static')).sort(),
    );
    // Dynamic imports stay lazy: Slack's Bolt is only in the chunk loaded when Slack is configured.
    const withBolt = readdirSync(path.join(root, 'dist', fp)).filter(
      (n) => n.endsWith('.js') && readFileSync(path.join(root, 'dist', fp, n), 'utf8').includes('"@slack/bolt"'),
    );
    expect(withBolt).toHaveLength(1);
    expect(withBolt[0]).toMatch(/^bot-/);

    const built = statSync(path.join(root, 'dist', fp, 'cli.js')).mtimeMs;
    const second = help();
    expect(second.status).toBe(0);
    expect(bundles(root)).toEqual([fp]);
    expect(statSync(path.join(root, 'dist', fp, 'cli.js')).mtimeMs).toBe(built);
  });

  it('is rebuilt when a source changes, keeping the newest older bundles and dropping dead builds', () => {
    const [before] = bundles(root);
    // Older bundles and a build a dead process left behind, all from long ago.
    const old = Date.now() / 1000 - 86_400;
    for (let i = 0; i < 6; i++) {
      const d = path.join(root, 'dist', `00000000000000a${i}`);
      mkdirSync(d);
      utimesSync(d, old + i, old + i);
    }
    const dead = path.join(root, 'dist', `${before}.99999.tmp`);
    mkdirSync(dead);
    utimesSync(dead, old, old);
    utimesSync(path.join(root, 'dist', before), old + 10, old + 10);

    appendFileSync(path.join(root, 'src', 'types.ts'), '\n// an edit\n');
    const r = help();
    expect(r.status, r.stderr).toBe(0);
    const now = bundles(root);
    expect(now).toHaveLength(6); // the new one and the five newest before it
    expect(now).toContain(before);
    expect(now).not.toContain('00000000000000a0');
    expect(now).not.toContain('00000000000000a1');
    expect(existsSync(dead)).toBe(false);
  });

  it('is built again when a file of it was deleted or cut short, instead of failing when that chunk is imported', () => {
    // The current bundle, as `node bin/bundle.js` names it.
    const current = spawnSync(process.execPath, [path.join(root, 'bin', 'bundle.js')], { cwd: root, encoding: 'utf8' }).stdout.trim();
    const fp = path.basename(path.dirname(current));
    const dir = path.join(root, 'dist', fp);
    const bot = readdirSync(dir).find((n) => /^bot-.*\.js$/.test(n))!;
    rmSync(path.join(dir, bot));
    const r = help();
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain(`the bundle dist/${fp} is damaged; building it again`);
    expect(existsSync(path.join(dir, bot))).toBe(true);
    expect(readdirSync(path.join(root, 'dist')).some((n) => n.startsWith(`${fp}.`) && n.endsWith('.damaged.tmp'))).toBe(true);

    writeFileSync(path.join(dir, 'cli.js'), readFileSync(path.join(dir, 'cli.js'), 'utf8').slice(0, 1000));
    const again = help();
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain('Usage: labbot');
    expect(again.stderr).toContain('is damaged; building it again');
    // Whole again: the next start uses it without a word.
    const next = help();
    expect(next.status).toBe(0);
    expect(next.stderr).not.toContain('damaged');
  });

  it('falls back to the TypeScript sources, saying so, when no bundle can be built', () => {
    rmSync(path.join(root, 'dist'), { recursive: true, force: true });
    // A file where the bundles' directory should be: nothing can be written there.
    writeFileSync(path.join(root, 'dist'), 'not a directory');
    appendFileSync(path.join(root, 'src', 'types.ts'), '\n// another edit\n');
    const r = help();
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Usage: labbot');
    expect(r.stderr).toMatch(/running the TypeScript sources through tsx \(no bundle: /);
  });
});
