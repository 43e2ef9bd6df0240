// HTTP surface of `labbot serve`: the ask API and health, with the routers of Slack, webhooks and
// the dashboard mounted on the same server (serve.ts passes them in).
import type { Server } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import type { Asker, Installation } from '../ports.ts';
import { toAskJson } from '../answer/ask-json.ts';
import { askAs } from '../ask.ts';
import type { ActivityStore } from '../store/activity.ts';
import { httpFailure } from './ask-http.ts';
import type { Redis } from '../store/redis.ts';
import { isDirectLocalRequest, safeEqual } from './auth.ts';
import { createRateLimiter } from './rate-limit.ts';

const askBody = z.object({
  question: z.string().trim().min(1, 'question must not be empty').max(4000, 'question is over 4000 characters'),
  channel: z.string().max(100).optional(),
  k: z.number().int().min(1).max(50).optional(),
});

export interface HttpMounts {
  /**
   * Routers mounted before the JSON body parser: Slack (Bolt verifies signatures over the raw
   * body), webhooks (HMAC over the raw body) and the dashboard parse their own bodies.
   */
  routers?: express.Router[];
  /** Where /api/ask questions are recorded for the dashboard's activity view. */
  activity?: ActivityStore;
  /** Shares the per-client /api/ask limit between bot processes (per process without it). */
  redis?: Redis;
  /**
   * The admin token: LABBOT_ADMIN_TOKEN, or the one `serve` made for this start when none is
   * configured (printed with the dashboard link). Defaults to LABBOT_ADMIN_TOKEN.
   */
  adminToken?: string;
}

export function createHttpApp(app: Installation & Asker, mounts: HttpMounts = {}): express.Express {
  const http = express();
  http.disable('x-powered-by');
  // Behind a TLS proxy: req.secure (Secure session cookie) and req.ip (rate limit) follow the
  // proxy's X-Forwarded-* headers, but only from the peers configured here.
  http.set('trust proxy', app.config.trustProxy);
  if (app.config.trustProxy !== false && !app.config.adminToken) {
    app.log.warn(
      'LABBOT_TRUST_PROXY is set but LABBOT_ADMIN_TOKEN is not: the dashboard takes only the ' +
        'token printed at start-up (a new one at every start), and anonymous /api/ask refuses ' +
        'every request that came through a proxy',
    );
  }
  const adminToken = mounts.adminToken ?? app.config.adminToken;
  const rate = app.config.askRateLimit;
  const limiter = rate ? createRateLimiter(rate, { redis: mounts.redis, prefix: `${app.ns}:ratelimit:ask` }) : undefined;
  for (const r of mounts.routers ?? []) http.use(r);
  http.use(express.json({ limit: '64kb' }));

  http.get('/healthz', (_req, res) => {
    res.json({ ok: true });
  });

  http.post('/api/ask', async (req, res) => {
    const parsed = askBody.safeParse(req.body);
    if (!parsed.success) {
      res.status(400).json({ error: parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ') });
      return;
    }
    const admin = hasAdminToken(adminToken, req.headers.authorization);
    // Without a configured token, anonymous questions (public documents only) are taken from
    // direct local callers only: a DNS-rebinding page sends its own Host, and a proxy adding
    // X-Forwarded-* is refused. (A plain proxy that adds nothing looks direct: it can reach only
    // what any anonymous caller may read.)
    if (!admin && !app.config.adminToken && !isDirectLocalRequest(req)) {
      res
        .status(403)
        .json({ error: 'without LABBOT_ADMIN_TOKEN, /api/ask only answers requests addressed to localhost, not through a proxy' });
      return;
    }
    if (limiter && !admin) {
      const decision = await limiter(req.ip ?? 'unknown');
      if (!decision.allowed) {
        res.setHeader('Retry-After', String(decision.retryAfterS));
        res.status(429).json({ error: `too many questions from this client; try again in ${decision.retryAfterS} s` });
        return;
      }
    }
    const outcome = await askAs(
      { ask: app.ask, chunkCount: () => Number.POSITIVE_INFINITY, activity: mounts.activity, config: app.config, log: app.log },
      { question: parsed.data.question, facts: { surface: 'api', channel: parsed.data.channel, admin }, k: parsed.data.k },
    );
    const failure = httpFailure(outcome, parsed.data.channel);
    if (failure) res.status(failure.status).json({ error: failure.error });
    else if (outcome.kind === 'answered') res.json(toAskJson(outcome.result));
  });

  // Malformed JSON and oversized bodies get a clear 4xx instead of an HTML stack page.
  http.use((err: Error & { status?: number; type?: string }, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    const status = err.status && err.status >= 400 && err.status < 500 ? err.status : 500;
    res
      .status(status)
      .json({ error: status === 413 ? 'request body too large' : status === 400 ? 'malformed JSON body' : 'internal error' });
  });
  return http;
}

function hasAdminToken(adminToken: string | undefined, authorization: string | undefined): boolean {
  if (!adminToken) return false;
  const m = /^Bearer\s+(.+)$/i.exec(authorization ?? '');
  return m !== null && safeEqual(m[1].trim(), adminToken);
}

export async function listen(http: express.Express, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = http.listen(port, host, () => resolve(server));
    server.once('error', reject);
  });
}
