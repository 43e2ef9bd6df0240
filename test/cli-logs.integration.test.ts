// What the real bin prints where: a command's stdout is its answer alone (one JSON document with
// --json) and its log goes to stderr; `serve` off a terminal logs JSON lines, and readable lines
// on one, with the dashboard link on a line of its own on stdout.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEnv } from './helpers/app.ts';
import { startLabbot, type LabbotProcess } from './helpers/serve-process.ts';
import { waitFor } from './helpers/wait.ts';

const BIN = path.resolve('bin/labbot.js');
const QUESTION = 'Where are the competent cells stored in the freezer?';

function run(args: string[], env: Record<string, string>) {
  const r = spawnSync(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A line pino wrote as JSON: an object with its level, time and message. */
function isPinoLine(line: string): boolean {
  try {
    const o = JSON.parse(line) as Record<string, unknown>;
    return typeof o === 'object' && o !== null && typeof o.level === 'number' && 'time' in o && 'msg' in o;
  } catch {
    return false;
  }
}

const lines = (text: string) => text.split('\n').filter((l) => l.trim());

// `script` gives the child a terminal: the one way to see what a person at one sees.

describe('labbot commands keep their log out of their output', () => {
  let env: Record<string, string>;
  beforeAll(() => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-cli-logs-'));
    writeFileSync(
      path.join(dir, 'freezer.md'),
      '---\nid: freezer\ntitle: Freezer map\n---\n\n# Freezer map\n\nThe minus eighty freezer in ' +
        'room 214 holds plasmid stocks on shelf two and competent cells on shelf three.\n',
    );
    // LOG_LEVEL unset: each command's own default, as a lab runs it.
    env = { ...testEnv(), LOG_LEVEL: '' };
    const r = run(['ingest', dir, '--source', 'notes'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^source notes: 1 indexed/m);
    // Ingest's info lines (a Chroma connection, the lexical index) once ran into its summary on a terminal.
    expect(lines(r.stdout + r.stderr).filter(isPinoLine)).toEqual([]);
  });

  it('ask --json prints exactly one JSON document on stdout and no log line, at the default level and at info', () => {
    for (const level of ['', 'info']) {
      const r = run(['ask', QUESTION, '--json'], { ...env, LOG_LEVEL: level });
      expect(r.code, r.stderr).toBe(0);
      // JSON.parse takes one document and nothing after it.
      const answer = JSON.parse(r.stdout);
      expect(answer).toMatchObject({ refused: false });
      expect(lines(r.stdout).filter(isPinoLine)).toEqual([]);
      expect(r.stdout).not.toMatch(/"level":\s*\d+/);
      const logged = lines(r.stderr).filter(isPinoLine);
      // Off a terminal the log is JSON lines on stderr: warnings and worse unless LOG_LEVEL says more.
      if (level === 'info') expect(logged.length).toBeGreaterThan(0);
      else expect(logged.filter((l) => (JSON.parse(l) as { level: number }).level < 40)).toEqual([]);
    }
  });

  it('LOG_FORMAT=pretty writes readable log lines on stderr, and stdout is still the answer alone', () => {
    const r = run(['ask', QUESTION, '--json'], { ...env, LOG_LEVEL: 'info', LOG_FORMAT: 'pretty' });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ refused: false });
    const logged = lines(r.stderr);
    expect(logged.length).toBeGreaterThan(0);
    for (const l of logged) expect(l).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] (INFO|WARN|ERROR) \(labbot\): /);
    // Not a terminal: no colour codes in a log that is kept.
    expect(r.stderr).not.toContain('\x1b[');
  });

  it('on a terminal, stderr gets readable lines (auto)', () => {
    // `script` (util-linux/bsdutils, an essential Debian package) gives the process a terminal. Inside it,
    // stdout and stderr are both the terminal; stdout goes to /dev/null so what reaches the terminal
    // is the log alone.
    const r = spawnSync('script', ['-qec', `"${process.execPath}" "${BIN}" status --json 2>&1 >/dev/null`, '/dev/null'], {
      env: { ...process.env, ...env, LOG_LEVEL: 'info', NO_COLOR: '1' },
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const logged = lines(r.stdout.replace(/\r/g, ''));
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.filter(isPinoLine)).toEqual([]);
    expect(logged.some((l) => /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO \(labbot\): /.test(l))).toBe(true);
  });
});

describe('labbot serve off a terminal', () => {
  let p: LabbotProcess;
  afterAll(async () => {
    p?.child.kill('SIGTERM');
    await p?.exited;
  });

  it('logs JSON lines on stderr and prints the dashboard link on a line of its own on stdout', async () => {
    const env = testEnv({
      env: { LABBOT_PORT: '0', LABBOT_ADMIN_TOKEN: '', LABBOT_WORKER: 'off', LOG_LEVEL: 'info' },
      fileConfig: { sources: [] },
    });
    p = startLabbot(['serve'], env);
    const link = await waitFor(
      async () => /^ {4}(http:\/\/\S+\/admin\?token=\S+)$/m.exec(p.stdout())?.[1],
      90_000,
      'the dashboard link on stdout',
    );
    await p.waitForLog(/labbot is serving/);
    const logged = lines(p.stderr());
    expect(logged.length).toBeGreaterThan(0);
    for (const l of logged) expect(isPinoLine(l), l).toBe(true);
    expect(p.stderr()).not.toContain(new URL(link).searchParams.get('token'));
    // stdout is the operator's banner, no log line in it.
    expect(lines(p.stdout()).filter(isPinoLine)).toEqual([]);
  }, 120_000);
});
