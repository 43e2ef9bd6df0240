// `labbot serve` as a real process, stopped the ways a lab's server stops it. SIGTERM mid-answer:
// the question's thread says labbot is restarting before the process exits, within the
// shutdown budget (src/shutdown.ts), and the embedded Chroma stops with it. kill -9 of labbot, the
// forced exit and an uncaught exception: the Chroma stops too (its keeper; the exit handler). A
// start finds a Chroma already serving the data dir: one labbot left is stopped and replaced, one
// labbot did not start is refused; never a second server on the same directory.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { enqueueDoc, openIndexQueue } from '../src/queue/jobs.ts';
import { bullConnection } from '../src/store/redis.ts';
import { chromaServing, isAlive } from '../src/store/chroma-lock.ts';
import { CHROMA_DIR_MARK, freePort, waitForHeartbeat } from '../src/store/chroma-server.ts';
import { testEnv } from './helpers/app.ts';
import { chatEnv, startFakeOpenAI } from './helpers/fake-openai.ts';
import { startFakeSlack } from './helpers/fake-slack.ts';
import { TEST_REDIS_URL } from './helpers/redis-namespaces.ts';
import { startLabbot, type LabbotProcess } from './helpers/serve-process.ts';
import { SIGNING_SECRET, slackEnv } from './helpers/slack-bot.ts';
import { eventRequest, mentionEnvelope, post } from './helpers/slack-request.ts';
import { shownText } from './helpers/slack-interact.ts';
import { waitFor } from './helpers/wait.ts';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterAll(async () => {
  while (cleanups.length) {
    const next = cleanups.pop()!;
    await (async () => next())().catch(() => undefined); // a process already gone throws ESRCH
  }
});

/** An environment for `serve` with its own data dir and embedded Chroma (no CHROMA_URL). */
function serveEnv(extra: Record<string, string> = {}): { env: Record<string, string>; chromaDir: string; dataDir: string; folder: string } {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'labbot-stop-docs-'));
  writeFileSync(
    path.join(folder, 'freezer.md'),
    '# Freezer\n\nThe minus eighty freezer is defrosted every March; samples move to rack KESTREL7 meanwhile.\n',
  );
  const env = testEnv({
    env: { LABBOT_PORT: '0', LOG_LEVEL: 'info', ...extra },
    fileConfig: { sources: [{ id: 'docs', type: 'folder', path: folder }] },
  });
  delete env.CHROMA_URL;
  return { env, dataDir: env.LABBOT_DATA_DIR, chromaDir: path.join(env.LABBOT_DATA_DIR, 'chroma'), folder };
}

function start(env: Record<string, string>): LabbotProcess {
  const p = startLabbot(['serve'], env);
  cleanups.push(() => p.child.kill('SIGKILL'));
  return p;
}

/** Chroma servers (any) serving the directory, and a check that none is left after `ms`. */
const serving = (dir: string) => chromaServing(dir).map((p) => p.pid);
const noneLeft = (dir: string) => waitFor(async () => serving(dir).length === 0, 10_000, `no Chroma serving ${dir}`);

describe('serve stops cleanly, and its Chroma with it', () => {
  it('SIGTERM mid-answer: the thread says labbot is restarting, the process exits before the forced exit, Chroma stops', async () => {
    const fake = await startFakeSlack();
    const openai = await startFakeOpenAI();
    cleanups.push(
      () => fake.close(),
      () => openai.close(),
    );
    openai.chatDelayMs = 120_000; // a model that does not answer in time
    const { env, chromaDir, dataDir } = serveEnv({ ...slackEnv(fake.apiUrl), ...chatEnv(openai) });
    const p = start(env);
    const url = String((await p.waitForLog(/labbot is serving/, 90_000)).url);
    const chromas = chromaServing(chromaDir);
    expect(chromas).toHaveLength(1);
    const lock = JSON.parse(readFileSync(path.join(dataDir, 'chroma.json'), 'utf8')) as Record<string, unknown>;

    expect(
      (
        await post(
          `${url}/slack/events`,
          eventRequest(SIGNING_SECRET, mentionEnvelope({ text: 'Where do samples go while the freezer is defrosted?', channel: 'CSTOP' })),
        )
      ).status,
    ).toBe(200);
    // labbot at work: a status line under the question (no placeholder message).
    await fake.waitFor(() => fake.conversation.statusLog.find((s) => s.key.startsWith('CSTOP:')), 30_000);
    await waitFor(async () => openai.requests.some((r) => r.path.endsWith('/chat/completions')), 30_000, 'the model asked');

    p.child.kill('SIGTERM');
    const exit = await p.exited;
    // 0: close() finished; the forced exit (SHUTDOWN_BUDGET.forcedExitMs) would have been 1.
    expect(exit).toEqual({ code: 0, signal: null });
    expect(fake.conversation.visible('CSTOP').map(shownText)).toEqual([expect.stringMatching(/labbot is restarting/)]);
    expect(isAlive(chromas[0].pid)).toBe(false);
    expect(serving(chromaDir)).toEqual([]);
    expect(existsSync(path.join(dataDir, 'chroma.json'))).toBe(false);
    expect(lock).toMatchObject({ ownerPid: p.pid, chromaPid: chromas[0].pid, state: 'up' });
  }, 120_000);

  it('kill -9 of labbot: its Chroma and the keeper stop too', async () => {
    const { env, chromaDir, dataDir } = serveEnv({ LABBOT_WORKER: 'off' });
    const p = start(env);
    await p.waitForLog(/labbot is serving/, 90_000);
    const [chroma] = serving(chromaDir);
    p.child.kill('SIGKILL');
    await p.exited;
    await noneLeft(chromaDir);
    expect(isAlive(chroma)).toBe(false);
    const lock = JSON.parse(readFileSync(path.join(dataDir, 'chroma.json'), 'utf8')) as { chromaPid: number; keeperPid: number };
    expect(lock.chromaPid).toBe(chroma);
    await waitFor(async () => !isAlive(lock.keeperPid), 10_000, 'the keeper gone');

    // The next start finds the stale chroma.json (its owner is gone), removes it and starts one server.
    const next = start(env);
    await next.waitForLog(/labbot is serving/, 90_000);
    expect(next.logs().some((l) => /chroma.json names a labbot process that is gone/.test(String(l.msg)))).toBe(true);
    expect(serving(chromaDir)).toHaveLength(1);
    next.child.kill('SIGTERM');
    expect((await next.exited).code).toBe(0);
    await noneLeft(chromaDir);
  }, 120_000);

  it('the forced exit (a job that outlasts the budget) still stops Chroma', async () => {
    const openai = await startFakeOpenAI({ dimensions: 32 });
    cleanups.push(() => openai.close());
    const { env, chromaDir, folder } = serveEnv({
      EMBEDDINGS: 'openai',
      LLM: 'none',
      OPENAI_BASE_URL: openai.baseURL,
      OPENAI_API_KEY: 'test',
    });
    const p = start(env);
    await p.waitForLog(/labbot is serving/, 90_000);
    const [chroma] = serving(chromaDir);
    writeFileSync(path.join(folder, 'stuck.md'), '# Stuck\n\nThis page is embedded by a model that never answers.\n');
    openai.embedDelayMs = 120_000;
    const queue = openIndexQueue(bullConnection(TEST_REDIS_URL), `labbot:${env.LABBOT_COLLECTION}:bull`, loadConfig(env).queue);
    cleanups.push(() => queue.close());
    await enqueueDoc(queue, 'index-doc', { source: 'docs', path: 'stuck.md', hash: 'stuck' });
    await waitFor(
      async () => openai.requests.some((r) => r.path.endsWith('/embeddings') && JSON.stringify(r.body).includes('never answers')),
      30_000,
      'the job embedding',
    );
    p.child.kill('SIGTERM');
    const exit = await p.exited;
    await noneLeft(chromaDir);
    expect(isAlive(chroma)).toBe(false);
    expect(exit.code).toBe(1); // the forced exit
    expect(p.logs().some((l) => /shutdown did not finish in time/.test(String(l.msg)))).toBe(true);
  }, 120_000);
});

describe('a start never runs a second Chroma on a data dir', () => {
  /** A Chroma server on `dir`, started outside labbot; `marked` as labbot's keeper marks its own. */
  async function runChroma(dir: string, marked: boolean): Promise<{ pid: number; url: string }> {
    const entry = createRequire(import.meta.url).resolve('chromadb');
    const cli = path.join(entry.slice(0, entry.lastIndexOf(`${path.sep}dist${path.sep}`)), 'dist', 'cli.mjs');
    const port = await freePort();
    const child = spawn(process.execPath, [cli, 'run', '--path', dir, '--host', '127.0.0.1', '--port', String(port)], {
      env: { ...process.env, ...(marked ? { [CHROMA_DIR_MARK]: path.resolve(dir) } : {}) },
      stdio: 'ignore',
      detached: true,
    });
    child.unref();
    cleanups.push(() => process.kill(child.pid!, 'SIGKILL'));
    const url = `http://127.0.0.1:${port}`;
    await waitForHeartbeat(url, 30_000);
    return { pid: child.pid!, url };
  }

  it('one left by a labbot that is gone (stale chroma.json) is stopped and replaced', async () => {
    const { env, chromaDir, dataDir } = serveEnv({ LABBOT_WORKER: 'off' });
    const orphan = await runChroma(chromaDir, true);
    const gone = spawn(process.execPath, ['-e', '']);
    await new Promise((r) => gone.once('exit', r));
    writeFileSync(
      path.join(dataDir, 'chroma.json'),
      JSON.stringify({
        ownerPid: gone.pid,
        state: 'up',
        url: orphan.url,
        chromaPid: orphan.pid,
        dir: chromaDir,
        at: new Date().toISOString(),
      }),
    );
    const p = start(env);
    await p.waitForLog(/labbot is serving/, 90_000);
    const now = serving(chromaDir);
    expect(now).toHaveLength(1);
    expect(isAlive(orphan.pid)).toBe(false);
    expect(p.logs().some((l) => /stopping a Chroma server left on this data dir/.test(String(l.msg)) && l.pid === orphan.pid)).toBe(true);
    expect(JSON.parse(readFileSync(path.join(dataDir, 'chroma.json'), 'utf8'))).toMatchObject({ ownerPid: p.pid, chromaPid: now[0] });
    // A CLI command beside it shares that server (its owner lives) and leaves it running.
    const cli = startLabbot(['status', '--json'], env);
    expect((await cli.exited).code).toBe(0);
    expect(serving(chromaDir)).toEqual(now);
    p.child.kill('SIGTERM');
    await p.exited;
    await noneLeft(chromaDir);
  }, 120_000);

  it('one labbot did not start is refused: the start fails naming it, and it keeps running', async () => {
    const { env, chromaDir } = serveEnv({ LABBOT_WORKER: 'off' });
    const foreign = await runChroma(chromaDir, false);
    const p = start(env);
    const exit = await p.exited;
    expect(exit.code).toBe(2);
    expect(p.stderr()).toContain(`A Chroma server labbot did not start (pid ${foreign.pid}) is serving ${chromaDir}`);
    expect(serving(chromaDir)).toEqual([foreign.pid]);
  }, 120_000);

  it('an uncaught exception in a process that owns the Chroma stops it on the way out', async () => {
    const { env, chromaDir } = serveEnv();
    // `labbot ask` with a bad retrieval option would exit cleanly; a thrown error after the App is
    // open is what an uncaught exception looks like: a tiny owner script on the same module.
    const script = path.join(mkdtempSync(path.join(os.tmpdir(), 'labbot-throw-')), 'owner.mts');
    writeFileSync(
      script,
      `import { connectChroma } from ${JSON.stringify(path.resolve('src/store/chroma-supervisor.ts'))};\n` +
        `import { createLogger } from ${JSON.stringify(path.resolve('src/log.ts'))};\n` +
        `await connectChroma({ chromaUrl: undefined, dataDir: ${JSON.stringify(env.LABBOT_DATA_DIR)} }, createLogger('silent'));\n` +
        `process.on('SIGUSR2', () => { throw new Error('boom'); });\n` +
        `console.log('owner up');\n` +
        `setInterval(() => undefined, 1000);\n`,
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    cleanups.push(() => child.kill('SIGKILL'));
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    await waitFor(async () => out.includes('owner up') && serving(chromaDir).length === 1, 60_000, 'owner up');
    const [chroma] = serving(chromaDir);
    const exited = new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    // Thrown from a signal handler: an uncaught exception once the test has seen the owner up.
    child.kill('SIGUSR2');
    const code = await exited;
    expect(code).toBe(1);
    expect(out).toContain('boom');
    expect(isAlive(chroma)).toBe(false);
    await noneLeft(chromaDir);
    expect(existsSync(path.join(env.LABBOT_DATA_DIR, 'chroma.json'))).toBe(false);
  }, 120_000);
});
