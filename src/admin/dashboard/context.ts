// What every area of the dashboard is handed by createAdminRouter (src/admin/dashboard.ts).
import type { Queue } from 'bullmq';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { Labbot } from '../../app.ts';
import type { ActivityStore } from '../../store/activity.ts';
import type { Auth } from '../auth.ts';
import type { Refusals } from './refusals.ts';

export interface DashboardContext {
  app: Labbot;
  queue: Queue | undefined;
  activity: ActivityStore | undefined;
  log: Logger;
  auth: Auth;
  refusals: Refusals;
  /** The same-origin check for forms and API writes (auth.ts requireCsrf). */
  csrf: RequestHandler;
  /** Body parsers, scoped to the routes that take a body (the dashboard is mounted before the app's). */
  urlencoded: RequestHandler;
  json: RequestHandler;
}
