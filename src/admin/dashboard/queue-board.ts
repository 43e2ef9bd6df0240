// /admin/queues: bull-board, behind the dashboard's authentication; its own POST/PUT calls must be
// same-origin. Without a queue (Redis unreachable) the pages say so.
import type { Queue } from 'bullmq';
import { type RequestHandler, Router } from 'express';
import { messagePage } from '../views/pages.ts';
import type { DashboardContext } from './context.ts';
import type { Refusals } from './refusals.ts';
import { sendHtml } from './respond.ts';

// bull-board's UI sets inline style attributes and loads web fonts from Google: styles inline
// allowed, fonts from elsewhere refused (it falls back to system fonts).
const BOARD_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' " +
  "data:; font-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'self'";

export function queueBoardRouter({ queue, refusals }: DashboardContext): Router {
  const router = Router();
  if (queue) {
    router.use('/queues', sameOriginWrites(refusals), boardCsp, lazyBoard(queue));
  } else {
    router.use('/queues', (_req, res) =>
      sendHtml(res, 503, messagePage('Queue unavailable', 'Redis is not reachable, so this process has no queue.')),
    );
  }
  return router;
}

/**
 * bull-board loaded on the first visit to the queue pages, not at start-up, where it was about a
 * fifth of a second of every restart (a bot restarting should answer first).
 */
function lazyBoard(queue: Queue): RequestHandler {
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
  return (req, res, next) => {
    board ??= loadBoard().catch((err: unknown) => {
      board = undefined;
      throw err;
    });
    board.then((router) => router(req, res, next), next);
  };
}

function sameOriginWrites(refusals: Refusals): RequestHandler {
  return (req, res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD' || req.adminAuth?.via === 'bearer') return next();
    const origin = req.headers.origin ?? req.headers.referer;
    let ok = false;
    try {
      ok = origin !== undefined && new URL(origin).host === (req.host ?? req.headers.host);
    } catch {
      ok = false;
    }
    if (!ok) return refusals.csrfDenied(req, res, 'queue changes must come from this dashboard');
    next();
  };
}

const boardCsp: RequestHandler = (_req, res, next) => {
  res.setHeader('Content-Security-Policy', BOARD_CSP);
  next();
};
