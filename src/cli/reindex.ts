// `labbot reindex`: queue a re-sync of sources, or a blue/green rebuild, for the workers, and follow it.
import type { Queue } from 'bullmq';
import type { Command } from 'commander';
import { openLabbot } from '../app.ts';
import { ConfigError, type SourceConfig } from '../config.ts';
import { redactUrls } from '../log.ts';
import { enqueueRebuild, requestSync } from '../queue/jobs.ts';
import { describeOutcome, followSync, waitForJob } from '../queue/progress.ts';
import type { RebuildResult } from '../queue/rebuild.ts';
import { startQueueRuntime } from '../queue/runtime.ts';
import { closeRedis, tryConnectRedis } from '../store/redis.ts';
import { setup } from './context.ts';

interface ReindexOptions {
  source?: string;
  full?: boolean;
  rebuild?: boolean;
  wait: boolean;
  json?: boolean;
}

async function rebuild(queue: Queue, opts: ReindexOptions): Promise<void> {
  const id = await enqueueRebuild(queue, { reason: 'labbot reindex --rebuild' });
  if (!opts.wait) {
    if (!opts.json) console.log(`queued rebuild (job ${id}); a worker builds the new index and switches to it`);
    else console.log(JSON.stringify({ queued: [id] }));
    return;
  }
  if (!opts.json) console.log(`queued rebuild (job ${id}); waiting for a worker to build the new index and switch to it`);
  const done = await waitForJob<RebuildResult>(queue, id, (p) => {
    const at = p as { source?: string; at?: number; sources?: number; files?: number; total?: number };
    if (!opts.json && process.stderr.isTTY && at.source)
      process.stderr.write(`\rrebuild: ${at.source} (${at.at}/${at.sources}), ${at.files}/${at.total} files`);
  });
  if (!opts.json && process.stderr.isTTY) process.stderr.write('\n');
  if (done.error) process.exitCode = 1;
  if (opts.json) console.log(JSON.stringify({ job: id, ...done }, null, 2));
  else if (done.error) console.error(`rebuild failed: ${done.error}`);
  else if (done.result) {
    const r = done.result;
    console.log(`rebuilt: ${r.documents} documents, ${r.chunks} chunks (${r.embedded} embedded); switched from ${r.from} to ${r.to}`);
  } else console.log(`rebuild ${id} finished`);
}

async function syncSources(queue: Queue, sources: SourceConfig[], opts: ReindexOptions): Promise<void> {
  const results = [];
  for (const s of sources) {
    const ticket = await requestSync(queue, { source: s.id, full: opts.full, reason: 'labbot reindex' });
    if (!opts.wait) {
      results.push({ source: s.id, job: ticket.jobId });
      continue;
    }
    const outcome = await followSync(queue, ticket, s.id, (o) => {
      if (!opts.json && process.stderr.isTTY) process.stderr.write(`\r${s.id}: ${o.done}/${o.total} documents`);
    });
    if (!opts.json && process.stderr.isTTY) process.stderr.write('\n');
    results.push(outcome);
    if (!opts.json) console.log(describeOutcome(outcome));
    if (outcome.error || outcome.failed.length) process.exitCode = 1;
  }
  if (opts.json) console.log(JSON.stringify(results, null, 2));
  else if (!opts.wait) for (const r of results) console.log(`queued sync of ${r.source}`);
}

export function addReindexCommand(program: Command): void {
  program
    .command('reindex')
    .description('queue a re-sync of sources (or a blue/green rebuild) and follow it')
    .option('--source <id>', 'only this source (not with --rebuild)')
    .option('--full', 'compare every file, not only the git diff since the last sync')
    .option('--rebuild', 'build a new index of every source beside the live one, then switch to it')
    .option('--no-wait', 'return once queued')
    .option('--json', 'print JSON')
    .action(async (opts: ReindexOptions) => {
      // A rebuild replaces the whole live index at once (blue/green), so a new index of one source
      // would drop every other source at the switch: refuse rather than silently rebuild them all.
      if (opts.rebuild && opts.source) {
        throw new ConfigError(
          '--rebuild builds a new index of every source and switches to it; it cannot be limited to ' +
            'one --source. To re-read one source, use `labbot reindex --source <id> --full`.',
        );
      }
      const { config, log } = setup();
      const sources = opts.source ? config.sources.filter((s) => s.id === opts.source) : config.sources;
      if (opts.source && sources.length === 0)
        throw new ConfigError(`No source "${opts.source}"; configured: ${config.sources.map((s) => s.id).join(', ') || 'none'}`);
      const redis = await tryConnectRedis(config.redisUrl);
      if (!redis)
        throw new ConfigError(
          `reindex needs Redis (the queue); nothing answers at ${redactUrls(config.redisUrl)}. Use \`labbot ingest\` to index in-process.`,
        );
      const app = await openLabbot(config, log, { redis, loadCatalog: false });
      const runtime = await startQueueRuntime(app, { worker: false });
      try {
        if (opts.rebuild) await rebuild(runtime.queue, opts);
        else await syncSources(runtime.queue, sources, opts);
      } finally {
        await runtime.close();
        await app.close();
        await closeRedis(redis);
      }
    });
}
