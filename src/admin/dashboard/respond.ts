// How every dashboard response goes out: the headers all /admin responses carry, HTML pages under
// a strict CSP, JSON through safeJson, and whether a request wants JSON or a page back.
import type { Request, RequestHandler, Response } from 'express';
import { safeJson } from '../views/html.ts';

const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
  "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export const securityHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'same-origin');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Cache-Control', 'no-store');
  next();
};

export function sendHtml(res: Response, status: number, page: string): void {
  res.status(status).setHeader('Content-Security-Policy', PAGE_CSP);
  res.type('html').send(page);
}

export function sendJson(res: Response, status: number, body: unknown): void {
  res.status(status).type('json').send(safeJson(body));
}

export const wantsJson = (req: Request) =>
  req.path.startsWith('/api/') || req.originalUrl.startsWith('/admin/queues/api') || !(req.headers.accept ?? '').includes('text/html');
