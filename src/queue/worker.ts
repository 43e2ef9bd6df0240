// The queue worker: runs sync-source, index-doc, delete-doc and rebuild jobs against labbot (its Indexing and IndexAdmin ports).
// Several workers (threads of one process or processes on several machines) share the queue:
// per-document jobs are deduplicated by document, and the record of what is indexed lives in Redis.
import { UnrecoverableError, Worker, type ConnectionOptions, type Job, type Queue } from 'bullmq';
import type { Logger } from 'pino';
import { ensureAtLeast } from '../ingest/sources/git.ts';
import { ensureZoteroMirror } from '../ingest/sources/zotero/index.ts';
import type { IndexAdmin, Indexing, Installation } from '../ports.ts';

/** What the worker's jobs need: the one writer, what the index holds, and index administration (rebuild). */
export type IndexWork = Installation & Indexing & IndexAdmin;
import type { FileResult } from '../indexer.ts';
import type { SourceConfig } from '../config.ts';
import { QUEUE_NAME, type DocJobData, type JobName, type RebuildData, type SyncSourceData } from './jobs.ts';
import { rebuildIndex } from './rebuild.ts';
import { syncSource } from './sync-source.ts';

export type DocResult = FileResult;

export interface WorkerOptions {
  connection: ConnectionOptions;
  prefix: string;
  concurrency: number;
  log: Logger;
  /** How long a job's lock lives without renewal; a killed worker's job is retried after it. */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
}

/** One git checkout at a time per source in this process: jobs share the work tree. */
const checkoutLocks = new Map<string, Promise<void>>();
async function withCheckout(source: SourceConfig, commit: string | undefined): Promise<void> {
  if (source.type !== 'git' || !commit) return;
  const prev = checkoutLocks.get(source.id) ?? Promise.resolve();
  const next = prev.catch(() => undefined).then(() => ensureAtLeast(source, commit));
  checkoutLocks.set(source.id, next);
  await next;
}

export async function processDoc(
  app: Pick<Installation & Indexing, 'config' | 'indexer'>,
  data: DocJobData,
  job?: Job,
): Promise<DocResult> {
  const source = app.config.sources.find((s) => s.id === data.source);
  if (!source) throw new UnrecoverableError(`no source "${data.source}" in the config`);
  await withCheckout(source, data.commit);
  if (source.type === 'zotero') await ensureZoteroMirror(source, data.commit, { maxFileBytes: app.indexer.settings.maxFileBytes });
  const result = await app.indexer.indexFile(source, data.path, {
    hash: data.hash,
    onProgress: (e) => {
      if (e.phase === 'embed' && job) void job.updateProgress({ embedded: e.done, total: e.total }).catch(() => undefined);
    },
  });
  // A file that cannot be parsed will not parse on a retry: fail for good, visibly.
  if (result.outcome === 'failed') throw new UnrecoverableError(`${data.path}: ${result.reason}`);
  return result;
}

export function startIndexWorker(app: IndexWork, queue: Queue, opts: WorkerOptions): Worker {
  const worker = new Worker(
    QUEUE_NAME,
    async (job: Job) => {
      const name = job.name as JobName;
      if (name === 'sync-source') return syncSource(app, queue, job.data as SyncSourceData, job);
      if (name === 'index-doc' || name === 'delete-doc') return processDoc(app, job.data as DocJobData, job);
      if (name === 'rebuild') return rebuildIndex(app, job.data as RebuildData, job);
      throw new UnrecoverableError(`unknown job type "${job.name}"`);
    },
    {
      connection: opts.connection,
      prefix: opts.prefix,
      concurrency: opts.concurrency,
      lockDuration: opts.lockDurationMs ?? 30_000,
      stalledInterval: opts.stalledIntervalMs ?? 15_000,
      maxStalledCount: 3,
    },
  );
  worker.on('failed', (job, err) => {
    const final = !job || job.attemptsMade >= (job.opts.attempts ?? 1) || err instanceof UnrecoverableError;
    opts.log[final ? 'error' : 'warn'](
      { job: job?.id, name: job?.name, attempt: job?.attemptsMade, err: err.message },
      final ? 'index job failed for good' : 'index job failed; will retry',
    );
  });
  worker.on('error', (err) => opts.log.warn({ err: err.message }, 'queue worker error'));
  return worker;
}
