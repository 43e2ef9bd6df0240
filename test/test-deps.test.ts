// scripts/test-deps.sh (run by `npm test` before the suite) on a PATH of fakes only: apt-get, id,
// sudo, git, the Redis tools, caddy and apertium are small scripts, so installing can be checked on a machine
// that has everything.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const SCRIPT = path.resolve('scripts/test-deps.sh');

let dir: string;
let chromium: string;
let aptLog: string;

function fake(name: string, body: string): void {
  writeFileSync(path.join(dir, name), `#!/bin/bash\n${body}\n`, { mode: 0o755 });
}

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-test-deps-'));
  chromium = path.join(dir, 'chromium');
  aptLog = path.join(dir, 'apt.log');
  // By default the machine has git, Redis (answering) and caddy, is root and has apt.
  fake('git', 'exit 0');
  fake('caddy', 'exit 0');
  fake('apertium', `printf '  eng-spa\\n  spa-eng\\n'`);
  fake('redis-server', 'exit 0');
  fake('redis-cli', 'echo PONG');
  fake('id', 'echo 0');
  fakeApt();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Like Debian's apt-get: `install` fails until `update` has fetched the package lists. */
function fakeApt(): void {
  fake(
    'apt-get',
    `printf '%s\\n' "$*" >> ${aptLog}
case "$1" in
  update) : > ${dir}/lists ;;
  install) [ -e ${dir}/lists ] || { echo "E: Unable to locate package" >&2; exit 100; }
    for p in "$@"; do
      case "$p" in
        chromium) printf '#!/bin/bash\\necho "Chromium 1.2.3"\\n' > ${chromium}; /bin/chmod +x ${chromium} ;;
        git) printf '#!/bin/bash\\n' > ${dir}/git; /bin/chmod +x ${dir}/git ;;
      esac
    done ;;
esac`,
  );
}

function run(...args: string[]) {
  // Only the fakes are on PATH: the machine's own apt-get, id, sudo, git and redis cannot be reached.
  const r = spawnSync('/bin/bash', [SCRIPT, '--chromium', chromium, ...args], { env: { PATH: dir }, encoding: 'utf8' });
  const apt = existsSync(aptLog) ? readFileSync(aptLog, 'utf8').trim().split('\n') : [];
  return { status: r.status, out: r.stdout, err: r.stderr, apt };
}

describe('scripts/test-deps.sh', () => {
  it('does nothing and says nothing when everything is there', () => {
    writeFileSync(chromium, '#!/bin/bash\n', { mode: 0o755 });
    expect(run()).toEqual({ status: 0, out: '', err: '', apt: [] });
  });

  it('installs chromium as root, updating the package lists when apt cannot find it, and says so', () => {
    const r = run();
    expect(r.status).toBe(0);
    expect(r.apt).toEqual(['install -y -qq chromium', 'update -qq', 'install -y -qq chromium']);
    expect(existsSync(chromium)).toBe(true);
    expect(r.out).toContain('test-deps: installing Debian packages the tests need: chromium');
    expect(r.out).toContain('test-deps: apt-get install -y -qq chromium');
    expect(r.out).toContain('test-deps: installed chromium (Chromium 1.2.3)');
    expect(r.err).toBe('');
  });

  it('installs every missing package in one apt call', () => {
    for (const t of ['git', 'redis-server', 'redis-cli', 'caddy']) rmSync(path.join(dir, t));
    writeFileSync(path.join(dir, 'lists'), '');
    const r = run();
    expect(r.status).toBe(0);
    expect(r.apt).toEqual(['install -y -qq chromium git redis-server redis-tools caddy']);
    expect(r.out).toContain('test-deps: installed chromium git redis-server redis-tools caddy (Chromium 1.2.3)');
  });

  it('installs Apertium and its English-Spanish modes when either is missing', () => {
    writeFileSync(path.join(dir, 'lists'), '');
    fake('chromium', 'exit 0');
    fake('apertium', `printf '  spa-eng\\n'`);
    expect(run('--chromium', path.join(dir, 'chromium')).apt).toEqual(['install -y -qq apertium-en-es']);
    rmSync(path.join(dir, 'apertium'));
    expect(run('--chromium', path.join(dir, 'chromium')).apt).toEqual([
      'install -y -qq apertium-en-es',
      'install -y -qq apertium apertium-en-es',
    ]);
  });

  it('prints the commands and runs none with --dry-run', () => {
    const r = run('--dry-run');
    expect(r.status).toBe(0);
    expect(r.out).toContain('test-deps: apt-get install -y -qq chromium');
    expect(r.apt).toEqual([]);
    expect(existsSync(chromium)).toBe(false);
  });

  it('uses password-less sudo when not root', () => {
    fake('id', 'echo 1000');
    fake('sudo', '[ "$1" = -n ] && shift; [ "$1" = true ] && exit 0; exec "$@"');
    const r = run();
    expect(r.status).toBe(0);
    expect(r.out).toContain('test-deps: sudo -n apt-get install -y -qq chromium');
    expect(existsSync(chromium)).toBe(true);
  });

  it('explains and lets the suite run when it cannot install', () => {
    fake('id', 'echo 1000');
    fake('sudo', 'exit 1');
    const notRoot = run();
    expect(notRoot.status).toBe(0);
    expect(notRoot.err).toMatch(/not root and no password-less sudo; the tests that need chromium will fail/);
    expect(notRoot.apt).toEqual([]);

    rmSync(path.join(dir, 'apt-get'));
    fake('id', 'echo 0');
    const noApt = run();
    expect(noApt.status).toBe(0);
    expect(noApt.err).toMatch(/no apt-get on this machine/);
  });

  it('reports an apt failure instead of claiming success', () => {
    fake('apt-get', `printf '%s\\n' "$*" >> ${aptLog}; echo "E: network unreachable" >&2; exit 100`);
    const r = run();
    expect(r.status).toBe(0);
    expect(r.apt).toEqual(['install -y -qq chromium', 'update -qq']);
    expect(r.err).toContain('E: network unreachable');
    expect(r.err).toMatch(/apt-get could not install them/);
    expect(r.out).not.toContain('installed');
  });

  it('warns when nothing answers on the Redis port the tests use', () => {
    writeFileSync(chromium, '#!/bin/bash\n', { mode: 0o755 });
    fake('redis-cli', 'echo "Could not connect to Redis at 127.0.0.1:6379: Connection refused" >&2; exit 1');
    const r = run();
    expect(r.status).toBe(0);
    expect(r.apt).toEqual([]);
    expect(r.err).toMatch(/nothing answers on 127\.0\.0\.1:6379/);
  });
});
