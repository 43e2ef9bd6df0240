// Following a sync from the outside (CLI `reindex`, Slack `/labbot reindex`): wait for the
// sync-source job, then for the document jobs it enqueued, reporting progress as they finish.
import { QueueEvents, type Job, type Queue } from 'bullmq';
import { syncCovering, type SyncTicket } from './jobs.ts';
import type { SyncResult } from './sync-source.ts';

export interface SyncOutcome {
  source: string;
  /** The sync-source job that covered the request (not always the one BullMQ returned for it). */
  job?: string;
  mode?: SyncResult['mode'];
  commit?: string;
  unchanged: number;
  done: number;
  total: number;
  failed: { job: string; reason: string }[];
  error?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function settled(job: Job | undefined): Promise<'done' | 'failed' | 'pending'> {
  if (!job) return 'done'; // collapsed into another job, or trimmed after completing
  const state = await job.getState();
  if (state === 'completed') return 'done';
  if (state === 'failed') return 'failed';
  return 'pending';
}

/**
 * The sync that covered a request, once it has finished. Not simply the job BullMQ returned: a
 * request made while its source's sync was running is collapsed into that job's id but covered by
 * the next sync (the running one read its requests before this one arrived), so the outcome
 * would be reported early and without this request's documents.
 */
async function coveringSync(queue: Queue, ticket: SyncTicket, pollMs: number, deadline: number): Promise<{ job?: Job; error?: string }> {
  for (;;) {
    const covering = await syncCovering(queue, ticket.request);
    const job = await queue.getJob(covering ?? ticket.jobId);
    const state = await settled(job);
    // The job read above may predate its completion (its state is read live): read it again for
    // its return value, or the outcome would say the sync enqueued nothing.
    if (covering && state === 'done') return { job: (job?.id ? await queue.getJob(job.id) : undefined) ?? job };
    // The job returned for the request failed for good: the request is not covered either.
    if (state === 'failed') return { error: job?.failedReason ?? 'sync failed' };
    // Otherwise (that job finished or was trimmed without covering it) the next sync will.
    if (Date.now() > deadline) return { error: 'timed out waiting for the sync job' };
    await sleep(pollMs);
  }
}

export async function followSync(
  queue: Queue,
  ticket: SyncTicket,
  source: string,
  onUpdate: (o: SyncOutcome) => void = () => undefined,
  opts: { pollMs?: number; timeoutMs?: number } = {},
): Promise<SyncOutcome> {
  const pollMs = opts.pollMs ?? 250;
  const deadline = Date.now() + (opts.timeoutMs ?? 30 * 60_000);
  const outcome: SyncOutcome = { source, unchanged: 0, done: 0, total: 0, failed: [] };
  const { job: sync, error } = await coveringSync(queue, ticket, pollMs, deadline);
  if (error) return { ...outcome, error };
  outcome.job = sync?.id;
  const result = sync?.returnvalue as SyncResult | undefined;
  if (!result) return outcome;
  Object.assign(outcome, { mode: result.mode, commit: result.commit, unchanged: result.unchanged, total: result.jobIds.length });
  onUpdate({ ...outcome });
  let pending = [...new Set(result.jobIds)];
  while (pending.length) {
    const still: string[] = [];
    for (const id of pending) {
      const job = await queue.getJob(id);
      const state = await settled(job);
      if (state === 'pending') still.push(id);
      else {
        outcome.done += 1;
        // The job read above may predate its failure (its state is read live): read its reason again.
        if (state === 'failed')
          outcome.failed.push({ job: id, reason: (await queue.getJob(id))?.failedReason ?? job?.failedReason ?? 'failed' });
      }
    }
    if (still.length !== pending.length) onUpdate({ ...outcome, failed: [...outcome.failed] });
    pending = still;
    if (!pending.length) break;
    if (Date.now() > deadline) return { ...outcome, error: `timed out with ${pending.length} jobs still running` };
    await sleep(pollMs);
  }
  return outcome;
}

export function describeOutcome(o: SyncOutcome): string {
  if (o.error) return `${o.source}: sync failed: ${o.error}`;
  const changed = o.total === 0 ? 'nothing changed' : `${o.done - o.failed.length}/${o.total} changed documents done`;
  const failed = o.failed.length
    ? `; ${o.failed.length} failed: ${o.failed
        .slice(0, 5)
        .map((f) => f.reason)
        .join('; ')}`
    : '';
  return `${o.source}: ${changed}, ${o.unchanged} unchanged${o.commit ? ` (at ${o.commit.slice(0, 8)})` : ''}${failed}`;
}

/**
 * Waits for one job (a rebuild) to finish, through BullMQ's QueueEvents stream, reporting the
 * progress the worker publishes. A job no longer in Redis finished long enough ago to be trimmed.
 */
export async function waitForJob<T>(
  queue: Queue,
  jobId: string,
  onProgress: (progress: unknown) => void = () => undefined,
  timeoutMs = 6 * 60 * 60_000,
): Promise<{ result?: T; error?: string }> {
  const events = new QueueEvents(queue.name, { connection: queue.opts.connection, prefix: queue.opts.prefix });
  try {
    await events.waitUntilReady();
    events.on('progress', ({ jobId: id, data }) => {
      if (id === jobId) onProgress(data);
    });
    const job = await queue.getJob(jobId);
    if (!job) return {};
    return { result: (await job.waitUntilFinished(events, timeoutMs)) as T };
  } catch (err) {
    return { error: (err as Error).message };
  } finally {
    await events.close();
  }
}
