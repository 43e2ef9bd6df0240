// GET /readyz (no authentication): Chroma and Redis reachable; served even when the dashboard is not.
import { Router } from 'express';
import type { Labbot } from '../../app.ts';
import type { Redis } from '../../store/redis.ts';

function withTimeout<T>(p: Promise<T>, ms: number, fallback: T): Promise<T> {
  return Promise.race([p.catch(() => fallback), new Promise<T>((r) => setTimeout(() => r(fallback), ms).unref())]);
}

/** GET /readyz (no authentication): Chroma and Redis reachable; served even when the dashboard is not. */
export function readyzRouter(app: Labbot, redis: Redis | undefined): Router {
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
