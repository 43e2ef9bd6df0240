// POST /hooks/wiki/<source-id>: GitHub (push, gollum; X-Hub-Signature-256), GitLab (push, wiki
// page; X-Gitlab-Token) and a generic signed JSON body ({changed, deleted}; X-Labbot-Signature).
// Signatures are checked over the raw body before anything is parsed. A delivery is accepted once
// per (signed body, delivery id): the id header is not signed, so keying on it alone would let a
// captured body squat a future delivery's id, and a sender without ids (every edit notified with
// the same body) would be told "duplicate". Without an id header nothing is deduplicated; a sync
// is idempotent, so a replay only costs a re-check. The key is written after the job is queued.
// When the queue cannot be reached (Redis down, or slower than `queue.webhookTimeoutMs`) the
// answer is 503 with Retry-After within that time, never a hang past the sender's own timeout
// (GitHub's is 10 s), and a catch-up sync of the source is queued once Redis is back.
import { createHash, createHmac } from 'node:crypto';
import express, { type Request, type Response } from 'express';
import type { Queue } from 'bullmq';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { SourceConfig } from '../config.ts';
import { enqueueSync } from '../queue/jobs.ts';
import { safeEqual } from './auth.ts';
import { createCatchUp } from './webhook-catch-up.ts';
import { safeRelativePath } from '../queue/sync-source.ts';
import type { Redis } from '../store/redis.ts';

export interface WebhookDeps {
  sources: SourceConfig[];
  /** Undefined when Redis was unreachable at start: every delivery is then answered 503. */
  queue: Queue | undefined;
  redis: Redis | undefined;
  ns: string;
  maxBodyKb: number;
  /** How long a delivery may wait for Redis before it is answered 503. */
  timeoutMs: number;
  log: Logger;
}

/** What a sender is told to wait before retrying a delivery refused for an unreachable queue. */
const RETRY_AFTER_S = 30;

class QueueTimeout extends Error {}

/** `work`, or a QueueTimeout after `ms` (the work goes on: a late success is a queued delivery). */
function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new QueueTimeout(`the queue did not answer within ${ms} ms`)), ms);
  });
  work.catch(() => undefined);
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

export function verifyHmac(secret: string, body: Buffer, header: string | undefined): boolean {
  if (!header?.startsWith('sha256=')) return false;
  const expected = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  return safeEqual(expected, header.trim());
}

const genericBody = z
  .object({
    changed: z.array(z.string()).max(10_000).default([]),
    deleted: z.array(z.string()).max(10_000).default([]),
  })
  .strict();

type Verdict =
  | { ok: false; status: number; error: string }
  | {
      ok: true;
      kind: 'github' | 'gitlab' | 'generic';
      event: string;
      delivery?: string;
      sync: boolean;
      changed?: string[];
      deleted?: string[];
    };

/** The deduplication key of a delivery: its signed body and its delivery id; none without an id. */
export function deliveryKey(body: Buffer, delivery: string | undefined): string | undefined {
  if (!delivery) return undefined;
  return createHash('sha256').update(body).update('\u0000').update(delivery).digest('hex');
}

/** Pure: decides what a delivery means from its headers and raw body. */
export function judgeDelivery(source: SourceConfig, headers: Record<string, string | undefined>, body: Buffer): Verdict {
  const secret = source.secret;
  if (!secret) return { ok: false, status: 403, error: `webhooks are off for source "${source.id}": set a secret in its config` };
  if (headers['x-github-event']) {
    if (!verifyHmac(secret, body, headers['x-hub-signature-256']))
      return { ok: false, status: 401, error: 'bad or missing X-Hub-Signature-256' };
    const event = headers['x-github-event'];
    return { ok: true, kind: 'github', event, delivery: headers['x-github-delivery'], sync: event === 'push' || event === 'gollum' };
  }
  if (headers['x-gitlab-event']) {
    const token = headers['x-gitlab-token'];
    if (!token || !safeEqual(token, secret)) return { ok: false, status: 401, error: 'bad or missing X-Gitlab-Token' };
    const event = headers['x-gitlab-event'];
    return {
      ok: true,
      kind: 'gitlab',
      event,
      delivery: headers['x-gitlab-event-uuid'],
      sync: event === 'Push Hook' || event === 'Wiki Page Hook',
    };
  }
  if (!verifyHmac(secret, body, headers['x-labbot-signature']))
    return { ok: false, status: 401, error: 'bad or missing X-Labbot-Signature' };
  let parsed: z.infer<typeof genericBody>;
  try {
    const r = genericBody.safeParse(JSON.parse(body.toString('utf8')));
    if (!r.success)
      return { ok: false, status: 400, error: `body must be {"changed": [paths], "deleted": [paths]}: ${r.error.issues[0]?.message}` };
    parsed = r.data;
  } catch {
    return { ok: false, status: 400, error: 'body is not JSON' };
  }
  const bad = [...parsed.changed, ...parsed.deleted].find((p) => safeRelativePath(p) === undefined);
  if (bad !== undefined)
    return { ok: false, status: 400, error: `path ${JSON.stringify(bad.slice(0, 200))} is not a relative path inside the source` };
  return {
    ok: true,
    kind: 'generic',
    event: 'change',
    delivery: headers['x-labbot-delivery'],
    sync: true,
    changed: parsed.changed,
    deleted: parsed.deleted,
  };
}

export function webhookRouter(deps: WebhookDeps): express.Router {
  const router = express.Router();
  const catchUp = createCatchUp(deps.queue, deps.log);
  // ioredis emits "ready" on every reconnect: the refused deliveries' sources are synced then.
  deps.redis?.on('ready', () => void catchUp.flush());
  // The sender is told what kind of trouble it is (it is signed, but not an admin); the log has the detail.
  const unavailable = (res: Response, source: string, kind: string, delivery: string | undefined, why: string, detail = why) => {
    catchUp.missed(source);
    deps.log.error(
      { source, kind, delivery, err: detail },
      'webhook could not be queued: answered 503; the source is synced once the queue answers again',
    );
    res.setHeader('Retry-After', String(RETRY_AFTER_S));
    res.status(503).json({ error: `the change could not be queued (${why}); retry later` });
  };
  router.post(
    '/hooks/wiki/:source',
    express.raw({ type: () => true, limit: `${deps.maxBodyKb}kb` }),
    async (req: Request<{ source: string }>, res: Response) => {
      const source = deps.sources.find((s) => s.id === req.params.source);
      if (!source) {
        res.status(404).json({ error: `no source "${String(req.params.source).slice(0, 100)}"` });
        return;
      }
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));
      const verdict = judgeDelivery(source, headers, body);
      if (!verdict.ok) {
        deps.log.warn({ source: source.id, status: verdict.status, error: verdict.error }, 'webhook refused');
        res.status(verdict.status).json({ error: verdict.error });
        return;
      }
      if (!verdict.sync) {
        res.status(202).json({ ignored: `event ${verdict.event} does not change pages` });
        return;
      }
      const { queue, redis } = deps;
      if (!queue || !redis) {
        unavailable(res, source.id, verdict.kind, verdict.delivery, 'no queue: Redis was not reachable when labbot started, restart it');
        return;
      }
      // ioredis holds commands while it reconnects, and BullMQ's connection retries them forever:
      // asking a Redis that is known to be down would only wait for the timeout.
      if (redis.status !== 'ready') {
        unavailable(res, source.id, verdict.kind, verdict.delivery, 'Redis is not reachable', `Redis connection is ${redis.status}`);
        return;
      }
      const key = deliveryKey(body, verdict.delivery);
      const seenKey = key && `${deps.ns}:delivery:${source.id}:${key}`;
      const queueIt = async (): Promise<{ duplicate: true } | { job: string }> => {
        if (seenKey && (await redis.exists(seenKey))) return { duplicate: true };
        // Git sources always diff commits (the payload is only a trigger); folders can take paths.
        const paths = source.type === 'folder' && verdict.kind === 'generic' && (verdict.changed?.length || verdict.deleted?.length);
        const job = await enqueueSync(
          queue,
          {
            source: source.id,
            reason: `${verdict.kind} webhook`,
            ...(paths ? { changed: verdict.changed, deleted: verdict.deleted } : {}),
          },
          key,
        );
        // Only now: a delivery that could not be queued must not look like a duplicate on retry.
        if (seenKey) await redis.set(seenKey, '1', 'EX', 86_400);
        return { job };
      };
      const work = queueIt();
      try {
        const done = await within(work, deps.timeoutMs);
        if ('duplicate' in done) {
          res.status(200).json({ duplicate: true, delivery: verdict.delivery });
          return;
        }
        deps.log.info({ source: source.id, kind: verdict.kind, event: verdict.event, job: done.job }, 'webhook accepted');
        res.status(202).json({ queued: done.job, delivery: verdict.delivery });
        void catchUp.flush();
      } catch (err) {
        const late = err instanceof QueueTimeout;
        unavailable(
          res,
          source.id,
          verdict.kind,
          verdict.delivery,
          late ? 'the queue did not answer in time' : 'the queue refused it',
          (err as Error).message,
        );
        if (late)
          void work.then(
            () => catchUp.queuedLate(source.id),
            () => undefined,
          );
      }
    },
  );
  return router;
}
