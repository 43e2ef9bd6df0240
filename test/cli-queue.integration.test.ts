// `labbot reindex` and polling as an admin uses them: the real bin queues a sync, a worker (here,
// `labbot serve`'s own, in-process) runs it, and the CLI reports the result; polled sources get a
// BullMQ job scheduler.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { startServe, type Running } from '../src/serve.ts';
import { testEnv } from './helpers/app.ts';
import { waitFor } from './helpers/wait.ts';

const BIN = path.resolve('bin/labbot.js');

/** Async, unlike spawnSync: the worker inside this test process must keep running meanwhile. */
function run(args: string[], env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

describe('labbot reindex and polling', () => {
  let dir: string;
  let env: Record<string, string>;
  let running: Running;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-reindex-'));
    writeFileSync(path.join(dir, 'a.md'), '# Autoclave\n\nThe autoclave runs at 121 C for 20 minutes; log code AUTO121.\n');
    writeFileSync(path.join(dir, 'b.md'), '# Balance\n\nCalibrate the balance every Monday; code BAL7.\n');
    env = testEnv({ env: { LABBOT_PORT: '0' }, fileConfig: { sources: [{ id: 'sops', type: 'folder', path: dir, poll: '30s' }] } });
    running = await startServe(loadConfig(env), createLogger('silent'));
  }, 60_000);

  afterAll(async () => {
    await running?.close();
  });

  it('a polled source has a job scheduler for sync-source at its interval', async () => {
    const schedulers = await running.queue!.queue.getJobSchedulers();
    const poll = schedulers.find((s) => s.key === 'poll-sops');
    expect(poll).toBeDefined();
    expect(Number(poll!.every)).toBe(30_000);
    expect(poll!.name).toBe('sync-source');
  });

  it('labbot reindex queues a sync, waits for it and prints what changed', async () => {
    writeFileSync(path.join(dir, 'b.md'), '# Balance\n\nCalibrate the balance every Tuesday now; code BAL8.\n');
    rmSync(path.join(dir, 'a.md'));
    const r = await run(['reindex', '--source', 'sops', '--json'], env);
    expect(r.status, r.stderr).toBe(0);
    const [outcome] = JSON.parse(r.stdout) as { source: string; total: number; done: number; failed: unknown[] }[];
    expect(outcome).toMatchObject({ source: 'sops', total: 2, done: 2, failed: [] });
    await waitFor(async () => running.app.catalog.lexicalSearch(['public'], 'BAL8', 3).length > 0, 10_000, 'edit visible to serve');
    expect(running.app.catalog.lexicalSearch(['public'], 'AUTO121', 3)).toHaveLength(0);
    const unknown = await run(['reindex', '--source', 'nope'], env);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/No source "nope"; configured: sops/);
  });

  it('a file that fails is reported once, and not retried on every sync until it changes', async () => {
    writeFileSync(path.join(dir, 'bad.md'), '---\ntitle: [unclosed\naccess: pi-only\n---\n# Bad\n\nSecret text BADSECRET.\n');
    const first = await run(['reindex', '--source', 'sops', '--json'], env);
    expect(first.status).toBe(1);
    const [o1] = JSON.parse(first.stdout) as { total: number; failed: { reason: string }[] }[];
    expect(o1.total).toBe(1);
    expect(o1.failed[0].reason).toMatch(/front matter cannot be read \(.*\); not indexed, since its access group cannot be known/);
    expect(running.app.catalog.lexicalSearch(['public'], 'BADSECRET', 3)).toHaveLength(0);
    const problems = await running.app.records!.problems('sops');
    expect(problems.find((p) => p.path === 'bad.md')?.hash).toBeTruthy();
    const second = await run(['reindex', '--source', 'sops', '--json'], env);
    expect(second.status).toBe(0);
    const [o2] = JSON.parse(second.stdout) as { total: number; unchanged: number }[];
    expect(o2.total).toBe(0);
    expect(o2.unchanged).toBe(2);
  });

  it('labbot reindex --rebuild waits until the rebuilt index is live, then prints it; --no-wait only queues', async () => {
    const before = running.app.base;
    const r = await run(['reindex', '--rebuild', '--json'], env);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as {
      job: string;
      result?: { from: string; to: string; documents: number; chunks: number };
      error?: string;
    };
    expect(out.error).toBeUndefined();
    expect(out.result).toMatchObject({ from: before, documents: 1 });
    expect(out.result!.to).not.toBe(before);
    // The command returned after the switch, so the serving process already answers from it.
    await waitFor(async () => running.app.base === out.result!.to, 10_000, 'serve follows the switch');
    expect(running.app.catalog.lexicalSearch(['public'], 'BAL8', 3).length).toBeGreaterThan(0);

    const plain = await run(['reindex', '--rebuild'], env);
    expect(plain.status, plain.stderr).toBe(0);
    expect(plain.stdout).toMatch(/rebuilt: 1 documents, \d+ chunks \(\d+ embedded\); switched from \S+ to \S+/);

    const queued = await run(['reindex', '--rebuild', '--no-wait', '--json'], env);
    expect(queued.status, queued.stderr).toBe(0);
    const {
      queued: [id],
    } = JSON.parse(queued.stdout) as { queued: string[] };
    expect(id).toEqual(expect.any(String));
    // Returned before the worker finished it: let it finish here, so the file ends with no job in flight.
    await waitFor(
      async () => ['completed', 'failed'].includes((await (await running.queue!.queue.getJob(id))?.getState()) ?? 'completed'),
      60_000,
      'queued rebuild done',
    );
  });

  it('labbot reindex --rebuild --source is refused with the reason, before anything is queued', async () => {
    const r = await run(['reindex', '--rebuild', '--source', 'sops'], env);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--rebuild builds a new index of every source .* cannot be limited to one --source/);
    expect(r.stdout).toBe('');
  });
});
