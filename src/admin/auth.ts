// Authentication and CSRF protection for /admin.
//
// - Every /admin request needs the admin token: LABBOT_ADMIN_TOKEN, or, when none is configured,
//   a random token `serve` makes at every start and prints with the dashboard link (as Jupyter
//   does). No request is let in for where it seems to come from: a reverse proxy on the same host
//   (nginx's plain `proxy_pass` rewrites Host to the upstream's and adds no X-Forwarded-* header)
//   makes every visitor look like a direct loopback caller.
// - The token as `Authorization: Bearer <token>` (scripts), the login form, or (the start-up token
//   only) the printed link's `?token=`, which signs the browser in and redirects to the same page
//   without it. Signing in creates a random session id stored (hashed) in Redis with a TTL (in
//   memory without Redis) and sets it as an HttpOnly, SameSite=Strict cookie. The token itself
//   never goes into a cookie.
// - State-changing requests from a browser session carry the session's CSRF token (hidden field
//   `_csrf` or header `x-csrf-token`) and, when the browser sends one, a same-origin Origin.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Config } from '../config.ts';
import type { Redis } from '../store/redis.ts';

export const SESSION_COOKIE = 'labbot_admin';
const SESSION_TTL_S = 8 * 3600;

export interface Session {
  id: string;
  csrf: string;
  createdAt: string;
}

export type AuthVia = 'bearer' | 'session';

export interface AuthState {
  via: AuthVia;
  session?: Session;
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

export function isLoopback(host: string): boolean {
  const h = host.trim().toLowerCase();
  return LOOPBACK_NAMES.has(h) || /^127(\.\d{1,3}){3}$/.test(h) || h.endsWith('.localhost');
}

// Headers a reverse proxy adds (nginx, Caddy, Traefik, cloud load balancers). Their presence means
// the TCP peer is a proxy, so "the peer is on loopback" says nothing about the visitor.
const PROXY_HEADER = /^(x-forwarded-|forwarded$|x-real-ip$)/i;

export function hasProxyHeaders(req: Pick<Request, 'headers'>): boolean {
  return Object.keys(req.headers).some((h) => PROXY_HEADER.test(h));
}

/**
 * A request sent straight to a loopback name with no proxy header. Not proof of a local caller (a
 * plain same-host proxy sends exactly this), so it never opens the dashboard; it only narrows who
 * may ask anonymous public questions when no LABBOT_ADMIN_TOKEN is configured (server.ts).
 */
export function isDirectLocalRequest(req: Pick<Request, 'headers'>): boolean {
  return isLoopback(hostName(req)) && !hasProxyHeaders(req);
}

/** Why the dashboard must not start with this config, or undefined when it may. */
export function dashboardStartCheck(config: Pick<Config, 'adminToken' | 'host'>): string | undefined {
  if (config.adminToken) return undefined;
  if (isLoopback(config.host)) return undefined;
  return (
    `The admin dashboard refuses to start: labbot listens on ${config.host} (LABBOT_HOST) and LABBOT_ADMIN_TOKEN is not set, ` +
    'so anyone who can reach this port could re-index or read every document. Set LABBOT_ADMIN_TOKEN (16+ random characters), ' +
    'or bind to 127.0.0.1.'
  );
}

/** The token that guards /admin: configured (LABBOT_ADMIN_TOKEN), or made for this start. */
export interface AdminToken {
  value: string;
  /** Made by `serve` at start-up because none is configured; changes at every start. */
  generated: boolean;
}

/** LABBOT_ADMIN_TOKEN when set, else 32 random bytes for this start only. */
export function adminTokenFor(configured: string | undefined): AdminToken {
  return configured ? { value: configured, generated: false } : { value: randomBytes(32).toString('base64url'), generated: true };
}

/** A dashboard URL (path and query) without its `token` parameter, for redirects and `next`. */
export function withoutToken(url: string): string {
  const u = new URL(url, 'http://labbot.invalid');
  u.searchParams.delete('token');
  return `${u.pathname}${u.search}`;
}

/** Constant-time string comparison (lengths are hidden by hashing both sides first). */
export function safeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb) && a.length === b.length;
}

export interface SessionStore {
  create(): Promise<Session>;
  get(id: string): Promise<Session | undefined>;
  destroy(id: string): Promise<void>;
}

const hashId = (id: string) => createHash('sha256').update(id).digest('hex');

export function createSessionStore(redis: Redis | undefined, ns: string, ttlSeconds = SESSION_TTL_S): SessionStore {
  const key = (id: string) => `${ns}:admin:session:${hashId(id)}`;
  const memory = new Map<string, { session: Session; expires: number }>();
  return {
    async create() {
      const session: Session = {
        id: randomBytes(32).toString('base64url'),
        csrf: randomBytes(32).toString('base64url'),
        createdAt: new Date().toISOString(),
      };
      if (redis) await redis.set(key(session.id), JSON.stringify({ csrf: session.csrf, createdAt: session.createdAt }), 'EX', ttlSeconds);
      else {
        const now = Date.now();
        for (const [k, v] of memory) if (v.expires < now) memory.delete(k);
        memory.set(hashId(session.id), { session, expires: now + ttlSeconds * 1000 });
      }
      return session;
    },
    async get(id) {
      if (!/^[A-Za-z0-9_-]{20,100}$/.test(id)) return undefined;
      if (redis) {
        const raw = await redis.get(key(id));
        if (!raw) return undefined;
        const v = JSON.parse(raw) as { csrf: string; createdAt: string };
        return { id, csrf: v.csrf, createdAt: v.createdAt };
      }
      const m = memory.get(hashId(id));
      return m && m.expires > Date.now() ? m.session : undefined;
    },
    async destroy(id) {
      if (redis) await redis.del(key(id));
      else memory.delete(hashId(id));
    },
  };
}

export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) {
      try {
        return decodeURIComponent(part.slice(i + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

export function sessionCookie(req: Request, value: string, maxAge = SESSION_TTL_S): string {
  const secure = req.secure ? '; Secure' : '';
  return `${SESSION_COOKIE}=${encodeURIComponent(value)}; Path=/admin; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure}`;
}

/** The Host name without its port. */
function hostName(req: Pick<Request, 'headers'>): string {
  const host = req.headers.host ?? '';
  return host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d+$/, '');
}

/** False when the browser says the request comes from another origin (or an opaque one). */
export function sameOrigin(req: Request): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  if (origin === 'null') return false;
  try {
    // req.host is the Host header, or X-Forwarded-Host from a trusted proxy (LABBOT_TRUST_PROXY).
    return new URL(origin).host === (req.host ?? req.headers.host);
  } catch {
    return false;
  }
}

export interface Auth {
  sessions: SessionStore;
  /** Who this request is, or undefined (not authenticated). */
  identify(req: Request): Promise<AuthState | undefined>;
  /** Middleware: authenticated or 401 (`onDenied` renders the answer). */
  require(
    onDenied: (req: Request, res: Response, status: 401 | 403, message: string) => void,
  ): (req: Request, res: Response, next: NextFunction) => void;
  /** Middleware for POST/PUT/DELETE: CSRF token of the session and same Origin. */
  requireCsrf(onDenied: (req: Request, res: Response, message: string) => void): (req: Request, res: Response, next: NextFunction) => void;
  login(req: Request, res: Response, token: string): Promise<boolean>;
  logout(req: Request, res: Response): Promise<void>;
  /** The token was made at start-up (no LABBOT_ADMIN_TOKEN): pages say where to find it. */
  tokenGenerated: boolean;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set by Auth.require on /admin routes. */
      adminAuth?: AuthState;
    }
  }
}

export function createAuth(opts: { adminToken: AdminToken; redis: Redis | undefined; ns: string }): Auth {
  const sessions = createSessionStore(opts.redis, opts.ns);
  const token = opts.adminToken.value;
  const generated = opts.adminToken.generated;

  async function identify(req: Request): Promise<AuthState | undefined> {
    const authz = req.headers.authorization;
    if (authz !== undefined) {
      const m = /^Bearer\s+(.+)$/i.exec(authz);
      // A wrong bearer token is a failure even when a cookie is also present.
      return m && safeEqual(m[1].trim(), token) ? { via: 'bearer' } : undefined;
    }
    const sid = readCookie(req, SESSION_COOKIE);
    const session = sid ? await sessions.get(sid) : undefined;
    return session ? { via: 'session', session } : undefined;
  }

  async function startSession(req: Request, res: Response): Promise<void> {
    const old = readCookie(req, SESSION_COOKIE);
    if (old) await sessions.destroy(old);
    const session = await sessions.create();
    res.append('Set-Cookie', sessionCookie(req, session.id));
  }

  /**
   * The start-up link (`/admin?token=...`): sign the browser in and send it to the same page
   * without the token, so the token does not stay in its address bar, history or Referer. Only
   * for the token made at start-up: a configured one lives long and belongs in the form or a
   * header, not in URLs a proxy logs.
   */
  async function linkSignIn(
    req: Request,
    res: Response,
    offered: string,
    onDenied: (req: Request, res: Response, status: 401, message: string) => void,
  ) {
    if (!safeEqual(offered, token)) {
      return onDenied(
        req,
        res,
        401,
        'This link’s token is not the one of this start (it changes each time `labbot serve` starts): open the link it printed last.',
      );
    }
    await startSession(req, res);
    res.redirect(303, withoutToken(req.originalUrl));
  }

  return {
    sessions,
    identify,
    tokenGenerated: generated,
    require(onDenied) {
      return (req, res, next) => {
        const offered = req.query.token;
        const viaLink = generated && typeof offered === 'string' && (req.method === 'GET' || req.method === 'HEAD');
        (viaLink
          ? linkSignIn(req, res, offered, onDenied)
          : identify(req).then((state) => {
              if (!state) {
                const how = generated
                  ? 'Open the dashboard link `labbot serve` printed at start-up, or sign in with its token.'
                  : 'Sign in with the admin token.';
                return onDenied(req, res, 401, how);
              }
              req.adminAuth = state;
              next();
            })
        ).catch(next);
      };
    },
    requireCsrf(onDenied) {
      return (req, res, next) => {
        const state = req.adminAuth;
        if (!sameOrigin(req)) return onDenied(req, res, 'cross-origin request refused');
        if (state?.via === 'bearer') return next();
        const body = req.body as Record<string, unknown> | undefined;
        const sent =
          (typeof req.headers['x-csrf-token'] === 'string' ? req.headers['x-csrf-token'] : undefined) ??
          (typeof body?._csrf === 'string' ? body._csrf : undefined);
        if (!state?.session || !sent || !safeEqual(sent, state.session.csrf))
          return onDenied(req, res, 'missing or wrong CSRF token; reload the page and try again');
        next();
      };
    },
    async login(req, res, given) {
      if (!safeEqual(given, token)) return false;
      await startSession(req, res);
      return true;
    },
    async logout(req, res) {
      const sid = readCookie(req, SESSION_COOKIE);
      if (sid) await sessions.destroy(sid);
      res.append('Set-Cookie', sessionCookie(req, '', 0));
    },
  };
}
