// Starts a real Chroma server (the chromadb package's CLI) as a child process when no CHROMA_URL
// is configured. One process, bound to 127.0.0.1 on a free port, data under the given directory.
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';

export interface ChromaServer {
  url: string;
  port: number;
  /** The child's process id. */
  pid: number | undefined;
  /** Resolves when the child exits, for any reason (a stop, a crash, kill -9). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

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

export async function startChromaServer(dataDir: string, opts: { timeoutMs?: number; port?: number } = {}): Promise<ChromaServer> {
  mkdirSync(dataDir, { recursive: true });
  const port = opts.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [chromaCli(), 'run', '--path', dataDir, '--host', '127.0.0.1', '--port', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.once('exit', (code, signal) => r({ code, signal })));
  let output = '';
  const keep = (b: Buffer) => {
    output = (output + b.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  try {
    await waitForHeartbeat(url, opts.timeoutMs ?? 30_000, child);
  } catch (err) {
    child.kill('SIGKILL');
    throw new Error(`Could not start Chroma (${(err as Error).message}). Output:\n${output}`);
  }
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  return { url, port, pid: child.pid, exited, stop };
}
