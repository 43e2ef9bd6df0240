// scripts/test-deps.sh (run by `npm test` before the suite) on a PATH of fakes: apt-get and id are
// replaced by small scripts so that installing can be checked on a machine that has chromium.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const SCRIPT = path.resolve('scripts/test-deps.sh');

let dir: string;
let chromium: string;
let aptLog: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-test-deps-'));
  chromium = path.join(dir, 'chromium');
  aptLog = path.join(dir, 'apt.log');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function fake(name: string, body: string): void {
  writeFileSync(path.join(dir, name), `#!/bin/bash\n${body}\n`, { mode: 0o755 });
}

/** Like Debian's apt-get: `install` fails until `update` has fetched the package lists. */
function fakeApt(): void {
  fake(
    'apt-get',
    `printf '%s\\n' "$*" >> ${aptLog}
case "$1" in
  update) : > ${dir}/lists ;;
  install) [ -e ${dir}/lists ] || { echo "E: Unable to locate package chromium" >&2; exit 100; }
           printf '#!/bin/bash\\necho "Chromium 1.2.3"\\n' > ${chromium}; /bin/chmod +x ${chromium} ;;
esac`,
  );
}

function run(...args: string[]) {
  // Only the fakes are on PATH: the real apt-get, id and sudo cannot be reached.
  const r = spawnSync('/bin/bash', [SCRIPT, '--chromium', chromium, ...args], { env: { PATH: dir }, encoding: 'utf8' });
  const apt = existsSync(aptLog) ? readFileSync(aptLog, 'utf8').trim().split('\n') : [];
  return { status: r.status, out: r.stdout, err: r.stderr, apt };
}

describe('scripts/test-deps.sh', () => {
  it('does nothing and says nothing when chromium is there', () => {
    fakeApt();
    fake('id', 'echo 0');
    writeFileSync(chromium, '#!/bin/bash\n', { mode: 0o755 });
    expect(run()).toEqual({ status: 0, out: '', err: '', apt: [] });
  });

  it('installs chromium as root, updating the package lists when apt cannot find it, and says so', () => {
    fakeApt();
    fake('id', 'echo 0');
    const r = run();
    expect(r.status).toBe(0);
    expect(r.apt).toEqual(['install -y -qq chromium', 'update -qq', 'install -y -qq chromium']);
    expect(existsSync(chromium)).toBe(true);
    expect(r.out).toContain("installing Debian's chromium (for test/admin-browser.test.ts)");
    expect(r.out).toContain('test-deps: apt-get install -y -qq chromium');
    expect(r.out).toContain('installed Chromium 1.2.3');
  });

  it('prints the commands and runs none with --dry-run', () => {
    fakeApt();
    fake('id', 'echo 0');
    const r = run('--dry-run');
    expect(r.status).toBe(0);
    expect(r.out).toContain('test-deps: apt-get install -y -qq chromium');
    expect(r.apt).toEqual([]);
    expect(existsSync(chromium)).toBe(false);
  });

  it('uses password-less sudo when not root', () => {
    fakeApt();
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
    fakeApt();
    const notRoot = run();
    expect(notRoot.status).toBe(0);
    expect(notRoot.err).toMatch(/not root and no password-less sudo; test\/admin-browser\.test\.ts will fail/);
    expect(notRoot.apt).toEqual([]);

    rmSync(path.join(dir, 'apt-get'));
    fake('id', 'echo 0');
    const noApt = run();
    expect(noApt.status).toBe(0);
    expect(noApt.err).toMatch(/no apt-get on this machine/);
  });

  it('reports an apt failure instead of claiming success', () => {
    fake('id', 'echo 0');
    fake('apt-get', `printf '%s\\n' "$*" >> ${aptLog}; echo "E: network unreachable" >&2; exit 100`);
    const r = run();
    expect(r.status).toBe(0);
    expect(r.apt).toEqual(['install -y -qq chromium', 'update -qq']);
    expect(r.err).toContain('E: network unreachable');
    expect(r.err).toMatch(/apt-get could not install chromium/);
    expect(r.out).not.toContain('installed');
  });
});
