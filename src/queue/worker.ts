// The queue worker: runs sync-source, index-doc, delete-doc and rebuild jobs against an App.
// Several workers (threads of one process or processes on several machines) share the queue:
// per-document jobs are deduplicated by document, and the record of what is indexed lives in Redis.
import path from 'node:path';
import { UnrecoverableError, Worker, type ConnectionOptions, type Job, type Queue } from 'bullmq';
import type { Logger } from 'pino';
import { ingest } from '../ingest/pipeline.ts';
import { checkPath } from '../ingest/sources/folder.ts';
import { ensureAtLeast } from '../ingest/sources/git.ts';
import { sourceTarget } from '../ingest/sources/prepare.ts';
import { ensureZoteroMirror } from '../ingest/sources/zotero/index.ts';
import type { App } from '../app.ts';
import type { SourceConfig } from '../config.ts';
import { QUEUE_NAME, type DocJobData, type JobName, type RebuildData, type SyncSourceData } from './jobs.ts';
import { rebuildIndex } from './rebuild.ts';
import { syncSource } from './sync-source.ts';

export interface DocResult {
  source: string;
  path: string;
  outcome: 'indexed' | 'unchanged' | 'removed' | 'absent' | 'skipped';
  chunks?: number;
  embedded?: number;
  reason?: string;
}

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

export async function processDoc(app: App, data: DocJobData, job?: Job): Promise<DocResult> {
  const source = app.config.sources.find((s) => s.id === data.source);
  if (!source) throw new UnrecoverableError(`no source "${data.source}" in the config`);
  await withCheckout(source, data.commit);
  if (source.type === 'zotero') await ensureZoteroMirror(source, data.commit, { maxFileBytes: app.ingestSettings.maxFileBytes });
  const abs = path.join(source.path, data.path);
  const lookup = app.ingestDeps().lookup!;
  // Both job types reconcile the document with the file as it is now: a delete that was
  // collapsed into a waiting index job (same document) still deletes, and vice versa. A path
  // that is now a link (or reached through one) counts as gone: it is never followed.
  const check = await checkPath(source.path, abs);
  if (!check.ok || check.type !== 'file') {
    const rec = await lookup.atPath(source.id, data.path);
    const refused = !check.ok && !check.absent ? check.reason : undefined;
    await app.records?.setProblem(source.id, data.path, refused ? { status: 'skipped', reason: refused } : undefined);
    if (!rec) return { source: source.id, path: data.path, outcome: 'absent' };
    await app.removeDocument(rec);
    return { source: source.id, path: data.path, outcome: 'removed', chunks: rec.chunkIds.length };
  }
  const summary = await ingest(
    sourceTarget(source, [abs]),
    app.ingestSettings,
    app.ingestDeps(undefined, (e) => {
      if (e.phase === 'embed' && job) void job.updateProgress({ embedded: e.done, total: e.total }).catch(() => undefined);
    }),
  );
  const bad = summary.failed[0] ?? summary.skipped.find((o) => o.path === abs);
  if (bad) {
    await app.records?.setProblem(source.id, data.path, {
      status: bad.status === 'failed' ? 'failed' : 'skipped',
      reason: bad.reason ?? 'unknown',
      hash: data.hash,
    });
    // A file that cannot be parsed will not parse on a retry: fail for good, visibly.
    if (bad.status === 'failed') throw new UnrecoverableError(`${data.path}: ${bad.reason}`);
    return { source: source.id, path: data.path, outcome: 'skipped', reason: bad.reason };
  }
  await app.records?.setProblem(source.id, data.path, undefined);
  const o = summary.outcomes.find((x) => x.path === abs);
  return {
    source: source.id,
    path: data.path,
    outcome: o?.status === 'unchanged' ? 'unchanged' : 'indexed',
    chunks: o?.chunks,
    embedded: summary.chunks.embedded,
  };
}

export function startIndexWorker(app: App, queue: Queue, opts: WorkerOptions): Worker {
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
