// The activity part of the dashboard: recent questions, the per-hour chart of questions and index
// jobs, and the knowledge gaps as a CSV download (GET /gaps.csv).
import type { Queue } from 'bullmq';
import { Router } from 'express';
import type { QuestionRecord } from '../../store/activity.ts';
import { countPerBucket, isoToMs } from '../activity-views.ts';
import { gapsCsv, groupGaps } from '../gaps.ts';
import { barChart } from '../views/chart.ts';
import type { Html } from '../views/html.ts';
import type { DashboardContext } from './context.ts';

/** How many recent questions the chart and the knowledge gaps are read from. */
export const ACTIVITY_WINDOW = 1000;

/** The latest questions, or undefined when there is no activity store or it cannot be read. */
export async function recentActivity(
  { activity, log }: Pick<DashboardContext, 'activity' | 'log'>,
  limit: number,
): Promise<QuestionRecord[] | undefined> {
  if (!activity) return undefined;
  try {
    return await activity.recent(limit);
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'admin: activity unavailable');
    return undefined;
  }
}

export interface JobFinishTimes {
  completed: number[];
  failed: number[];
}

export async function jobFinishTimes(queue: Queue | undefined): Promise<JobFinishTimes> {
  if (!queue) return { completed: [], failed: [] };
  const [completed, failed] = await Promise.all([queue.getJobs(['completed'], 0, 999), queue.getJobs(['failed'], 0, 999)]);
  const times = (jobs: typeof completed) => jobs.map((j) => j?.finishedOn).filter((t): t is number => typeof t === 'number');
  return { completed: times(completed), failed: times(failed) };
}

/** Questions and index jobs per hour over the last 24 hours, as the dashboard's chart. */
export function activityChart(recent: QuestionRecord[], jobs: JobFinishTimes, now: number): Html {
  const hour = 3_600_000;
  return barChart(
    [
      { name: 'questions', cls: 'q', buckets: countPerBucket(isoToMs(recent.map((r) => r.ts)), now, 24, hour) },
      { name: 'index jobs done', cls: 'j', buckets: countPerBucket(jobs.completed, now, 24, hour) },
      { name: 'index jobs failed', cls: 'jf', buckets: countPerBucket(jobs.failed, now, 24, hour) },
    ],
    { title: 'Questions and index jobs per hour, last 24 hours' },
  );
}

export function gapsRouter(ctx: DashboardContext): Router {
  const config = ctx.app.config;
  const router = Router();
  router.get('/gaps.csv', async (_req, res) => {
    const recent = (await recentActivity(ctx, ACTIVITY_WINDOW)) ?? [];
    res.setHeader('Content-Disposition', `attachment; filename="labbot-gaps-${new Date().toISOString().slice(0, 10)}.csv"`);
    res.type('text/csv; charset=utf-8').send(`\ufeff${gapsCsv(groupGaps(recent, { minTopScore: config.gaps.minTopScore }))}`);
  });
  return router;
}
