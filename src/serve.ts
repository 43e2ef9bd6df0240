// `labbot serve`: the ask API, webhooks, Slack (Events API on /slack/events, or Socket Mode), the
// admin dashboard, /readyz and /metrics on one port, plus a queue worker unless LABBOT_WORKER=off.
// Returned as a handle so tests run it in-process.
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import type express from 'express';
import { createHttpApp, listen } from './admin/server.ts';
import { docViewRouter } from './admin/doc-view.ts';
import { webhookRouter } from './admin/webhooks.ts';
import { openLabbot, type Labbot } from './app.ts';
import type { Config, SourceConfig } from './config.ts';
import { enqueueRebuild, enqueueSync } from './queue/jobs.ts';
import { startQueueRuntime, type QueueRuntime } from './queue/runtime.ts';
import { reconcileWithConfig } from './queue/reconcile-config.ts';
import { dropRetired } from './queue/rebuild.ts';
import { closeRedis, tryConnectRedis, type Redis } from './store/redis.ts';
import { redactUrls } from './log.ts';
import { createAdminRouter, dashboardStartCheck, readyzRouter } from './admin/dashboard.ts';
import { createMetrics, type Metrics } from './admin/metrics.ts';
import { adminTokenFor, type AdminToken } from './admin/auth.ts';
import type { SlackBot } from './slack/bot.ts';
import { createBackgroundReindexer } from './queue/in-process-reindexer.ts';
import { createQueueReindexer } from './queue/queue-reindexer.ts';
import { createActivityStore, type ActivityStore } from './store/activity.ts';
import { startNoticeRecheck } from './enrich/recheck.ts';

export interface Running {
  app: Labbot;
  url: string;
  server: Server;
  queue: QueueRuntime | undefined;
  redis: Redis | undefined;
  metrics: Metrics;
  activity: ActivityStore | undefined;
  slack: SlackBot | undefined;
  /** Why the dashboard is not served, if it is not. */
  dashboardRefused: string | undefined;
  /**
   * The dashboard's address; with the token `serve` made for this start (`/admin?token=…`) when
   * no LABBOT_ADMIN_TOKEN is configured. Undefined when the dashboard is not served.
   */
  dashboardLink: string | undefined;
  /** The dashboard's token was made for this start (print dashboardLink for the operator). */
  dashboardTokenGenerated: boolean;
  close(): Promise<void>;
}

/** First run for a source: index it in-process (batched, fast) so the first answer has material. */
async function initialIngest(app: Labbot, source: SourceConfig): Promise<void> {
  const s = await app.indexer.ingestSource(source);
  app.log.info(
    { source: s.source, ...s.documents, chunks: s.chunks.written, skipped: s.skipped.length, failed: s.failed.length },
    'source indexed',
  );
  for (const f of s.failed) app.log.warn({ file: f.path, reason: f.reason }, 'file failed to index');
}

export interface ServeOptions {
  /** Extra routers (Slack, dashboard) built from the running app. */
  routers?: (ctx: { app: Labbot; queue: QueueRuntime | undefined; redis: Redis | undefined }) => Promise<express.Router[]>;
  lockDurationMs?: number;
  stalledIntervalMs?: number;
}

export async function startServe(config: Config, log: Logger, opts: ServeOptions = {}): Promise<Running> {
  for (const w of config.warnings) log.warn(w);
  const redis = await tryConnectRedis(config.redisUrl);
  if (!redis)
    log.warn(
      { redis: redactUrls(config.redisUrl) },
      'Redis is not reachable: no queue, webhooks or wiki freshness; sources are indexed once at start',
    );
  // A start that fails (Chroma refused or unreachable) must not leave Redis holding the process open.
  const app = await openLabbot(config, log, { redis }).catch(async (err: unknown) => {
    if (redis) await closeRedis(redis).catch(() => undefined);
    throw err;
  });
  const stored = await app.store.storedVersion();
  const versionChanged = stored !== undefined && stored !== app.version;

  const queue = redis ? await startQueueRuntime(app, { worker: config.workerInServe, ...opts }) : undefined;
  // Old indexes a stopped rebuild could not drop yet (none is dropped while a process uses it).
  if (redis) await dropRetired(app).catch((err: Error) => log.warn({ err: err.message }, 'could not drop retired indexes'));
  // A source removed from the config (or a changed configured group) leaves the index before
  // anything is answered.
  await reconcileWithConfig(app).catch((err: Error) => log.error({ err: err.message }, 'could not check the index against the config'));
  if (versionChanged) {
    if (queue) {
      await enqueueRebuild(queue.queue, { reason: `index version ${stored} -> ${app.version}` });
      log.warn(
        { stored, configured: app.version },
        'settings changed the index version: a blue/green rebuild is queued; the old index answers until it is done',
      );
    } else log.error({ stored, configured: app.version }, 'settings changed the index version: run `labbot ingest --rebuild`');
  } else {
    for (const source of config.sources) {
      const indexed = app.catalog.stats().bySource[source.id]?.documents ?? 0;
      if (indexed === 0 || !queue)
        await initialIngest(app, source).catch((err: Error) =>
          log.error({ source: source.id, err: err.message }, 'source could not be indexed'),
        );
      // Catch up with whatever changed while we were down.
      else await enqueueSync(queue.queue, { source: source.id, reason: 'start-up' });
    }
  }

  const routers: express.Router[] = [];
  // Mounted without Redis too: a sender is told 503 (the queue is down), not 404 (no such hook).
  routers.push(
    webhookRouter({
      sources: config.sources,
      queue: queue?.queue,
      redis,
      ns: app.ns,
      maxBodyKb: config.queue.webhookMaxKb,
      timeoutMs: config.queue.webhookTimeoutMs,
      log,
    }),
  );
  const metrics = createMetrics({ app, queue: queue?.queue, worker: queue?.worker });
  const activity = redis ? createActivityStore(redis, `${app.ns}:`) : undefined;

  let slack: SlackBot | undefined;
  if (config.slack && redis && activity) {
    const reindexer = queue ? createQueueReindexer(app, queue.queue) : createBackgroundReindexer(app);
    // Bolt is loaded only when Slack is configured: it is a fifth of the CLI's start-up time.
    const { createSlackBot } = await import('./slack/bot.ts');
    slack = await createSlackBot({ app, config, redis, activity, reindexer, log, keyPrefix: `${app.ns}:` });
    if (slack.router) routers.push(slack.router);
  } else if (config.slack) {
    log.error('Slack is configured but Redis is not reachable: the bot needs Redis to answer each event once; Slack is off');
  }

  // Signed document links from Slack answers (LABBOT_PUBLIC_URL): open to members, not the dashboard.
  if (config.docLinks) routers.push(docViewRouter({ catalog: () => app.catalog, config, log }));
  const dashboardRefused = dashboardStartCheck(config);
  let adminToken: AdminToken | undefined;
  if (dashboardRefused) {
    log.error(dashboardRefused);
    // /readyz and /metrics are still wanted by orchestrators when the dashboard is refused.
    routers.push(readyzRouter(app, redis), metrics.router);
  } else {
    // No LABBOT_ADMIN_TOKEN: a token for this start only (cli.ts prints the link holding it), so
    // the dashboard is never open to whoever reaches the port, through a proxy or not.
    adminToken = adminTokenFor(config.adminToken);
    routers.push(await createAdminRouter({ app, queue: queue?.queue, redis, activity, metrics, log, adminToken }));
  }
  if (opts.routers) routers.push(...(await opts.routers({ app, queue, redis })));
  const server = await listen(
    createHttpApp(app, { routers, activity, redis, adminToken: adminToken?.value ?? config.adminToken }),
    config.port,
    config.host,
  );
  // Indexed DOIs are looked up again as their Crossref records expire (new retractions show up).
  const maxAge = config.enrich?.crossref.maxAgeMs;
  const recheck =
    app.enricher && app.notices && maxAge ? startNoticeRecheck(app, Math.min(3_600_000, Math.max(300_000, maxAge / 4))) : undefined;
  await slack?.start();
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.port;
  const url = `http://${config.host}:${port}`;
  const dashboardLink = adminToken && (adminToken.generated ? `${url}/admin?token=${adminToken.value}` : `${url}/admin`);
  return {
    app,
    url,
    server,
    queue,
    redis,
    metrics,
    activity,
    slack,
    dashboardRefused,
    dashboardLink,
    dashboardTokenGenerated: adminToken?.generated ?? false,
    async close() {
      // Stop taking Slack events and drain the answers (SHUTDOWN_BUDGET, src/shutdown.ts) while
      // the queue worker finishes its running job, both at once; then everything else.
      const worker = queue?.worker?.close().catch((err: Error) => log.warn({ err: err.message }, 'queue worker did not close cleanly'));
      await slack?.stop().catch(() => undefined);
      recheck?.stop();
      await worker;
      const closed = new Promise<void>((r) => server.close(() => r()));
      server.closeIdleConnections();
      await closed;
      await metrics.close();
      await queue?.close();
      await app.close();
      if (redis) await closeRedis(redis);
    },
  };
}
