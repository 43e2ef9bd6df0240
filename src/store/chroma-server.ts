// Starts a real Chroma server (the chromadb package's CLI) as a child process when no CHROMA_URL
// is configured. One server, bound to 127.0.0.1 on a free port, data under the given directory.
//
// It runs under a small keeper process (KEEPER below) so that it never outlives labbot: the keeper
// starts Chroma, and when its IPC channel to labbot closes (labbot exited by any path, including
// kill -9, where no handler of ours runs) it stops Chroma (SIGTERM, SIGKILL after 3 s). The
// keeper is in its own process group, so a Ctrl-C meant for labbot does not stop Chroma under
// the answers labbot is still finishing; labbot stops it itself at the end of its shutdown.
// Hand-written: Linux's "die with the parent" (PR_SET_PDEATHSIG) is not reachable from Node, and
// an IPC channel closes whenever a process dies.
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';

export interface ChromaServer {
  url: string;
  port: number;
  /** The Chroma server's process id. */
  pid: number | undefined;
  /** The keeper's process id (Chroma's parent, which stops it when labbot is gone). */
  keeperPid: number | undefined;
  /** Resolves when the server exits, for any reason (a stop, a crash, kill -9 of it or of its keeper). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

/** Environment the keeper gives Chroma: marks a server as labbot's own, for the data dir it serves. */
export const CHROMA_DIR_MARK = 'LABBOT_CHROMA_DIR';

// The keeper: argv = [data dir mark, chroma cli, ...chroma args]. Reports Chroma's pid and exit
// over IPC; stops Chroma when labbot goes (IPC disconnect) or asks (SIGTERM); exits with it.
const KEEPER = `
process.title = 'labbot-chroma-keeper';
const { spawn } = require('node:child_process');
const [mark, cli, ...args] = process.argv.slice(1);
const env = Object.assign({}, process.env, { ${CHROMA_DIR_MARK}: mark });
const chroma = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'inherit', 'inherit'], env });
let killer;
const stop = () => {
  if (chroma.exitCode !== null || chroma.signalCode !== null) return;
  chroma.kill('SIGTERM');
  if (!killer) killer = setTimeout(() => chroma.kill('SIGKILL'), 3000);
};
process.on('disconnect', stop);
process.on('SIGTERM', stop);
process.on('SIGINT', () => undefined);
if (process.connected) process.send({ chromaPid: chroma.pid });
chroma.on('exit', (code, signal) => {
  clearTimeout(killer);
  const done = () => process.exit(code === null ? 1 : code);
  if (process.connected) process.send({ exit: { code, signal } }, () => { process.disconnect(); done(); });
  else done();
});
`;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function chromaCli(): string {
  // chromadb's exports map hides package.json and the CLI: find the package root from its entry.
  const entry = createRequire(import.meta.url).resolve('chromadb');
  const root = entry.slice(0, entry.lastIndexOf(`${path.sep}dist${path.sep}`));
  return path.join(root, 'dist', 'cli.mjs');
}

export async function waitForHeartbeat(url: string, timeoutMs: number, child?: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError = '';
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) throw new Error(`Chroma exited with code ${child.exitCode} before it was ready`);
    try {
      const res = await fetch(`${url}/api/v2/heartbeat`);
      if (res.ok) return;
      lastError = `HTTP ${res.status}`;
    } catch (err) {
      lastError = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`Chroma at ${url} did not answer its heartbeat within ${timeoutMs} ms (${lastError})`);
}

const alive = (pid: number | undefined) => {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};
const signal = (pid: number | undefined, sig: NodeJS.Signals) => {
  try {
    if (pid) process.kill(pid, sig);
  } catch {
    // already gone
  }
};

export async function startChromaServer(dataDir: string, opts: { timeoutMs?: number; port?: number } = {}): Promise<ChromaServer> {
  mkdirSync(dataDir, { recursive: true });
  const port = opts.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const args = [path.resolve(dataDir), chromaCli(), 'run', '--path', path.resolve(dataDir), '--host', '127.0.0.1', '--port', String(port)];
  const keeper = spawn(process.execPath, ['-e', KEEPER, ...args], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'], detached: true });
  let chromaPid: number | undefined;
  let reported: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  keeper.on('message', (m: { chromaPid?: number; exit?: { code: number | null; signal: NodeJS.Signals | null } }) => {
    if (m.chromaPid) chromaPid = m.chromaPid;
    if (m.exit) reported = m.exit;
  });
  // Chroma's own exit as the keeper reported it; a keeper that died without reporting (kill -9 of
  // it) takes its server down here, so nothing is left serving the data dir.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    keeper.once('exit', (code, sig) => {
      if (!reported && alive(chromaPid)) signal(chromaPid, 'SIGKILL');
      r(reported ?? { code, signal: sig });
    }),
  );
  // Our handles must not keep labbot's event loop alive (stop() ends the keeper when it should).
  keeper.unref();
  keeper.channel?.unref();
  let output = '';
  const keep = (b: Buffer) => {
    output = (output + b.toString()).slice(-4000);
  };
  keeper.stdout?.on('data', keep);
  keeper.stderr?.on('data', keep);
  (keeper.stdout as unknown as { unref?: () => void } | null)?.unref?.();
  (keeper.stderr as unknown as { unref?: () => void } | null)?.unref?.();
  const stop = async () => {
    if (keeper.exitCode !== null || keeper.signalCode !== null) return;
    signal(keeper.pid, 'SIGTERM');
    // The keeper stops Chroma within 3 s (SIGKILL then); past that, both go.
    const timer = setTimeout(() => {
      signal(chromaPid, 'SIGKILL');
      signal(keeper.pid, 'SIGKILL');
    }, 5000);
    await exited;
    clearTimeout(timer);
  };
  try {
    await waitForHeartbeat(url, opts.timeoutMs ?? 30_000, keeper);
  } catch (err) {
    signal(chromaPid, 'SIGKILL');
    signal(keeper.pid, 'SIGKILL');
    throw new Error(`Could not start Chroma (${(err as Error).message}). Output:\n${output}`);
  }
  // The pid message arrives before Chroma can answer; wait for it in the rare case it has not.
  for (let i = 0; i < 50 && !chromaPid; i++) await new Promise((r) => setTimeout(r, 20));
  return {
    url,
    port,
    get pid() {
      return chromaPid;
    },
    keeperPid: keeper.pid,
    exited,
    stop,
  };
}
