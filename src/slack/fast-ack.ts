// Events API acks before Bolt. Bolt acknowledges an event only after reading the body, verifying
// it, authorising and building listener arguments, in the same event loop that is answering the
// previous mentions; 50 mentions at once then wait ~150 ms for their 200. Events carry nothing to
// send back, so we verify the signature (Bolt's own check), answer 200 at once, and hand the
// event to Bolt a moment later. Commands and interactivity (whose ack may carry a body) go
// through Bolt's receiver with the raw body we already read.
import type { App as BoltApp } from '@slack/bolt';
import { isValidSlackRequest } from '@slack/bolt';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';

type WithRawBody = Request & { rawBody?: Buffer };

/** Start answering once no new event arrived for this long (or the oldest waited MAX_WAIT_MS). */
const QUIET_MS = 5;
const MAX_WAIT_MS = 50;

export interface FastEventAck extends express.Router {
  /** Hands every acknowledged event still waiting for its quiet moment to Bolt now, and resolves when Bolt has run them all (at shutdown). */
  flush(): Promise<void>;
}

export function fastEventAck(deps: {
  bolt: BoltApp;
  signingSecret: string;
  log: Logger;
  path?: string;
  /** False while shutting down: events get a 503 so Slack redelivers them (here after a restart, or to another replica). */
  accepting?: () => boolean;
}): FastEventAck {
  const router = express.Router() as FastEventAck;
  // Answering is CPU work on this same event loop: started between the requests of a burst, it
  // would hold up their acks. Events wait for a short quiet moment (bounded), so a burst of
  // mentions is acked first and answered right after.
  let pending: Parameters<BoltApp['processEvent']>[0][] = [];
  let oldest = 0;
  let timer: NodeJS.Timeout | undefined;
  // Events handed to Bolt and not yet through its listeners: shutdown waits for them.
  const inFlight = new Set<Promise<void>>();
  const drain = () => {
    timer = undefined;
    const batch = pending;
    pending = [];
    for (const e of batch) {
      const p = deps.bolt.processEvent(e).catch((err: Error) => deps.log.error({ err: err.message }, 'Slack event failed after ack'));
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
    }
  };
  const schedule = (e: Parameters<BoltApp['processEvent']>[0]) => {
    if (pending.length === 0) oldest = performance.now();
    pending.push(e);
    if (timer) clearTimeout(timer);
    timer = setTimeout(drain, performance.now() - oldest >= MAX_WAIT_MS ? 0 : QUIET_MS);
  };
  router.post(
    deps.path ?? '/slack/events',
    express.raw({ type: () => true, limit: '1mb' }),
    (req: WithRawBody, res: Response, next: NextFunction) => {
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      // Bolt's receiver reads req.rawBody when present instead of the (consumed) stream.
      req.rawBody = raw;
      if (!(req.headers['content-type'] ?? '').includes('application/json')) return next();
      const text = raw.toString('utf8');
      let body: { type?: string };
      try {
        body = JSON.parse(text) as { type?: string };
      } catch {
        return next();
      }
      if (body.type !== 'event_callback') return next();
      const signature = req.headers['x-slack-signature'];
      const timestamp = Number(req.headers['x-slack-request-timestamp']);
      if (
        typeof signature !== 'string' ||
        !isValidSlackRequest({
          signingSecret: deps.signingSecret,
          body: text,
          headers: { 'x-slack-signature': signature, 'x-slack-request-timestamp': timestamp },
        })
      ) {
        res.status(401).end();
        return;
      }
      if (deps.accepting && !deps.accepting()) {
        res.status(503).end();
        return;
      }
      res.status(200).end();
      const retryNum = Number(req.headers['x-slack-retry-num']);
      const retryReason = req.headers['x-slack-retry-reason'];
      schedule({
        body: body as Record<string, unknown>,
        ack: async () => undefined,
        retryNum: Number.isFinite(retryNum) ? retryNum : undefined,
        retryReason: typeof retryReason === 'string' ? retryReason : undefined,
      });
    },
  );
  router.flush = async () => {
    if (timer) clearTimeout(timer);
    drain();
    await Promise.allSettled([...inFlight]);
  };
  return router;
}
