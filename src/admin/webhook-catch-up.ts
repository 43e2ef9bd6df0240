// Deliveries a webhook had to refuse (the queue unreachable: Redis down or too slow) are not
// left to the sender: GitHub never retries a delivery, and GitLab disables a hook that keeps
// failing. Each source that missed one is remembered here, and a sync of the whole source (a git
// diff since the last synced commit, or a full listing of a folder) is queued as soon as the
// queue answers again, which covers every change the refused deliveries announced.
import type { Queue } from 'bullmq';
import type { Logger } from 'pino';
import { enqueueSync } from '../queue/jobs.ts';

export interface CatchUp {
  /** A delivery for this source could not be queued. */
  missed(source: string): void;
  /** A delivery answered 503 for being slow was queued after all: it needs no catch-up. */
  queuedLate(source: string): void;
  /** Queues a catch-up sync for every source that missed deliveries; keeps those it could not queue. */
  flush(): Promise<void>;
  /** Sources still waiting for their catch-up sync. */
  pending(): string[];
}

export function createCatchUp(queue: Queue | undefined, log: Logger): CatchUp {
  const missed = new Map<string, number>();
  let flushing: Promise<void> | undefined;
  const flushOnce = async () => {
    if (!queue) return;
    for (const [source, count] of [...missed]) {
      try {
        const job = await enqueueSync(queue, { source, reason: `catch-up: ${count} webhook deliveries could not be queued` });
        // Deliveries refused while this one was being queued stay for the next flush.
        if (missed.get(source) === count) missed.delete(source);
        else missed.set(source, (missed.get(source) ?? count) - count);
        log.warn({ source, deliveries: count, job }, 'queued a catch-up sync for webhook deliveries that could not be queued');
      } catch (err) {
        log.warn({ source, err: (err as Error).message }, 'the catch-up sync could not be queued yet');
      }
    }
  };
  return {
    missed(source) {
      missed.set(source, (missed.get(source) ?? 0) + 1);
    },
    queuedLate(source) {
      const n = (missed.get(source) ?? 0) - 1;
      if (n > 0) missed.set(source, n);
      else missed.delete(source);
    },
    flush() {
      if (missed.size === 0) return Promise.resolve();
      flushing ??= flushOnce().finally(() => (flushing = undefined));
      return flushing;
    },
    pending: () => [...missed.keys()],
  };
}
