// The admin dashboard and operations endpoints of `labbot serve`:
//   /admin (index, queue, ask box, activity, knowledge gaps, actions), /admin/queues (bull-board),
//   /admin/api/*, /admin/gaps.csv, and without authentication /readyz and /metrics.
// Mounted before the app's JSON parser: every body parser here is scoped to its own route.
// Each area's routes are in dashboard/; this mounts them behind the one authentication check.
import type { Queue } from 'bullmq';
import express, { Router } from 'express';
import type { Logger } from 'pino';
import type { Labbot } from '../app.ts';
import type { ActivityStore } from '../store/activity.ts';
import type { Redis } from '../store/redis.ts';
import { type AdminToken, createAuth, dashboardStartCheck } from './auth.ts';
import { dashboardAsk } from './dashboard-ask.ts';
import { gapsRouter } from './dashboard/activity.ts';
import type { DashboardContext } from './dashboard/context.ts';
import { documentsRouter } from './dashboard/documents.ts';
import { overviewRouter } from './dashboard/overview.ts';
import { queueBoardRouter } from './dashboard/queue-board.ts';
import { readyzRouter } from './dashboard/readyz.ts';
import { createRefusals, errorHandler } from './dashboard/refusals.ts';
import { securityHeaders, sendJson } from './dashboard/respond.ts';
import { sessionRouter, signInRouter } from './dashboard/sign-in.ts';
import { sourceActionsRouter } from './dashboard/sources.ts';
import type { Metrics } from './metrics.ts';

export { dashboardStartCheck } from './auth.ts';
export { readyzRouter } from './dashboard/readyz.ts';

export interface AdminDeps {
  app: Labbot;
  queue: Queue | undefined;
  redis: Redis | undefined;
  activity: ActivityStore | undefined;
  metrics: Metrics;
  log: Logger;
  /** LABBOT_ADMIN_TOKEN, or the token `serve` made for this start when none is configured. */
  adminToken: AdminToken;
}

export async function createAdminRouter(deps: AdminDeps): Promise<Router> {
  const { app, queue, redis, activity, metrics, log, adminToken } = deps;
  const refusal = dashboardStartCheck(app.config);
  if (refusal) throw new Error(refusal);

  const auth = createAuth({ adminToken, redis, ns: app.ns });
  const refusals = createRefusals(auth, log);
  const ctx: DashboardContext = {
    app,
    queue,
    activity,
    log,
    auth,
    refusals,
    csrf: auth.requireCsrf(refusals.csrfDenied),
    urlencoded: express.urlencoded({ extended: false, limit: '16kb' }),
    json: express.json({ limit: '16kb' }),
  };

  const router = Router();
  // --- operations (no authentication) ---
  router.use(readyzRouter(app, redis));
  router.use(metrics.router);

  // --- /admin ---
  const admin = Router();
  router.use('/admin', admin);
  admin.use(securityHeaders);
  admin.use(signInRouter(ctx));
  // Everything below needs authentication.
  admin.use(auth.require(refusals.denied));
  admin.use(sessionRouter(ctx));
  admin.use(queueBoardRouter(ctx));
  admin.use(overviewRouter(ctx));
  admin.use(documentsRouter(ctx));
  admin.use(gapsRouter(ctx));
  admin.post('/api/ask', ctx.json, ctx.csrf, dashboardAsk({ app, activity, log, send: sendJson }));
  admin.use(sourceActionsRouter(ctx));
  admin.use(errorHandler(log));
  return router;
}
