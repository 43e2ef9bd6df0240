// The dashboard's refusals, each as JSON to an API caller and as a page to a browser: not signed
// in (the sign-in page), not allowed, a cross-origin write, a bad request body, and a failure.
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { type Auth, withoutToken } from '../auth.ts';
import { loginPage, messagePage } from '../views/pages.ts';
import { sendHtml, sendJson, wantsJson } from './respond.ts';

export interface Refusals {
  denied(req: Request, res: Response, status: 401 | 403, message: string): void;
  csrfDenied(req: Request, res: Response, message: string): void;
}

export function createRefusals(auth: Auth, log: Logger): Refusals {
  return {
    denied(req, res, status, message) {
      if (status === 401) res.setHeader('WWW-Authenticate', 'Bearer realm="labbot admin"');
      if (wantsJson(req)) return sendJson(res, status, { error: message });
      if (status === 401)
        return sendHtml(
          res,
          401,
          loginPage({
            next: req.originalUrl.startsWith('/admin') ? withoutToken(req.originalUrl) : '/admin',
            generated: auth.tokenGenerated,
            message: req.query.token === undefined ? undefined : message,
          }),
        );
      sendHtml(res, status, messagePage('Not allowed', message));
    },
    csrfDenied(req, res, message) {
      log.warn({ path: req.originalUrl, ip: req.ip }, `admin: ${message}`);
      if (wantsJson(req)) return sendJson(res, 403, { error: message });
      sendHtml(res, 403, messagePage('Request refused', message));
    },
  };
}

export function errorHandler(log: Logger) {
  return (err: Error & { status?: number; expose?: boolean }, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    // Body-parser refusals (too large, malformed, bad charset) are the client's error: their
    // status and a short reason, no stack and no "internal error" in the log.
    if (err.expose && err.status && err.status >= 400 && err.status < 500) {
      const message = err.status === 413 ? 'request body too large' : 'malformed request body';
      log.warn({ path: req.originalUrl, status: err.status }, `admin: ${message}`);
      if (wantsJson(req)) return sendJson(res, err.status, { error: message });
      return sendHtml(res, err.status, messagePage('Request refused', message));
    }
    log.error({ err, path: req.originalUrl }, 'admin request failed');
    if (wantsJson(req)) return sendJson(res, 500, { error: 'internal error' });
    sendHtml(res, 500, messagePage('Something went wrong', 'The dashboard could not be rendered; see the server log.'));
  };
}
