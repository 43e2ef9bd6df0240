// `labbot` commands: ingest, ask, eval, status, serve, worker, reindex, backup, restore.
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import cliProgress from 'cli-progress';
import type { Logger } from 'pino';
import type { IngestSummary, ProgressEvent } from './ingest/pipeline.ts';
import type { IngestTarget } from './types.ts';
import { answerText, toAskJson } from './answer/ask-json.ts';
import { webUrl } from './answer/links.ts';
import { noticeFlag } from './answer/messages.ts';
import { visibleText } from './answer/visible-text.ts';
import { doiUrl } from './ingest/metadata/coerce.ts';
import { askAs, type AskOutcome } from './ask.ts';
import { openApp, type App } from './app.ts';
import { ConfigError, groupsForChannel, loadConfig, type Config } from './config.ts';
import { chooseLogFormat, createLogger, prettyDestination, redactUrls } from './log.ts';
import { startServe } from './serve.ts';
import { SHUTDOWN_BUDGET } from './shutdown.ts';
import { enqueueRebuild, requestSync } from './queue/jobs.ts';
import { describeOutcome, followSync, waitForJob } from './queue/progress.ts';
import type { RebuildResult } from './queue/rebuild.ts';
import { startQueueRuntime } from './queue/runtime.ts';
import { reconcileWithConfig } from './queue/reconcile-config.ts';
import { closeRedis, tryConnectRedis } from './store/redis.ts';
import { loadQuestionSets } from './eval/files.ts';
import { formatReport } from './eval/report.ts';
import { runEval } from './eval/run.ts';
import { SPLITS, type Split } from './eval/split.ts';
import { KINDS, type Kind } from './types.ts';
import { sourceTarget } from './ingest/sources/prepare.ts';
import { addBackupCommands } from './ops/backup-commands.ts';

const positiveInt = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 100) throw new InvalidArgumentError('must be a whole number from 1 to 100');
  return n;
};

/** What `serve` prints when it made the dashboard's token itself (Jupyter-style: the link on a line of its own). */
function dashboardBanner(link: string): string {
  return [
    '',
    'No LABBOT_ADMIN_TOKEN is set: the dashboard takes a token made for this start. Open it with:',
    '',
    `    ${link}`,
    '',
    'Every /admin request needs this token, from this machine too, and through a reverse proxy too: a',
    'proxy in front does not open the dashboard, but anyone holding this link can read every document',
    'and re-index. It changes at every start; set LABBOT_ADMIN_TOKEN for one that lasts.',
    '',
  ].join('\n');
}

function setup(quietLogs = false): { config: Config; log: Logger } {
  const config = loadConfig();
  const pretty = chooseLogFormat(config.logFormat, process.stderr.isTTY === true) === 'pretty';
  const log = createLogger(
    quietLogs && config.logLevel === 'info' ? 'warn' : config.logLevel,
    'labbot',
    pretty ? prettyDestination() : undefined,
    config.secrets,
  );
  return { config, log };
}

/** What `labbot ask` says when it has no answer to print. */
function cliFailure(outcome: Exclude<AskOutcome, { kind: 'answered' }>, channel: string | undefined): string {
  switch (outcome.kind) {
    case 'empty-question':
      return 'The question is empty.';
    case 'empty-index':
      return 'The index is empty: nothing has been ingested yet. Run `labbot ingest` (the configured sources, or `labbot ingest <folder>`), or `npm start`, which indexes them first, then ask again.';
    case 'unavailable':
      return 'The index is unavailable right now (Chroma does not answer); try again shortly.';
    case 'failed':
      return `Answering failed: ${outcome.error.message}`;
    case 'refused':
      return outcome.reason === 'unknown-channel'
        ? `Unknown channel "${channel}": --channel takes one of access.channels in the config.`
        : `Refused (${outcome.reason}).`;
  }
}

async function withApp<T>(
  fn: (app: App) => Promise<T>,
  opts: { quiet?: boolean; loadCatalog?: boolean; env?: { config: Config; log: Logger } } = {},
): Promise<T> {
  const { config, log } = opts.env ?? setup(opts.quiet);
  // With Redis, the CLI sees the live index after a blue/green switch, and its ingests update the
  // records and every running bot's lexical index. Without it, it works on its own.
  const redis = await tryConnectRedis(config.redisUrl, 1000);
  const app = await openApp(config, log, { loadCatalog: opts.loadCatalog, redis });
  try {
    return await fn(app);
  } finally {
    await app.close();
    if (redis) await closeRedis(redis);
  }
}

function progressReporter(enabled: boolean): { onProgress: (e: ProgressEvent) => void; stop: () => void } {
  if (!enabled || !process.stderr.isTTY) return { onProgress: () => undefined, stop: () => undefined };
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, format: ' {phase} [{bar}] {value}/{total} {file}', hideCursor: true, clearOnComplete: false },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    onProgress(e) {
      if (e.phase === 'scan') return;
      if (!started) {
        bar.start(e.total, 0, { phase: 'files', file: '' });
        started = true;
      }
      if (e.phase === 'file') bar.update(e.done, { phase: 'files', file: e.file.slice(-40) });
      else {
        bar.setTotal(e.total);
        bar.update(e.done, { phase: 'embed', file: '' });
      }
    },
    stop: () => started && bar.stop(),
  };
}

function printSummary(s: IngestSummary): void {
  const d = s.documents;
  const c = s.chunks;
  console.log(`source ${s.source}: ${d.indexed} indexed, ${d.unchanged} unchanged, ${d.removed} removed`);
  console.log(`chunks: ${c.written} written (${c.embedded} embedded, ${c.reused} reused), ${c.deleted} deleted`);
  for (const o of s.skipped) console.log(`  skipped ${o.path}: ${o.reason}`);
  for (const o of s.failed) console.log(`  FAILED  ${o.path}: ${o.reason}`);
}

function resolveTargets(config: Config, paths: string[], opts: { source?: string; kind?: Kind }): IngestTarget[] {
  const configured = opts.source ? config.sources.find((s) => s.id === opts.source) : undefined;
  if (configured) {
    const root = configured.path;
    const inside = paths.map((p) => path.resolve(p));
    for (const p of inside) {
      const rel = path.relative(root, p);
      if (rel.startsWith('..') || path.isAbsolute(rel)) throw new ConfigError(`${p} is outside source "${configured.id}" (${root})`);
    }
    return [{ ...sourceTarget(configured, inside.length ? inside : undefined), kind: opts.kind ?? configured.kind }];
  }
  if (paths.length === 0) {
    if (opts.source) throw new ConfigError(`No source "${opts.source}" in the config file; give paths to ingest.`);
    if (config.sources.length === 0) throw new ConfigError('Nothing to ingest: give paths, or configure sources in labbot.config.json.');
    return config.sources.map((s) => ({ ...sourceTarget(s), kind: opts.kind ?? s.kind }));
  }
  return paths.map((p) => {
    const abs = path.resolve(p);
    if (!existsSync(abs)) throw new ConfigError(`No such file or folder: ${p}`);
    const isDir = statSync(abs).isDirectory();
    const root = isDir ? abs : path.dirname(abs);
    const sourceId = opts.source ?? (path.basename(root).replace(/[^A-Za-z0-9_.-]/g, '-') || 'local');
    return { sourceId, root, paths: [abs], kind: opts.kind };
  });
}

export function buildProgram(): Command {
  const program = new Command('labbot').description(
    "Answers a lab's questions from its own papers, protocols, slides and wiki, with citations.",
  );

  program
    .command('ingest')
    .description('index files or folders (in-process, no queue needed)')
    .argument('[paths...]', 'files or folders; default: the configured sources')
    .option('--source <id>', 'source id (a configured source, or a name for these paths)')
    .addOption(new Option('--kind <kind>', 'document kind for these files').choices(KINDS))
    .option('--rebuild', 'drop the index first and re-ingest (after an embedding or chunking change)')
    .option('--json', 'print the summary as JSON')
    .action(async (paths: string[], opts: { source?: string; kind?: Kind; rebuild?: boolean; json?: boolean }) => {
      const env = setup(opts.json);
      const { config } = env;
      const targets = resolveTargets(config, paths, opts);
      const summaries = await withApp(
        async (app) => {
          if (opts.rebuild) await app.reset();
          // Ingesting the configured sources: what the config no longer names leaves first.
          if (paths.length === 0 && !opts.source) await reconcileWithConfig(app);
          const out: IngestSummary[] = [];
          for (const t of targets) {
            const progress = progressReporter(!opts.json);
            try {
              // A Zotero source is read from its mirror: bring it up to date first.
              const zotero = config.sources.find((s) => s.id === t.sourceId && s.type === 'zotero');
              if (zotero) await app.indexer.prepare(zotero);
              out.push(await app.ingest(t, progress.onProgress));
            } finally {
              progress.stop();
            }
          }
          return out;
        },
        { env, loadCatalog: !opts.rebuild },
      );
      if (opts.json) console.log(JSON.stringify(summaries.length === 1 ? summaries[0] : summaries, null, 2));
      else summaries.forEach(printSummary);
      if (summaries.some((s) => s.failed.length > 0)) process.exitCode = 1;
    });

  program
    .command('ask')
    .description('answer a question with citations')
    .argument('<question>')
    .option('--channel <id>', 'answer as if asked in this Slack channel (its access groups)')
    .option('--k <n>', 'passages to retrieve', positiveInt)
    .option('--json', 'print JSON')
    .action(async (question: string, opts: { channel?: string; k?: number; json?: boolean }) => {
      const outcome = await withApp(
        (app) =>
          askAs(
            { ask: app.ask, chunkCount: () => app.catalog.chunkCount, config: app.config, log: app.log },
            // The operator at the machine may ask as any configured channel (as the admin token may).
            { question, facts: { surface: 'cli', channel: opts.channel, admin: true }, k: opts.k },
          ),
        { quiet: true },
      );
      if (outcome.kind !== 'answered') {
        const why = cliFailure(outcome, opts.channel);
        if (opts.json) console.log(JSON.stringify({ error: why, outcome: outcome.kind }, null, 2));
        else process.stderr.write(`${why}\n`);
        process.exitCode = 1;
        return;
      }
      const { result } = outcome;
      if (opts.json) {
        console.log(JSON.stringify(toAskJson(result), null, 2));
        return;
      }
      // Document and model text reaches a terminal: no control character (escape sequences) or
      // invisible one, and links only to cited documents (the rule Slack follows too).
      console.log(visibleText(answerText(result)));
      if (result.citations.length) {
        console.log('\nSources:');
        for (const c of result.citations) {
          const href = c.link ?? c.url;
          const url = href ? webUrl(href)?.href : undefined;
          console.log(visibleText(`  ${c.label} ${c.title}${url ? ` <${url}>` : ''}`).replace(/\n/g, ' '));
          if (c.notice) console.log(`    ${noticeFlag(result.language, c.notice)}${c.notice.doi ? ` <${doiUrl(c.notice.doi)}>` : ''}`);
          for (const q of c.quotes) console.log(`    “${visibleText(q).replace(/\s+/g, ' ')}”`);
        }
      }
      console.log(`\n(${result.model})`);
    });

  program
    .command('eval')
    .description('evaluate retrieval (and with --answers the whole ask path) on a questions file')
    .argument('[questions]', 'JSON lines: {"id","question","doc_id","answers":[...]}')
    .option('--k <n>', 'passages per question (default: retrieval.k, as answers use)', positiveInt)
    .option('--channel <id>', "evaluate with this channel's access groups")
    .option('--answers', 'also answer each question (model or extractive) and score the answers')
    .option('--unanswerable <file>', 'questions the corpus cannot answer: report the false-answer rate')
    .addOption(new Option('--split <split>', 'only questions about documents on this side of the dev/test split').choices(SPLITS))
    .option('--json', "print the report as JSON, with every question's passages and answer")
    .action(
      async (
        file: string | undefined,
        opts: { k?: number; channel?: string; answers?: boolean; unanswerable?: string; split?: Split; json?: boolean },
      ) => {
        if (!file && !opts.unanswerable) throw new ConfigError('Give a questions file, or --unanswerable <file>, or both.');
        const { questions, offCorpus } = loadQuestionSets(
          { questions: file, unanswerable: opts.unanswerable, split: opts.split },
          console.error,
        );
        const report = await withApp(
          (app) =>
            runEval(app, questions, {
              k: opts.k ?? app.config.retrieval.k,
              groups: groupsForChannel(app.config.access, opts.channel),
              answers: Boolean(opts.answers),
              offCorpus,
              split: opts.split,
            }),
          { quiet: true },
        );
        console.log(opts.json ? JSON.stringify(report) : formatReport(report));
      },
    );

  program
    .command('status')
    .description('documents and chunks per source and kind, index version, providers')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const status = await withApp(
        async (app) => ({
          chroma_url: app.chromaUrl,
          collection: app.config.collection,
          index_version: app.version,
          index_settings: app.versionDescription,
          stored_version: (await app.store.storedVersion()) ?? null,
          embeddings: `${app.config.embeddings.provider}:${app.config.embeddings.model}`,
          llm: app.config.llm.provider === 'none' ? 'none (extractive answers)' : app.config.llm.model,
          ...app.catalog.stats(),
        }),
        { quiet: true },
      );
      if (opts.json) {
        console.log(JSON.stringify(status, null, 2));
        return;
      }
      console.log(`Chroma ${status.chroma_url}, collection ${status.collection}`);
      console.log(`index version ${status.index_version} (${status.index_settings})`);
      if (status.stored_version && status.stored_version !== status.index_version) {
        console.log(`  stored index was built with ${status.stored_version}: run \`labbot ingest --rebuild\``);
      }
      console.log(`embeddings ${status.embeddings}; answers ${status.llm}`);
      console.log(`${status.documents} documents, ${status.chunks} chunks`);
      for (const [src, s] of Object.entries(status.bySource)) {
        const kinds = Object.entries(s.byKind).map(([k, v]) => `${k} ${v?.documents}/${v?.chunks}`);
        console.log(`  ${src}: ${s.documents} documents, ${s.chunks} chunks (${kinds.join(', ')})`);
      }
    });

  program
    .command('serve')
    .description('index configured sources if needed, then serve the ask API, webhooks and a queue worker')
    .action(async () => {
      const { config, log } = setup();
      const running = await startServe(config, log);
      const slack = running.slack
        ? `Slack over ${running.slack.mode === 'socket' ? 'Socket Mode' : `${running.url}/slack/events`}`
        : 'Slack is not configured (no SLACK_BOT_TOKEN)';
      const admin = running.dashboardRefused
        ? 'no dashboard'
        : `dashboard ${running.url}/admin${running.dashboardTokenGenerated ? ' (no LABBOT_ADMIN_TOKEN: a token for this start, in the link printed on stdout)' : ''}`;
      log.info(
        { url: running.url, worker: Boolean(running.queue?.worker) },
        `labbot is serving: POST /api/ask, /hooks/wiki/<source>, ${admin}; ${slack}`,
      );
      // On stdout, not in the log: logs are kept and shipped, and this link opens every document.
      if (running.dashboardTokenGenerated && running.dashboardLink) console.log(dashboardBanner(running.dashboardLink));
      onShutdown(log, () => running.close());
    });

  program
    .command('worker')
    .description('run a queue worker: sync sources, index and delete documents, rebuild')
    .action(async () => {
      const { config, log } = setup();
      for (const w of config.warnings) log.warn(w);
      const redis = await tryConnectRedis(config.redisUrl);
      if (!redis) throw new ConfigError(`The worker needs Redis; nothing answers at ${redactUrls(config.redisUrl)} (REDIS_URL).`);
      // A worker reads what is indexed from Redis records, not from a lexical index in memory:
      // skipping the catalog saves its start-up load and about half a bot's memory.
      const app = await openApp(config, log, { redis, loadCatalog: false });
      await reconcileWithConfig(app);
      const runtime = await startQueueRuntime(app, { worker: true });
      log.info({ concurrency: config.queue.concurrency, queue: 'labbot-index' }, 'worker started');
      onShutdown(log, async () => {
        await runtime.close();
        await app.close();
        await closeRedis(redis);
      });
    });

  program
    .command('reindex')
    .description('queue a re-sync of sources (or a blue/green rebuild) and follow it')
    .option('--source <id>', 'only this source (not with --rebuild)')
    .option('--full', 'compare every file, not only the git diff since the last sync')
    .option('--rebuild', 'build a new index of every source beside the live one, then switch to it')
    .option('--no-wait', 'return once queued')
    .option('--json', 'print JSON')
    .action(async (opts: { source?: string; full?: boolean; rebuild?: boolean; wait: boolean; json?: boolean }) => {
      // A rebuild replaces the whole live index at once (blue/green), so a new index of one source
      // would drop every other source at the switch: refuse rather than silently rebuild them all.
      if (opts.rebuild && opts.source) {
        throw new ConfigError(
          '--rebuild builds a new index of every source and switches to it; it cannot be limited to one --source. To re-read one source, use `labbot reindex --source <id> --full`.',
        );
      }
      const { config, log } = setup(true);
      const sources = opts.source ? config.sources.filter((s) => s.id === opts.source) : config.sources;
      if (opts.source && sources.length === 0)
        throw new ConfigError(`No source "${opts.source}"; configured: ${config.sources.map((s) => s.id).join(', ') || 'none'}`);
      const redis = await tryConnectRedis(config.redisUrl);
      if (!redis)
        throw new ConfigError(
          `reindex needs Redis (the queue); nothing answers at ${redactUrls(config.redisUrl)}. Use \`labbot ingest\` to index in-process.`,
        );
      const app = await openApp(config, log, { redis, loadCatalog: false });
      const runtime = await startQueueRuntime(app, { worker: false });
      try {
        if (opts.rebuild) {
          const id = await enqueueRebuild(runtime.queue, { reason: 'labbot reindex --rebuild' });
          if (!opts.wait) {
            if (!opts.json) console.log(`queued rebuild (job ${id}); a worker builds the new index and switches to it`);
            else console.log(JSON.stringify({ queued: [id] }));
            return;
          }
          if (!opts.json) console.log(`queued rebuild (job ${id}); waiting for a worker to build the new index and switch to it`);
          const done = await waitForJob<RebuildResult>(runtime.queue, id, (p) => {
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
            console.log(
              `rebuilt: ${r.documents} documents, ${r.chunks} chunks (${r.embedded} embedded); switched from ${r.from} to ${r.to}`,
            );
          } else console.log(`rebuild ${id} finished`);
          return;
        }
        const results = [];
        for (const s of sources) {
          const ticket = await requestSync(runtime.queue, { source: s.id, full: opts.full, reason: 'labbot reindex' });
          if (!opts.wait) {
            results.push({ source: s.id, job: ticket.jobId });
            continue;
          }
          const outcome = await followSync(runtime.queue, ticket, s.id, (o) => {
            if (!opts.json && process.stderr.isTTY) process.stderr.write(`\r${s.id}: ${o.done}/${o.total} documents`);
          });
          if (!opts.json && process.stderr.isTTY) process.stderr.write('\n');
          results.push(outcome);
          if (!opts.json) console.log(describeOutcome(outcome));
          if (outcome.error || outcome.failed.length) process.exitCode = 1;
        }
        if (opts.json) console.log(JSON.stringify(results, null, 2));
        else if (!opts.wait) for (const r of results) console.log(`queued sync of ${r.source}`);
      } finally {
        await runtime.close();
        await app.close();
        await closeRedis(redis);
      }
    });

  addBackupCommands(program);
  return program;
}

/** SIGTERM/SIGINT: stop taking work, let in-flight work finish, exit within a bounded time. */
function onShutdown(log: Logger, close: () => Promise<void>): void {
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    log.info({ signal }, 'shutting down');
    // The whole budget (src/shutdown.ts): every part of close() has a deadline inside it.
    const forced = setTimeout(() => {
      log.warn({ afterMs: SHUTDOWN_BUDGET.forcedExitMs }, 'shutdown did not finish in time; exiting anyway');
      process.exit(1);
    }, SHUTDOWN_BUDGET.forcedExitMs);
    forced.unref();
    try {
      await close();
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'error while shutting down');
    }
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

export async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (err) {
    // Errors from client libraries can quote a connection URL: never print its password.
    if (err instanceof ConfigError) console.error(redactUrls(err.message));
    else console.error(redactUrls(`labbot: ${(err as Error).message}`));
    process.exitCode = 2;
  }
}

await main(process.argv);
