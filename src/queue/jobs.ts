// Job types of the `labbot-index` queue and how their ids are derived, so duplicate triggers
// collapse into one job and two jobs for the same document never run at once.
import { createHash, randomUUID } from 'node:crypto';
import { Queue, type ConnectionOptions, type JobsOptions } from 'bullmq';
import type { Config } from '../config.ts';
import { execChecked, type Redis } from '../store/redis.ts';

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

/**
 * What sync-source jobs for a source still have to cover, as a Redis list beside the queue.
 * BullMQ's deduplication keeps one waiting job per source and drops later adds (or keeps only the
 * last one while a job runs), so job data alone would lose the paths of collapsed triggers.
 * Every trigger appends its request here first; a sync reads the whole list, covers the union and
 * removes exactly the entries it read once it has succeeded, so nothing is replaced and a sync
 * that fails and retries still sees everything that arrived meanwhile.
 */
// The queue's own ioredis connection (BullMQ's Redis backend builds one from our options); its
// declared type is a narrow interface without list commands.
const redisOf = async (queue: Queue): Promise<Redis> => (await queue.getBackend().client) as unknown as Redis;
const pendingKey = (queue: Queue, source: string) => queue.toKey(`pending-sync:${short(source)}`);

interface PendingRequest {
  /** Makes every entry unique, so removing one entry never removes a later identical request. */
  t: string;
  full?: boolean;
  changed?: string[];
  deleted?: string[];
}

export interface PendingSync {
  /** The raw entries read, removed by `clearPendingSync` once the sync covering them is done. */
  entries: string[];
  requests: Omit<PendingRequest, 't'>[];
}

export async function readPendingSync(queue: Queue, source: string): Promise<PendingSync> {
  const client = await redisOf(queue);
  const entries = await client.lrange(pendingKey(queue, source), 0, -1);
  const requests: PendingSync['requests'] = [];
  for (const e of entries) {
    try {
      const r = JSON.parse(e) as PendingRequest;
      requests.push({
        full: r.full === true,
        changed: Array.isArray(r.changed) ? r.changed : undefined,
        deleted: Array.isArray(r.deleted) ? r.deleted : undefined,
      });
    } catch {
      // Not ours (hand-edited Redis): a full listing covers whatever it meant.
      requests.push({});
    }
  }
  return { entries, requests };
}

const coveredKey = (queue: Queue, request: string) => queue.toKey(`sync-covered:${request}`);
/** How long "which sync covered this request" is kept: longer than anyone follows a sync. */
const COVERED_TTL_S = 86_400;

/**
 * Removes the entries a sync covered and records, per request, the job that covered it: a
 * request collapsed into a sync that was already running is covered by the next one, not by the
 * job BullMQ returned for it (see followSync).
 */
export async function clearPendingSync(queue: Queue, source: string, entries: string[], coveredBy?: string): Promise<void> {
  if (entries.length === 0) return;
  const client = await redisOf(queue);
  const tx = client.multi();
  for (const e of entries) {
    tx.lrem(pendingKey(queue, source), 1, e);
    const t = requestToken(e);
    if (coveredBy && t) tx.set(coveredKey(queue, t), coveredBy, 'EX', COVERED_TTL_S);
  }
  await execChecked(tx, `clearing the pending changes of ${source}`);
}

function requestToken(entry: string): string | undefined {
  try {
    const t = (JSON.parse(entry) as Partial<PendingRequest>).t;
    return typeof t === 'string' ? t : undefined;
  } catch {
    return undefined;
  }
}

/** The sync job that covered a request, once one has. */
export async function syncCovering(queue: Queue, request: string): Promise<string | undefined> {
  return (await (await redisOf(queue)).get(coveredKey(queue, request))) ?? undefined;
}

/** A queued sync as its requester follows it: the job BullMQ returned and the request's own token. */
export interface SyncTicket {
  jobId: string;
  request: string;
}

/**
 * Queues a sync of a source. Its request is recorded first (merged with those still pending);
 * throws when either write fails, so a webhook can answer 5xx and its sender retry.
 */
export async function enqueueSync(queue: Queue, data: SyncSourceData, deliveryId?: string): Promise<string> {
  return (await requestSync(queue, data, deliveryId)).jobId;
}

/** enqueueSync for a requester that follows the sync to its end (followSync). */
export async function requestSync(queue: Queue, data: SyncSourceData, deliveryId?: string): Promise<SyncTicket> {
  const request: PendingRequest = { t: randomUUID(), full: data.full || undefined, changed: data.changed, deleted: data.deleted };
  const client = await redisOf(queue);
  await client.rpush(pendingKey(queue, data.source), JSON.stringify(request));
  const id = `sync-${short(data.source)}-${deliveryId ? short(deliveryId) : request.t}`;
  const jobId = await addCollapsing(queue, 'sync-source', data, id, {
    deduplication: { id: `sync-${short(data.source)}`, keepLastIfActive: true },
  });
  return { jobId, request: request.t };
}

export function enqueueRebuild(queue: Queue, data: RebuildData): Promise<string> {
  return addCollapsing(queue, 'rebuild', data, `rebuild-${Date.now().toString(36)}`, {
    deduplication: { id: 'rebuild', keepLastIfActive: true },
    attempts: 2,
  });
}
