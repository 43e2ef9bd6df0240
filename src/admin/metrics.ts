// Prometheus metrics on GET /metrics, in a Registry of our own (never prom-client's global one).
// Queue depth and index sizes are read when scraped; latencies and outcomes are observed by the
// Labbot itself (every ask, whichever path it came by: Slack, /api/ask, the dashboard).
import { QueueEvents, type Queue, type Worker, type Job } from 'bullmq';
import { Router } from 'express';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Asker } from '../ports.ts';
import { KINDS } from '../types.ts';

export type AskOutcome = 'answered' | 'refused' | 'error';

export interface Metrics {
  registry: Registry;
  observeAsk(o: { outcome: AskOutcome; totalMs: number; retrievalMs?: number }): void;
  /** GET /metrics (no authentication: counts only, no content). */
  router: Router;
  close(): Promise<void>;
}

const QUEUE_STATES = ['waiting', 'active', 'completed', 'failed', 'delayed', 'prioritized', 'waiting-children'] as const;

export function createMetrics(deps: { app: Pick<Asker, 'catalog' | 'onAsked'>; queue?: Queue; worker?: Worker }): Metrics {
  const registry = new Registry();
  const { app, queue, worker } = deps;

  const answerSeconds = new Histogram({
    name: 'labbot_answer_duration_seconds',
    help: 'Time to answer a question (retrieval and generation)',
    labelNames: ['outcome'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64],
    registers: [registry],
  });
  const retrievalSeconds = new Histogram({
    name: 'labbot_retrieval_duration_seconds',
    help: 'Time spent retrieving passages for a question',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5],
    registers: [registry],
  });
  const questions = new Counter({
    name: 'labbot_questions_total',
    help: 'Questions answered, by outcome',
    labelNames: ['outcome'],
    registers: [registry],
  });
  for (const outcome of ['answered', 'refused', 'error'] satisfies AskOutcome[]) questions.inc({ outcome }, 0);

  new Gauge({
    name: 'labbot_queue_jobs',
    help: 'Jobs in the labbot-index queue, by state',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      if (!queue) return;
      try {
        const counts = await queue.getJobCounts(...QUEUE_STATES);
        for (const state of QUEUE_STATES) this.set({ state }, counts[state] ?? 0);
      } catch {
        // Redis down: the readiness probe says so; keep the last values rather than failing the scrape.
      }
    },
  });
  const jobSeconds = new Histogram({
    name: 'labbot_job_duration_seconds',
    help: 'Duration of index jobs, by job name and result',
    labelNames: ['name', 'status'],
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900],
    registers: [registry],
  });
  new Gauge({
    name: 'labbot_documents_indexed',
    help: 'Documents in the live index, by source and kind',
    labelNames: ['source', 'kind'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [source, s] of Object.entries(app.catalog.stats().bySource)) {
        for (const kind of KINDS) if (s.byKind[kind]) this.set({ source, kind }, s.byKind[kind]?.documents ?? 0);
      }
    },
  });
  new Gauge({
    name: 'labbot_chunks_indexed',
    help: 'Chunks in the live index, by source and kind',
    labelNames: ['source', 'kind'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [source, s] of Object.entries(app.catalog.stats().bySource)) {
        for (const kind of KINDS) if (s.byKind[kind]) this.set({ source, kind }, s.byKind[kind]?.chunks ?? 0);
      }
    },
  });

  const observeJob = (job: Job | undefined, status: 'completed' | 'failed') => {
    if (!job?.processedOn || !job.finishedOn) return;
    jobSeconds.observe({ name: job.name, status }, Math.max(0, job.finishedOn - job.processedOn) / 1000);
  };
  const onCompleted = (job: Job) => observeJob(job, 'completed');
  const onFailed = (job: Job | undefined) => observeJob(job, 'failed');
  let events: QueueEvents | undefined;
  if (worker) {
    worker.on('completed', onCompleted);
    worker.on('failed', onFailed);
  } else if (queue) {
    // No worker in this process: follow the queue's event stream instead.
    events = new QueueEvents(queue.name, { connection: queue.opts.connection, prefix: queue.opts.prefix });
    events.on('error', () => undefined);
    const fetchAndObserve = (jobId: string, status: 'completed' | 'failed') => {
      queue
        .getJob(jobId)
        .then((job) => observeJob(job, status))
        .catch(() => undefined);
    };
    events.on('completed', ({ jobId }) => fetchAndObserve(jobId, 'completed'));
    events.on('failed', ({ jobId }) => fetchAndObserve(jobId, 'failed'));
  }

  const router = Router();
  router.get('/metrics', (_req, res, next) => {
    registry
      .metrics()
      .then((text) => {
        res.setHeader('Content-Type', registry.contentType);
        res.setHeader('Cache-Control', 'no-store');
        res.send(text);
      })
      .catch(next);
  });

  const observeAsk: Metrics['observeAsk'] = ({ outcome, totalMs, retrievalMs }) => {
    questions.inc({ outcome });
    answerSeconds.observe({ outcome }, totalMs / 1000);
    if (retrievalMs !== undefined) retrievalSeconds.observe(retrievalMs / 1000);
  };
  app.onAsked((e) =>
    observeAsk({
      outcome: e.error ? 'error' : e.result?.refused ? 'refused' : 'answered',
      totalMs: e.totalMs,
      retrievalMs: e.result?.timings.totalMs,
    }),
  );

  return {
    registry,
    router,
    observeAsk,
    async close() {
      worker?.off('completed', onCompleted);
      worker?.off('failed', onFailed);
      await events?.close();
    },
  };
}
