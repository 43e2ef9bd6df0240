// Which Chroma a process uses (connectChroma: CHROMA_URL, another labbot's on the same data dir,
// or its own), and its own embedded server, supervised: when the child exits without being asked
// to (a crash, the OOM killer, kill -9), the exit is logged and the server is started again on the
// same port and data directory, with exponential backoff while it keeps failing. Hand-written
// because the child is ours to restart in-process; a process manager would restart labbot, not
// its child.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { startChromaServer, waitForHeartbeat, type ChromaServer } from './chroma-server.ts';

export type ChromaProcessState = 'up' | 'restarting' | 'stopped';

export interface ChromaProcessStatus {
  state: ChromaProcessState;
  pid: number | undefined;
  /** Restarts after an unexpected exit, since labbot started it. */
  restarts: number;
  lastExit: { code: number | null; signal: string | null; at: string } | undefined;
  /** When the current state began. */
  since: string;
}

export interface SupervisedChroma {
  url: string;
  port: number;
  status(): ChromaProcessStatus;
  stop(): Promise<void>;
}

export interface SupervisorOptions {
  /** First restart delay; doubled after each failed or short-lived run, up to maxDelayMs. */
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** A run at least this long resets the delay. */
  stableMs?: number;
}

export async function startSupervisedChroma(dataDir: string, log: Logger, opts: SupervisorOptions = {}): Promise<SupervisedChroma> {
  const initial = opts.initialDelayMs ?? 250;
  const max = opts.maxDelayMs ?? 30_000;
  const stableMs = opts.stableMs ?? 30_000;
  let server: ChromaServer = await startChromaServer(dataDir);
  const port = server.port;
  let stopping = false;
  let delay = initial;
  let startedAt = Date.now();
  const status: ChromaProcessStatus = { state: 'up', pid: server.pid, restarts: 0, lastExit: undefined, since: new Date().toISOString() };
  const setState = (state: ChromaProcessState) => {
    status.state = state;
    status.since = new Date().toISOString();
  };
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;
  const sleep = (ms: number) =>
    new Promise<void>((r) => {
      wake = r;
      timer = setTimeout(r, ms);
    });

  const watch = (s: ChromaServer) => {
    void s.exited.then(async ({ code, signal }) => {
      if (stopping) return;
      status.lastExit = { code, signal, at: new Date().toISOString() };
      status.pid = undefined;
      setState('restarting');
      delay = Date.now() - startedAt >= stableMs ? initial : delay;
      log.error({ code, signal, port }, 'the embedded Chroma server exited; restarting it');
      while (!stopping) {
        log.warn({ delayMs: delay, attempt: status.restarts + 1 }, 'restarting the embedded Chroma server after a delay');
        await sleep(delay);
        if (stopping) return;
        delay = Math.min(delay * 2, max);
        try {
          server = await startChromaServer(dataDir, { port });
        } catch (err) {
          log.error({ err: (err as Error).message }, 'the embedded Chroma server did not start; trying again');
          continue;
        }
        if (stopping) {
          await server.stop();
          return;
        }
        startedAt = Date.now();
        status.restarts += 1;
        status.pid = server.pid;
        setState('up');
        log.info({ port, pid: server.pid, restarts: status.restarts }, 'the embedded Chroma server is running again');
        watch(server);
        return;
      }
    });
  };
  watch(server);

  return {
    url: server.url,
    port,
    status: () => ({ ...status, lastExit: status.lastExit && { ...status.lastExit } }),
    async stop() {
      stopping = true;
      if (timer) clearTimeout(timer);
      wake?.();
      setState('stopped');
      await server.stop();
    },
  };
}

/** Shared by every process using the same data dir, so a CLI run next to `serve` reuses its Chroma. */
interface ChromaLock {
  pid: number;
  url: string;
}

export interface ChromaConnection {
  url: string;
  supervised?: SupervisedChroma;
  stop(): Promise<void>;
}

/**
 * CHROMA_URL when set; else the Chroma another labbot process started on this data dir; else a
 * supervised one of our own, under the data dir.
 */
export async function connectChroma(config: { chromaUrl: string | undefined; dataDir: string }, log: Logger): Promise<ChromaConnection> {
  if (config.chromaUrl) {
    await waitForHeartbeat(config.chromaUrl, 10_000).catch((err: Error) => {
      throw new Error(`Chroma at CHROMA_URL=${config.chromaUrl} is not reachable: ${err.message}`);
    });
    return { url: config.chromaUrl, stop: async () => undefined };
  }
  const lockFile = path.join(config.dataDir, 'chroma.json');
  if (existsSync(lockFile)) {
    try {
      const lock = JSON.parse(readFileSync(lockFile, 'utf8')) as ChromaLock;
      process.kill(lock.pid, 0);
      await waitForHeartbeat(lock.url, 2000);
      log.debug({ url: lock.url }, 'reusing the Chroma server started by another labbot process');
      return { url: lock.url, stop: async () => undefined };
    } catch {
      // Stale lock: the process that wrote it is gone.
    }
  }
  const dir = path.join(config.dataDir, 'chroma');
  const supervised = await startSupervisedChroma(dir, log);
  writeFileSync(lockFile, JSON.stringify({ pid: process.pid, url: supervised.url } satisfies ChromaLock));
  log.info({ url: supervised.url, dir }, 'started a local Chroma server');
  return {
    url: supervised.url,
    supervised,
    stop: async () => {
      rmSync(lockFile, { force: true });
      await supervised.stop();
    },
  };
}
