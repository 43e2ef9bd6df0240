// `labbot serve` (or another command) as a real child process, the way a lab runs it: bin/labbot.js
// with an environment, its log lines (pino JSON on stderr) collected, and helpers for its exit.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { waitFor } from './wait.ts';

export interface LabbotProcess {
  child: ChildProcess;
  pid: number;
  /** Log lines so far, parsed (pino JSON); lines that are not JSON as { msg }. */
  logs(): { msg?: string; [k: string]: unknown }[];
  /** Resolves with the first log line whose msg matches. */
  waitForLog(match: RegExp, timeoutMs?: number): Promise<{ msg?: string; [k: string]: unknown }>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
  /** What it printed on stdout so far (plain lines for the operator, such as the dashboard link). */
  stdout(): string;
}

export function startLabbot(args: string[], env: Record<string, string | undefined>): LabbotProcess {
  const child = spawn(process.execPath, [path.resolve('bin/labbot.js'), ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (b: Buffer) => (err += b.toString()));
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.once('exit', (code, signal) => r({ code, signal })),
  );
  const logs = () =>
    err
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        try {
          return JSON.parse(l) as { msg?: string };
        } catch {
          return { msg: l };
        }
      });
  return {
    child,
    pid: child.pid!,
    logs,
    stderr: () => err,
    stdout: () => out,
    exited,
    waitForLog: (match, timeoutMs = 60_000) =>
      waitFor(async () => logs().find((l) => match.test(String(l.msg ?? ''))), timeoutMs, `log ${match}`),
  };
}
