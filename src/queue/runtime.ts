// The queue side of a process: the `labbot-index` queue, optionally a worker, and the polling
// schedules of sources that ask for them.
import type { Queue, Worker } from 'bullmq';
import { bullConnection } from '../store/redis.ts';
import { openIndexQueue } from './jobs.ts';
import { type IndexWork, startIndexWorker } from './worker.ts';

export interface QueueRuntime {
  queue: Queue;
  worker: Worker | undefined;
  /** Stops taking jobs; an active job finishes (or is released for another worker) first. */
  close(): Promise<void>;
}

export async function startQueueRuntime(
  app: IndexWork,
  opts: { worker: boolean; lockDurationMs?: number; stalledIntervalMs?: number },
): Promise<QueueRuntime> {
  const connection = bullConnection(app.config.redisUrl);
  const prefix = `${app.ns}:bull`;
  const queue = openIndexQueue(connection, prefix, app.config.queue);
  queue.on('error', (err) => app.log.warn({ err: err.message }, 'queue connection error'));
  const worker = opts.worker
    ? startIndexWorker(app, queue, {
        connection,
        prefix,
        concurrency: app.config.queue.concurrency,
        log: app.log,
        lockDurationMs: opts.lockDurationMs ?? app.config.queue.lockMs,
        stalledIntervalMs: opts.stalledIntervalMs ?? Math.max(500, Math.round(app.config.queue.lockMs / 2)),
      })
    : undefined;
  // Polling: one job scheduler per source (BullMQ 6 ignores `repeat` on add).
  const wanted = new Set<string>();
  for (const s of app.config.sources) {
    if (!s.poll) continue;
    wanted.add(`poll-${s.id}`);
    await queue.upsertJobScheduler(`poll-${s.id}`, { every: s.poll }, { name: 'sync-source', data: { source: s.id, reason: 'poll' } });
  }
  for (const sch of await queue.getJobSchedulers()) {
    if (sch.key.startsWith('poll-') && !wanted.has(sch.key)) await queue.removeJobScheduler(sch.key);
  }
  return {
    queue,
    worker,
    async close() {
      await worker?.close();
      await queue.close();
    },
  };
}
