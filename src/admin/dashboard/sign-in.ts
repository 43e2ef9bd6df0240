// Signing in and out of the dashboard, and its own script and style sheet. The sign-in page and
// form are the only /admin routes served without authentication.
import { Router } from 'express';
import { sameOrigin } from '../auth.ts';
import { dashboardFiles } from '../static-files.ts';
import { loginPage } from '../views/pages.ts';
import type { DashboardContext } from './context.ts';
import { sendHtml } from './respond.ts';

/** GET and POST /login: mounted before authentication. */
export function signInRouter({ auth, log, refusals, urlencoded }: DashboardContext): Router {
  const router = Router();
  router.get('/login', (_req, res) => {
    sendHtml(res, 200, loginPage({ generated: auth.tokenGenerated }));
  });
  router.post('/login', urlencoded, async (req, res, next) => {
    try {
      if (!sameOrigin(req)) return refusals.csrfDenied(req, res, 'cross-origin sign-in refused');
      const body = (req.body ?? {}) as Record<string, unknown>;
      const token = typeof body.token === 'string' ? body.token : '';
      if (!(await auth.login(req, res, token))) {
        log.warn({ ip: req.ip }, 'admin: failed sign-in');
        await new Promise((r) => setTimeout(r, 250));
        return sendHtml(res, 401, loginPage({ message: 'Wrong token.', generated: auth.tokenGenerated }));
      }
      const target =
        typeof body.next === 'string' && /^\/admin(\/[\w\-./?=&#%]*)?$/.test(body.next) && !body.next.startsWith('/admin/login')
          ? body.next
          : '/admin';
      res.redirect(303, target);
    } catch (err) {
      next(err);
    }
  });
  return router;
}

/** GET /static/:name and POST /logout: mounted after authentication. */
export function sessionRouter({ auth, csrf, urlencoded }: DashboardContext): Router {
  const files = dashboardFiles();
  const router = Router();
  router.get('/static/:name', (req, res) => {
    const f = files.get(req.params.name as string);
    if (!f) return res.status(404).end();
    res.setHeader('Cache-Control', 'private, max-age=300');
    res.setHeader('ETag', f.etag);
    if (req.headers['if-none-match'] === f.etag) return res.status(304).end();
    res.type(f.type).send(f.body);
  });
  router.post('/logout', urlencoded, csrf, async (req, res) => {
    await auth.logout(req, res);
    res.redirect(303, '/admin/login');
  });
  return router;
}
