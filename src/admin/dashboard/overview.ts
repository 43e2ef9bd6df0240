// The dashboard's front page (GET /admin): status, queue counts, sources, the ask box's channels,
// recent activity and its chart, knowledge gaps, planted instructions and notes; and the same
// status as JSON (GET /api/status).
import { Router } from 'express';
import { groupsForChannel } from '../../config.ts';
import { groupGaps } from '../gaps.ts';
import { createInjectionScanner } from '../injection-scan.ts';
import { dashboardPage } from '../views/pages.ts';
import { ACTIVITY_WINDOW, activityChart, jobFinishTimes, recentActivity } from './activity.ts';
import type { DashboardContext } from './context.ts';
import { sendHtml, sendJson } from './respond.ts';
import { sourceViews } from './sources.ts';

// How long a view waits for the check for planted instructions (the event loop stays free).
const INJECTION_WAIT_MS = 5000;

export function overviewRouter(ctx: DashboardContext): Router {
  const { app, queue, auth, log } = ctx;
  const config = app.config;
  // Documents holding instructions addressed to an assistant: read from every chunk text in
  // slices that leave the event loop free, once per document version (injection-scan.ts).
  const injections = createInjectionScanner({ log });

  // Asking as a channel (which can open restricted groups) needs the admin token, here as on
  // POST /api/ask: every dashboard request has it (configured or made at start-up).
  const channelOptions = () => [
    { value: 'public', label: `public (groups: ${groupsForChannel(config.access).join(', ')})` },
    ...Object.keys(config.access.channels).map((ch) => ({
      value: ch,
      label: `${ch} (groups: ${groupsForChannel(config.access, ch).join(', ')})`,
    })),
  ];

  const router = Router();
  router.get('/', async (req, res, next) => {
    try {
      const errors: string[] = [];
      const [sources, counts, recent, jobs, planted] = await Promise.all([
        sourceViews(app),
        queue
          ? queue.getJobCounts('waiting', 'active', 'completed', 'failed', 'delayed').catch(() => undefined)
          : Promise.resolve(undefined),
        recentActivity(ctx, ACTIVITY_WINDOW),
        jobFinishTimes(queue).catch((err: Error) => {
          errors.push(`Queue history unavailable: ${err.message}`);
          return { completed: [], failed: [] };
        }),
        injections.scan(app.catalog, INJECTION_WAIT_MS),
      ]);
      const queued = typeof req.query.queued === 'string' ? req.query.queued.slice(0, 120) : undefined;
      const state = req.adminAuth;
      const page = dashboardPage({
        csrf: state?.session?.csrf ?? '',
        generatedToken: auth.tokenGenerated,
        signedIn: state?.via === 'session',
        version: app.version,
        versionDescription: app.versionDescription,
        translation: app.translation,
        embeddings: `${config.embeddings.provider}:${config.embeddings.model}`,
        base: app.base,
        collection: config.collection,
        chromaProcess: app.chromaProcess(),
        queueCounts: counts,
        sources,
        channels: channelOptions(),
        recent: recent?.slice(0, 25),
        chart: activityChart(recent ?? [], jobs, Date.now()),
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

  router.get('/api/status', async (_req, res, next) => {
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
  return router;
}
