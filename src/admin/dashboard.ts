// The admin dashboard and operations endpoints of `labbot serve`:
//   /admin (index, queue, ask box, activity, knowledge gaps, actions), /admin/queues (bull-board),
//   /admin/api/*, /admin/gaps.csv, and without authentication /readyz and /metrics.
// Mounted before the app's JSON parser: every body parser here is scoped to its own route.
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import type { Queue } from 'bullmq';
import express, { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { Logger } from 'pino';
import type { App } from '../app.ts';
import { groupsForChannel, type SourceConfig } from '../config.ts';
import { enqueueRebuild, enqueueSync } from '../queue/jobs.ts';
import { dashboardAsk } from './dashboard-ask.ts';
import type { ActivityStore, QuestionRecord } from '../store/activity.ts';
import type { Redis } from '../store/redis.ts';
import { KINDS } from '../types.ts';
import { countPerBucket, isoToMs } from './activity-views.ts';
import { createAuth, dashboardStartCheck, sameOrigin, withoutToken, type AdminToken } from './auth.ts';
import { gapsCsv, groupGaps } from './gaps.ts';
import { firstBy, type FirstBy } from './first-by.ts';
import { createInjectionScanner } from './injection-scan.ts';
import type { Metrics } from './metrics.ts';
import { barChart } from './views/chart.ts';
import { documentPage, documentView } from './views/document.ts';
import { safeJson } from './views/html.ts';
import { confirmRebuildPage, dashboardPage, loginPage, messagePage, type SourceView } from './views/pages.ts';

export { dashboardStartCheck } from './auth.ts';

export interface AdminDeps {
  app: App;
  queue: Queue | undefined;
  redis: Redis | undefined;
  activity: ActivityStore | undefined;
  metrics: Metrics;
  log: Logger;
  /** LABBOT_ADMIN_TOKEN, or the token `serve` made for this start when none is configured. */
  adminToken: AdminToken;
}

const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
// bull-board's UI sets inline style attributes and loads web fonts from Google: styles inline
// allowed, fonts from elsewhere refused (it falls back to system fonts).
const BOARD_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'self'";
const ACTIVITY_WINDOW = 1000;
const DOCS_PER_SOURCE = 200;
// How long a view waits for the check for planted instructions (the event loop stays free).
const INJECTION_WAIT_MS = 5000;

interface StaticFile {
  body: Buffer;
  type: string;
  etag: string;
}

function loadStatic(name: string, type: string): StaticFile {
  const body = readFileSync(new URL(`./static/${name}`, import.meta.url));
  return { body, type, etag: `"${createHash('sha1').update(body).digest('hex').slice(0, 16)}"` };
}

/** A git URL without credentials, for display. */
/** Where a source is read from; a Zotero source names its library (the mirror folder is labbot's own). */
function sourceLocation(s: SourceConfig): string {
  const z = s.zotero;
  if (!z) return displayLocation(s.url, s.path);
  const scope = z.collection ? `, collection ${z.collection}` : '';
  return z.via === 'web'
    ? `${displayLocation(z.apiUrl, '')} ${z.library}${scope}`
    : `${z.dataDir}${z.library ? ` (${z.library})` : ''}${scope}`;
}

function displayLocation(url: string | undefined, path: string): string {
  if (!url) return path;
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//');
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, fallback: T): Promise<T> {
  return Promise.race([p.catch(() => fallback), new Promise<T>((r) => setTimeout(() => r(fallback), ms).unref())]);
}

const wantsJson = (req: Request) =>
  req.path.startsWith('/api/') || req.originalUrl.startsWith('/admin/queues/api') || !(req.headers.accept ?? '').includes('text/html');

/** GET /readyz (no authentication): Chroma and Redis reachable; served even when the dashboard is not. */
export function readyzRouter(app: App, redis: Redis | undefined): Router {
  const router = Router();
  router.get('/readyz', async (_req, res) => {
    const [chroma, redisOk] = await Promise.all([
      withTimeout(app.store.heartbeat(), 2000, false),
      redis
        ? withTimeout(
            redis.ping().then((r) => r === 'PONG'),
            1000,
            false,
          )
        : Promise.resolve(false),
    ]);
    // chromaProcess: the embedded server's supervision (state, restarts, last exit), when labbot runs it.
    const body = { chroma: chroma ? 'ok' : 'down', redis: redisOk ? 'ok' : 'down', chromaProcess: app.chromaProcess() ?? null };
    res.setHeader('Cache-Control', 'no-store');
    res.status(chroma && redisOk ? 200 : 503).json(body);
  });
  return router;
}

export async function createAdminRouter(deps: AdminDeps): Promise<Router> {
  const { app, queue, redis, activity, metrics, log, adminToken } = deps;
  const config = app.config;
  const refusal = dashboardStartCheck(config);
  if (refusal) throw new Error(refusal);

  const auth = createAuth({ adminToken, redis, ns: app.ns });
  const files = new Map<string, StaticFile>([
    ['admin.js', loadStatic('admin.js', 'text/javascript; charset=utf-8')],
    ['admin.css', loadStatic('admin.css', 'text/css; charset=utf-8')],
  ]);
  const urlencoded = express.urlencoded({ extended: false, limit: '16kb' });
  const json = express.json({ limit: '16kb' });

  const router = Router();

  // --- operations (no authentication) ---
  router.use(readyzRouter(app, redis));
  router.use(metrics.router);

  // --- /admin ---
  const admin = Router();
  router.use('/admin', admin);

  admin.use((_req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'same-origin');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Cache-Control', 'no-store');
    next();
  });

  const sendHtml = (res: Response, status: number, page: string) => {
    res.status(status).setHeader('Content-Security-Policy', PAGE_CSP);
    res.type('html').send(page);
  };
  const sendJson = (res: Response, status: number, body: unknown) => {
    res.status(status).type('json').send(safeJson(body));
  };
  const denied = (req: Request, res: Response, status: 401 | 403, message: string) => {
    if (status === 401) res.setHeader('WWW-Authenticate', 'Bearer realm="labbot admin"');
    if (wantsJson(req)) return sendJson(res, status, { error: message });
    if (status === 401)
      return sendHtml(
        res,
        401,
        loginPage({
          next: req.originalUrl.startsWith('/admin') ? withoutToken(req.originalUrl) : '/admin',
          generated: auth.tokenGenerated,
          message: req.query.token === undefined ? undefined : message,
        }),
      );
    sendHtml(res, status, messagePage('Not allowed', message));
  };
  const csrfDenied = (req: Request, res: Response, message: string) => {
    log.warn({ path: req.originalUrl, ip: req.ip }, `admin: ${message}`);
    if (wantsJson(req)) return sendJson(res, 403, { error: message });
    sendHtml(res, 403, messagePage('Request refused', message));
  };

  admin.get('/login', (_req, res) => {
    sendHtml(res, 200, loginPage({ generated: auth.tokenGenerated }));
  });
  admin.post('/login', urlencoded, async (req, res, next) => {
    try {
      if (!sameOrigin(req)) return csrfDenied(req, res, 'cross-origin sign-in refused');
      const body = (req.body ?? {}) as Record<string, unknown>;
      const token = typeof body.token === 'string' ? body.token : '';
      if (!(await auth.login(req, res, token))) {
        log.warn({ ip: req.ip }, 'admin: failed sign-in');
        await new Promise((r) => setTimeout(r, 250));
        return sendHtml(res, 401, loginPage({ message: 'Wrong token.', generated: auth.tokenGenerated }));
      }
      const target =
        typeof body.next === 'string' && /^\/admin(\/[\w\-./?=&#%]*)?$/.test(body.next) && !body.next.startsWith('/admin/login')
          ? body.next
          : '/admin';
      res.redirect(303, target);
    } catch (err) {
      next(err);
    }
  });

  // Everything below needs authentication.
  admin.use(auth.require(denied));
  const csrf = auth.requireCsrf(csrfDenied);

  admin.get('/static/:name', (req, res) => {
    const f = files.get(req.params.name as string);
    if (!f) return res.status(404).end();
    res.setHeader('Cache-Control', 'private, max-age=300');
    res.setHeader('ETag', f.etag);
    if (req.headers['if-none-match'] === f.etag) return res.status(304).end();
    res.type(f.type).send(f.body);
  });

  admin.post('/logout', urlencoded, csrf, async (req, res) => {
    await auth.logout(req, res);
    res.redirect(303, '/admin/login');
  });

  // bull-board, behind the same authentication; its own POST/PUT calls must be same-origin.
  if (queue) {
    // Loaded on the first visit to the queue pages, not at start-up, where it was about a fifth of
    // a second of every restart (a bot restarting should answer first).
    let board: Promise<Router> | undefined;
    const loadBoard = async (): Promise<Router> => {
      const [{ createBullBoard }, { BullMQAdapter }, { ExpressAdapter }] = await Promise.all([
        import('@bull-board/api'),
        import('@bull-board/api/bullMQAdapter'),
        import('@bull-board/express'),
      ]);
      const serverAdapter = new ExpressAdapter();
      serverAdapter.setBasePath('/admin/queues');
      createBullBoard({ queues: [new BullMQAdapter(queue)], serverAdapter, options: { uiConfig: { boardTitle: 'labbot queue' } } });
      return serverAdapter.getRouter() as Router;
    };
    const boardRouter: RequestHandler = (req, res, next) => {
      board ??= loadBoard().catch((err: unknown) => {
        board = undefined;
        throw err;
      });
      board.then((router) => router(req, res, next), next);
    };
    const sameOriginWrites: RequestHandler = (req, res, next) => {
      if (req.method === 'GET' || req.method === 'HEAD' || req.adminAuth?.via === 'bearer') return next();
      const origin = req.headers.origin ?? req.headers.referer;
      let ok = false;
      try {
        ok = origin !== undefined && new URL(origin).host === (req.host ?? req.headers.host);
      } catch {
        ok = false;
      }
      if (!ok) return csrfDenied(req, res, 'queue changes must come from this dashboard');
      next();
    };
    const boardCsp: RequestHandler = (_req, res, next) => {
      res.setHeader('Content-Security-Policy', BOARD_CSP);
      next();
    };
    admin.use('/queues', sameOriginWrites, boardCsp, boardRouter);
  } else {
    admin.use('/queues', (_req, res) =>
      sendHtml(res, 503, messagePage('Queue unavailable', 'Redis is not reachable, so this process has no queue.')),
    );
  }

  // Asking as a channel (which can open restricted groups) needs the admin token, here as on
  // POST /api/ask: every dashboard request has it (configured or made at start-up).
  const channelOptions = () => [
    { value: 'public', label: `public (groups: ${groupsForChannel(config.access).join(', ')})` },
    ...Object.keys(config.access.channels).map((ch) => ({
      value: ch,
      label: `${ch} (groups: ${groupsForChannel(config.access, ch).join(', ')})`,
    })),
  ];

  async function recentActivity(limit: number): Promise<QuestionRecord[] | undefined> {
    if (!activity) return undefined;
    try {
      return await activity.recent(limit);
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'admin: activity unavailable');
      return undefined;
    }
  }

  async function jobFinishTimes(): Promise<{ completed: number[]; failed: number[] }> {
    if (!queue) return { completed: [], failed: [] };
    const [completed, failed] = await Promise.all([queue.getJobs(['completed'], 0, 999), queue.getJobs(['failed'], 0, 999)]);
    const times = (jobs: typeof completed) => jobs.map((j) => j?.finishedOn).filter((t): t is number => typeof t === 'number');
    return { completed: times(completed), failed: times(failed) };
  }

  async function sourceViews(): Promise<SourceView[]> {
    const stats = app.catalog.stats();
    // Each source's first documents by title, without sorting all of them.
    const docsBySource = new Map<string, FirstBy<SourceView['docs'][number]>>();
    for (const d of app.catalog.docs()) {
      let first = docsBySource.get(d.source);
      if (!first) docsBySource.set(d.source, (first = firstBy(DOCS_PER_SOURCE, (a, b) => a.title.localeCompare(b.title))));
      first.add({ id: d.id, title: d.title, kind: d.kind, path: d.path, chunks: d.chunkIds.length, notes: d.metaNotes?.length ?? 0 });
    }
    const configured = config.sources.map((s) => ({ id: s.id, type: s.type, location: sourceLocation(s) }));
    const extra = Object.keys(stats.bySource)
      .filter((id) => !config.sources.some((s) => s.id === id))
      .map((id) => ({ id, type: 'not configured (CLI ingest)', location: '' }));
    return Promise.all(
      [...configured, ...extra].map(async (s) => {
        const st = stats.bySource[s.id];
        const [state, problems] = app.records
          ? await Promise.all([app.records.sourceState(s.id), app.records.problems(s.id)])
          : [undefined, []];
        const first = docsBySource.get(s.id);
        const docs = first?.items() ?? [];
        return {
          ...s,
          state,
          documents: st?.documents ?? 0,
          chunks: st?.chunks ?? 0,
          byKind: KINDS.filter((k) => st?.byKind[k]).map((k) => ({
            kind: k,
            documents: st?.byKind[k]?.documents ?? 0,
            chunks: st?.byKind[k]?.chunks ?? 0,
          })),
          problems: problems.sort((a, b) => a.path.localeCompare(b.path)),
          docs,
          moreDocs: (first?.seen ?? 0) - docs.length,
        };
      }),
    );
  }

  // Documents holding instructions addressed to an assistant: read from every chunk text in
  // slices that leave the event loop free, once per document version (injection-scan.ts).
  const injections = createInjectionScanner({ log });

  admin.get('/', async (req, res, next) => {
    try {
      const errors: string[] = [];
      const [sources, counts, recent, jobs, planted] = await Promise.all([
        sourceViews(),
        queue
          ? queue.getJobCounts('waiting', 'active', 'completed', 'failed', 'delayed').catch(() => undefined)
          : Promise.resolve(undefined),
        recentActivity(ACTIVITY_WINDOW),
        jobFinishTimes().catch((err: Error) => {
          errors.push(`Queue history unavailable: ${err.message}`);
          return { completed: [], failed: [] };
        }),
        injections.scan(app.catalog, INJECTION_WAIT_MS),
      ]);
      const now = Date.now();
      const hour = 3_600_000;
      const chart = barChart(
        [
          { name: 'questions', cls: 'q', buckets: countPerBucket(isoToMs((recent ?? []).map((r) => r.ts)), now, 24, hour) },
          { name: 'index jobs done', cls: 'j', buckets: countPerBucket(jobs.completed, now, 24, hour) },
          { name: 'index jobs failed', cls: 'jf', buckets: countPerBucket(jobs.failed, now, 24, hour) },
        ],
        { title: 'Questions and index jobs per hour, last 24 hours' },
      );
      const queued = typeof req.query.queued === 'string' ? req.query.queued.slice(0, 120) : undefined;
      const state = req.adminAuth;
      const page = dashboardPage({
        csrf: state?.session?.csrf ?? '',
        generatedToken: auth.tokenGenerated,
        signedIn: state?.via === 'session',
        version: app.version,
        versionDescription: app.versionDescription,
        embeddings: `${config.embeddings.provider}:${config.embeddings.model}`,
        base: app.base,
        collection: config.collection,
        chromaProcess: app.chromaProcess(),
        queueCounts: counts,
        sources,
        channels: channelOptions(),
        recent: recent?.slice(0, 25),
        chart,
        gaps: groupGaps(recent ?? [], { minTopScore: config.gaps.minTopScore }),
        injections: planted.found,
        injectionsPending: planted.pending,
        notes: await app.records?.notes().catch(() => []),
        flash: queued ? `Queued job ${queued}.` : undefined,
        errors,
      });
      sendHtml(res, 200, page);
    } catch (err) {
      next(err);
    }
  });

  // One document: each metadata field with where it came from.
  admin.get('/doc', (req, res) => {
    const id = typeof req.query.id === 'string' ? req.query.id : '';
    const doc = id ? app.catalog.doc(id) : undefined;
    if (!doc) return sendHtml(res, 404, messagePage('No such document', `No indexed document has the id "${id.slice(0, 200)}".`));
    sendHtml(res, 200, documentPage(documentView(doc)));
  });

  admin.get('/gaps.csv', async (_req, res) => {
    const recent = (await recentActivity(ACTIVITY_WINDOW)) ?? [];
    res.setHeader('Content-Disposition', `attachment; filename="labbot-gaps-${new Date().toISOString().slice(0, 10)}.csv"`);
    res.type('text/csv; charset=utf-8').send(`\ufeff${gapsCsv(groupGaps(recent, { minTopScore: config.gaps.minTopScore }))}`);
  });

  admin.get('/api/status', async (_req, res, next) => {
    try {
      const counts = queue ? await queue.getJobCounts('waiting', 'active', 'completed', 'failed', 'delayed') : undefined;
      const stats = app.catalog.stats();
      sendJson(res, 200, {
        version: app.version,
        base: app.base,
        queue: counts ?? null,
        documents: stats.documents,
        chunks: stats.chunks,
        bySource: stats.bySource,
      });
    } catch (err) {
      next(err);
    }
  });

  admin.post('/api/ask', json, csrf, dashboardAsk({ app, activity, log, send: sendJson }));

  admin.post('/actions/sync', urlencoded, csrf, async (req, res, next) => {
    try {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const source = config.sources.find((s) => s.id === body.source);
      if (!source)
        return sendHtml(res, 400, messagePage('Unknown source', `No configured source is called "${String(body.source ?? '')}".`));
      if (!queue) return sendHtml(res, 503, messagePage('Queue unavailable', 'Redis is not reachable.'));
      const id = await enqueueSync(queue, { source: source.id, reason: 'dashboard', full: body.full === '1' });
      log.info({ source: source.id, job: id }, 'admin: sync queued');
      res.redirect(303, `/admin?queued=${encodeURIComponent(id)}#queue`);
    } catch (err) {
      next(err);
    }
  });

  admin.post('/actions/rebuild', urlencoded, csrf, async (req, res, next) => {
    try {
      const body = (req.body ?? {}) as Record<string, unknown>;
      if (!queue) return sendHtml(res, 503, messagePage('Queue unavailable', 'Redis is not reachable.'));
      if (body.confirm !== 'yes') return sendHtml(res, 200, confirmRebuildPage(req.adminAuth?.session?.csrf ?? ''));
      const id = await enqueueRebuild(queue, { reason: 'dashboard' });
      log.warn({ job: id }, 'admin: index rebuild queued');
      res.redirect(303, `/admin?queued=${encodeURIComponent(id)}#queue`);
    } catch (err) {
      next(err);
    }
  });

  admin.use((err: Error & { status?: number; expose?: boolean }, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    // Body-parser refusals (too large, malformed, bad charset) are the client's error: their
    // status and a short reason, no stack and no "internal error" in the log.
    if (err.expose && err.status && err.status >= 400 && err.status < 500) {
      const message = err.status === 413 ? 'request body too large' : 'malformed request body';
      log.warn({ path: req.originalUrl, status: err.status }, `admin: ${message}`);
      if (wantsJson(req)) return sendJson(res, err.status, { error: message });
      return sendHtml(res, err.status, messagePage('Request refused', message));
    }
    log.error({ err, path: req.originalUrl }, 'admin request failed');
    if (wantsJson(req)) return sendJson(res, 500, { error: 'internal error' });
    sendHtml(res, 500, messagePage('Something went wrong', 'The dashboard could not be rendered; see the server log.'));
  });

  return router;
}

/**
 * The ask box's rows: one per retrieved chunk, and a hit handed over with its neighbouring chunks
 * one row per chunk (each is labelled and cited on its own) at the hit's rank; only the hit has
 * dense and BM25 ranks of its own.
 */
