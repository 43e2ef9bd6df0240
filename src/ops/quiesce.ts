// Holds indexing still while a backup reads, on a running system: the queue is paused for every
// worker on every machine (BullMQ's global pause: running jobs finish, none start), and the
// backup waits for the running ones. Questions, Slack and webhooks go on; webhooks and polls
// queue their jobs, which run once the queue resumes.
//
// One backup at a time: a lease key, refreshed while the backup runs. A backup that pauses the
// queue notes it in Redis first, so that one killed before it could resume (kill -9, a crash) is
// recognised by the next backup, which then resumes the queue when it is done. A queue that was
// already paused by someone else (an admin on the dashboard) is left paused.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import type { Redis } from '../store/redis.ts';

export const leaseKey = (ns: string) => `${ns}:backup:lease`;
export const pausedKey = (ns: string) => `${ns}:backup:paused`;
const LEASE_MS = 60_000;

export class BackupBusyError extends Error {}

export interface IndexingPause {
  /** This backup paused the queue (or took over the pause of a backup that died). */
  pausedByUs: boolean;
  /** Jobs that were running when the pause began. */
  waitedFor: number;
  /** Resumes the queue if this backup paused it, and gives the lease up. Safe to call twice. */
  release(): Promise<void>;
}

export interface PauseOptions {
  timeoutMs: number;
  pollMs?: number;
  onWaiting?: (active: number, initial: number) => void;
  /** Throws when the backup was interrupted. */
  aborted?: () => void;
}

export async function pauseIndexing(queue: Queue, redis: Redis, ns: string, opts: PauseOptions): Promise<IndexingPause> {
  const token = randomUUID();
  const holder = JSON.stringify({ token, pid: process.pid, host: hostname(), at: new Date().toISOString() });
  if ((await redis.set(leaseKey(ns), holder, 'PX', LEASE_MS, 'NX')) !== 'OK') {
    const other = (await redis.get(leaseKey(ns))) ?? '{}';
    const { pid, host, at } = JSON.parse(other) as { pid?: number; host?: string; at?: string };
    throw new BackupBusyError(`another labbot backup is running (pid ${pid} on ${host}, since ${at}); try again when it has finished`);
  }
  const refresh = setInterval(() => void redis.pexpire(leaseKey(ns), LEASE_MS).catch(() => undefined), LEASE_MS / 3);
  refresh.unref();
  let released = false;
  let pausedByUs = false;
  const release = async () => {
    if (released) return;
    released = true;
    clearInterval(refresh);
    if (pausedByUs) {
      await queue.resume();
      await redis.del(pausedKey(ns));
    }
    const now = await redis.get(leaseKey(ns));
    if (now && (JSON.parse(now) as { token?: string }).token === token) await redis.del(leaseKey(ns));
  };
  try {
    const wasPaused = await queue.isPaused();
    const leftByBackup = (await redis.exists(pausedKey(ns))) === 1;
    if (!wasPaused || leftByBackup) {
      // Noted before pausing: a backup killed between the two leaves the note, never a silent pause.
      await redis.set(pausedKey(ns), holder);
      pausedByUs = true;
      if (!wasPaused) await queue.pause();
    }
    const initial = await queue.getActiveCount();
    const deadline = Date.now() + opts.timeoutMs;
    for (let active = initial; active > 0; active = await queue.getActiveCount()) {
      opts.aborted?.();
      opts.onWaiting?.(active, initial);
      if (Date.now() > deadline) {
        throw new BackupBusyError(
          `${active} indexing job(s) still running after ${Math.round(opts.timeoutMs / 1000)} ` +
            `s (a rebuild or a large sync?); the queue was resumed. Try again later, ` +
            `or wait longer with --wait <seconds>.`,
        );
      }
      await new Promise((r) => setTimeout(r, opts.pollMs ?? 500));
    }
    opts.onWaiting?.(0, initial);
    return { pausedByUs, waitedFor: initial, release };
  } catch (err) {
    await release();
    throw err;
  }
}
