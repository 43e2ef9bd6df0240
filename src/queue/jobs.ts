// Job types of the `labbot-index` queue and how their ids are derived, so duplicate triggers
// collapse into one job and two jobs for the same document never run at once.
import { createHash } from 'node:crypto';
import { Queue, type ConnectionOptions, type JobsOptions } from 'bullmq';
import type { Config } from '../config.ts';

export const QUEUE_NAME = 'labbot-index';

export interface SyncSourceData {
  source: string;
  /** Compare every file instead of the git diff since the last synced commit. */
  full?: boolean;
  reason: string;
  /** Paths named by a generic webhook (folder sources): handled without a full listing. */
  changed?: string[];
  deleted?: string[];
}

export interface DocJobData {
  source: string;
  /** Path relative to the source root. */
  path: string;
  /** Content hash when enqueued (index) or of the indexed version (delete); informative. */
  hash?: string;
  /** Git sources: the commit the sync saw; the worker's clone is moved to at least this. */
  commit?: string;
}

export interface RebuildData {
  reason: string;
}

export type JobName = 'sync-source' | 'index-doc' | 'delete-doc' | 'rebuild';

const short = (s: string) => createHash('sha1').update(s).digest('hex').slice(0, 16);
/** BullMQ ids may not contain ':'; document ids do, so they are hashed. */
export const docKey = (source: string, p: string) => short(`${source}\u0000${p}`);

export function openIndexQueue(connection: ConnectionOptions, prefix: string, q: Config['queue']): Queue {
  return new Queue(QUEUE_NAME, {
    connection,
    prefix,
    defaultJobOptions: {
      attempts: q.attempts,
      backoff: { type: 'exponential', delay: q.backoffMs },
      removeOnComplete: { count: q.keepCompleted },
      removeOnFail: { count: q.keepFailed },
    },
  });
}

/**
 * Adds a job whose id derives from what it does. A finished job with the same id is removed
 * first: BullMQ would otherwise return the old job and skip the work (a page deleted, then
 * restored with the same text, must be indexed again).
 */
async function addCollapsing(queue: Queue, name: JobName, data: object, jobId: string, opts: JobsOptions = {}): Promise<string> {
  const existing = await queue.getJob(jobId);
  if (existing) {
    const state = await existing.getState();
    if (state === 'completed' || state === 'failed') await existing.remove().catch(() => undefined);
    else return jobId;
  }
  const job = await queue.add(name, data, { ...opts, jobId });
  return job.id ?? jobId;
}

export function enqueueDoc(queue: Queue, name: 'index-doc' | 'delete-doc', data: DocJobData): Promise<string> {
  const key = docKey(data.source, data.path);
  const tag = name === 'index-doc' ? 'index' : 'delete';
  // One document's jobs share a deduplication id: while one runs, the latest trigger waits
  // behind it (keepLastIfActive), so edits never race each other across workers.
  return addCollapsing(queue, name, data, `${tag}-${key}-${(data.hash ?? 'x').slice(0, 16)}`, {
    deduplication: { id: `doc-${key}`, keepLastIfActive: true },
  });
}

export function enqueueSync(queue: Queue, data: SyncSourceData, deliveryId?: string): Promise<string> {
  const id = `sync-${short(data.source)}-${deliveryId ? short(deliveryId) : Date.now().toString(36)}`;
  return addCollapsing(queue, 'sync-source', data, id, {
    deduplication: { id: `sync-${short(data.source)}`, keepLastIfActive: true },
  });
}

export function enqueueRebuild(queue: Queue, data: RebuildData): Promise<string> {
  return addCollapsing(queue, 'rebuild', data, `rebuild-${Date.now().toString(36)}`, {
    deduplication: { id: 'rebuild', keepLastIfActive: true },
    attempts: 2,
  });
}
