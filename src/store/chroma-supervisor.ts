// Which Chroma a process uses (connectChroma: CHROMA_URL, another labbot's on the same data dir,
// or its own), and its own embedded server, supervised: when the child exits without being asked
// to (a crash, the OOM killer, kill -9), the exit is logged and the server is started again on the
// same port and data directory, with exponential backoff while it keeps failing. Hand-written
// because the child is ours to restart in-process; a process manager would restart labbot, not
// its child.
//
// One Chroma per data dir, always stopped with its owner:
//  - `<data dir>/chroma.json` (chroma-lock.ts) is claimed by exclusive create before a server is
//    started, so two processes starting at once never start two;
//  - a live owner's server is shared (a CLI command beside `serve`, as before);
//  - a server left by an owner that is gone (its keeper failed to stop it, or it predates the
//    keeper) is stopped and replaced, not adopted: an adopted server is no process's child, so
//    nothing would stop it when the adopter dies in turn; replacing costs about a second;
//  - a server labbot did not start (no keeper mark) is refused: the start fails naming its pid;
//  - the owner stops its server on every exit path: stop() at shutdown, an 'exit' handler for
//    process.exit (the forced exit) and uncaught exceptions, and the keeper for kill -9.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import {
  chromaServing,
  claimLock,
  isAlive,
  lockPath,
  ownerAlive,
  processStart,
  readLock,
  removeLock,
  stopProcess,
  writeLock,
  type ChromaLock,
} from './chroma-lock.ts';
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
  /** The running server's and keeper's pids (they change when it is restarted). */
  pids(): { chroma?: number; keeper?: number };
  stop(): Promise<void>;
}

export interface SupervisorOptions {
  /** First restart delay; doubled after each failed or short-lived run, up to maxDelayMs. */
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** A run at least this long resets the delay. */
  stableMs?: number;
  /** Called after each (re)start with the new server. */
  onStart?: (server: ChromaServer) => void;
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
        opts.onStart?.(server);
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
    pids: () => ({ chroma: server.pid, keeper: server.keeperPid }),
    async stop() {
      stopping = true;
      if (timer) clearTimeout(timer);
      wake?.();
      setState('stopped');
      await server.stop();
    },
  };
}

export interface ChromaConnection {
  url: string;
  supervised?: SupervisedChroma;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const heartbeatOk = (url: string) =>
  waitForHeartbeat(url, 2000).then(
    () => true,
    () => false,
  );

/** How long a start waits for another live labbot's Chroma to come up before it gives up. */
const WAIT_FOR_OWNER_MS = 60_000;
/** A chroma.json that stays unreadable this long (not one being written) counts as stale. */
const UNREADABLE_MS = 2000;

/**
 * CHROMA_URL when set; else the Chroma another live labbot process owns on this data dir; else a
 * supervised one of our own, under the data dir (see the rules at the top of this file).
 */
export async function connectChroma(config: { chromaUrl: string | undefined; dataDir: string }, log: Logger): Promise<ChromaConnection> {
  if (config.chromaUrl) {
    await waitForHeartbeat(config.chromaUrl, 10_000).catch((err: Error) => {
      throw new Error(`Chroma at CHROMA_URL=${config.chromaUrl} is not reachable: ${err.message}`);
    });
    return { url: config.chromaUrl, stop: async () => undefined };
  }
  mkdirSync(config.dataDir, { recursive: true });
  const dir = path.resolve(config.dataDir, 'chroma');
  const deadline = Date.now() + WAIT_FOR_OWNER_MS;
  let unreadableSince: number | undefined;
  for (;;) {
    if (claimLock(config.dataDir, dir)) return startOwned(config.dataDir, dir, log);
    const read = readLock(config.dataDir);
    if (!read) continue; // removed meanwhile: claim again
    const { lock, raw } = read;
    if (!lock && Date.now() - (unreadableSince ??= Date.now()) < UNREADABLE_MS) {
      await sleep(50); // being written
      continue;
    }
    if (lock && ownerAlive(lock)) {
      if (lock.state === 'up' && lock.url && (await heartbeatOk(lock.url))) {
        log.debug({ url: lock.url, owner: lock.ownerPid }, 'reusing the Chroma server started by another labbot process');
        return { url: lock.url, stop: async () => undefined };
      }
      if (Date.now() > deadline) {
        throw new Error(
          `labbot process ${lock.ownerPid} owns the Chroma server of ${config.dataDir} ` +
            `(${lockPath(config.dataDir)}) but it does not answer${lock.url ? ` at ${lock.url}` : ''}; ` +
            `stop that process, or set CHROMA_URL.`,
        );
      }
      await sleep(200); // starting, or restarting after a crash
      continue;
    }
    // Stale: the owner is gone. Whatever it left serving the directory is dealt with once we own it.
    log.warn(
      { ownerPid: lock?.ownerPid, chromaPid: lock?.chromaPid, file: lockPath(config.dataDir) },
      'chroma.json names a labbot process that is gone: removing it',
    );
    removeLock(config.dataDir, { raw });
    unreadableSince = undefined;
  }
}

/** This process holds chroma.json: clear what is left on the directory, start ours, keep the file true. */
async function startOwned(dataDir: string, dir: string, log: Logger): Promise<ChromaConnection> {
  const mine = { ownerPid: process.pid };
  let supervised: SupervisedChroma;
  const record = (server: ChromaServer) => {
    const lock: ChromaLock = {
      ownerPid: process.pid,
      ownerStart: processStart(process.pid),
      state: 'up',
      url: server.url,
      chromaPid: server.pid,
      keeperPid: server.keeperPid,
      dir,
      at: new Date().toISOString(),
    };
    writeLock(dataDir, lock);
  };
  try {
    const serving = chromaServing(dir);
    const foreign = serving.filter((p) => !p.ours);
    if (foreign.length) {
      throw new Error(
        `A Chroma server labbot did not start (pid ${foreign.map((p) => p.pid).join(', ')}) ` +
          `is serving ${dir}; labbot will not run a second one on the same directory. ` +
          `Stop it, or point labbot at it with CHROMA_URL.`,
      );
    }
    for (const p of serving) {
      log.warn({ pid: p.pid, dir }, 'stopping a Chroma server left on this data dir by a labbot process that is gone');
      await stopProcess(p.pid);
    }
    supervised = await startSupervisedChroma(dir, log, { onStart: record });
  } catch (err) {
    removeLock(dataDir, mine);
    throw err;
  }
  const first = supervised.pids();
  writeLock(dataDir, {
    ownerPid: process.pid,
    ownerStart: processStart(process.pid),
    state: 'up',
    url: supervised.url,
    chromaPid: first.chroma,
    keeperPid: first.keeper,
    dir,
    at: new Date().toISOString(),
  });
  // process.exit (the forced exit at shutdown) and an uncaught exception end the process without
  // stop(): stop the server on the way out (synchronously: SIGTERM; its keeper SIGKILLs it 3 s
  // later if need be) and give up the file.
  const onExit = () => {
    const { chroma, keeper } = supervised.pids();
    for (const pid of [keeper, chroma]) {
      try {
        if (isAlive(pid)) process.kill(pid!, 'SIGTERM');
      } catch {
        // gone
      }
    }
    removeLock(dataDir, mine);
  };
  process.on('exit', onExit);
  log.info({ url: supervised.url, dir, pid: first.chroma }, 'started a local Chroma server');
  return {
    url: supervised.url,
    supervised,
    stop: async () => {
      process.off('exit', onExit);
      await supervised.stop();
      // Only once it is down: a start meanwhile waits instead of starting a second one.
      removeLock(dataDir, mine);
    },
  };
}
