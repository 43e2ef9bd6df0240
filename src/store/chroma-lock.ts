// Who serves a data dir's embedded Chroma. `<data dir>/chroma.json` names the labbot process that
// owns it (and started it), the server's and its keeper's pids and its URL; every labbot process
// on that data dir (serve, worker, CLI commands) reads it. The file is claimed with an exclusive
// create, so two processes starting at once cannot both start a server; a claim whose owner is
// gone is stale and cleaned up. On Linux /proc also shows any Chroma serving the directory that
// the file does not name (a labbot whose file was deleted, or one started by hand).
import { readFileSync, readdirSync, readlinkSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CHROMA_DIR_MARK } from './chroma-server.ts';

export interface ChromaLock {
  ownerPid: number;
  /** The owner's start time (/proc/<pid>/stat), so a pid reused after a reboot is not taken for it. */
  ownerStart?: string;
  state: 'starting' | 'up';
  url?: string;
  chromaPid?: number;
  keeperPid?: number;
  dir: string;
  at: string;
}

export const lockPath = (dataDir: string) => path.join(dataDir, 'chroma.json');

/** The process's start time in clock ticks since boot (Linux), or undefined where /proc is not there. */
export function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command (which may hold spaces) start after the last ')'; starttime is field 22.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** The process runs (a zombie, exited but not yet reaped, does not count). */
export function isAlive(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc here: kill(0) is all we know
  }
}

/** The lock's owner still runs (the same process, not a later one given its pid). */
export function ownerAlive(lock: ChromaLock): boolean {
  if (!isAlive(lock.ownerPid)) return false;
  const start = processStart(lock.ownerPid);
  return !lock.ownerStart || !start || start === lock.ownerStart;
}

/** The lock file's text and, when it is a valid lock, the lock; undefined when there is no file. */
export function readLock(dataDir: string): { lock?: ChromaLock; raw: string } | undefined {
  let raw: string;
  try {
    raw = readFileSync(lockPath(dataDir), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    const v = JSON.parse(raw) as Partial<ChromaLock> & { pid?: number };
    // Written by labbot before owners were recorded: { pid, url }.
    if (typeof v.pid === 'number' && v.ownerPid === undefined)
      return { lock: { ownerPid: v.pid, state: 'up', url: v.url, dir: '', at: '' }, raw };
    if (typeof v.ownerPid !== 'number' || (v.state !== 'starting' && v.state !== 'up')) return { raw };
    return { lock: v as ChromaLock, raw };
  } catch {
    return { raw };
  }
}

/** Claims the data dir's Chroma for this process: false when a lock file exists. */
export function claimLock(dataDir: string, dir: string): boolean {
  const lock: ChromaLock = {
    ownerPid: process.pid,
    ownerStart: processStart(process.pid),
    state: 'starting',
    dir,
    at: new Date().toISOString(),
  };
  try {
    writeFileSync(lockPath(dataDir), JSON.stringify(lock), { flag: 'wx' });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

/** Rewrites our lock (atomically: readers never see half a file). */
export function writeLock(dataDir: string, lock: ChromaLock): void {
  const tmp = `${lockPath(dataDir)}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(lock));
  renameSync(tmp, lockPath(dataDir));
}

/** Removes the lock only if it is still the one that was read (`raw`), or still names `ownerPid`. */
export function removeLock(dataDir: string, expect: { raw: string } | { ownerPid: number }): void {
  let raw: string;
  try {
    raw = readFileSync(lockPath(dataDir), 'utf8');
  } catch {
    return;
  }
  if ('raw' in expect ? raw !== expect.raw : readLock(dataDir)?.lock?.ownerPid !== expect.ownerPid) return;
  try {
    unlinkSync(lockPath(dataDir));
  } catch {
    // already gone
  }
}

export interface ServingProcess {
  pid: number;
  /** Started by labbot (its keeper marks the environment with the directory). */
  ours: boolean;
  ppid: number;
}

/**
 * Chroma servers whose `run --path` is `dir` (Linux: /proc; elsewhere none are found). A server
 * is labbot's when its environment carries the keeper's mark for that directory.
 */
export function chromaServing(dir: string): ServingProcess[] {
  const want = path.resolve(dir);
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return [];
  }
  const found: ServingProcess[] = [];
  for (const p of pids) {
    const pid = Number(p);
    if (pid === process.pid) continue;
    try {
      const argv = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
      const at = argv.indexOf('--path');
      if (at < 0 || !argv.includes('run') || !argv.some((a) => /chroma/i.test(a))) continue;
      const cwd = readlinkSync(`/proc/${p}/cwd`);
      if (path.resolve(cwd, argv[at + 1] ?? '') !== want) continue;
      let ours = false;
      try {
        ours = readFileSync(`/proc/${p}/environ`, 'utf8').split('\0').includes(`${CHROMA_DIR_MARK}=${want}`);
      } catch {
        // another user's process: not ours to stop
      }
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      found.push({ pid, ours, ppid });
    } catch {
      // gone meanwhile, or not readable
    }
  }
  return found;
}

/** Stops a process (SIGTERM, SIGKILL after `graceMs`) and waits until it is gone. */
export async function stopProcess(pid: number, graceMs = 3000): Promise<void> {
  const sig = (s: NodeJS.Signals) => {
    try {
      process.kill(pid, s);
    } catch {
      // gone
    }
  };
  sig('SIGTERM');
  const deadline = Date.now() + graceMs;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  if (isAlive(pid)) sig('SIGKILL');
  for (let i = 0; i < 40 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 50));
}
