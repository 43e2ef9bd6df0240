// Issue 24, item 5: a reverse proxy that adds no forwarding headers (nginx's plain `proxy_pass`
// rewrites Host to the upstream's and adds nothing) made every visitor look like a direct local
// caller, and with no LABBOT_ADMIN_TOKEN set /admin and /admin/queues answered 200 through it.
// Now `serve` makes a token of its own at every start when none is configured (as Jupyter does),
// prints the dashboard link with it, and every /admin request needs a token: no exemption by peer
// address or Host, which a proxy on the same host makes look loopback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdminServer, type AdminServer } from '../admin-server.ts';
import { testEnv } from '../helpers/app.ts';
import { startPlainProxy, type PlainProxy } from '../helpers/plain-proxy.ts';
import { startLabbot, type LabbotProcess } from '../helpers/serve-process.ts';
import { waitFor } from '../helpers/wait.ts';

const DASHBOARD_PATHS = [
  '/admin',
  '/admin/',
  '/admin/api/status',
  '/admin/queues',
  '/admin/queues/api/queues',
  '/admin/gaps.csv',
  '/admin/doc?id=grant-budget',
];

const get = (url: string, headers: Record<string, string> = {}) =>
  fetch(url, { redirect: 'manual', headers: { accept: 'text/html', ...headers } });

const tokenOf = (link: string) => new URL(link).searchParams.get('token') ?? '';

describe('with no LABBOT_ADMIN_TOKEN set, the dashboard needs the token serve made at start-up', () => {
  let s: AdminServer;
  let proxy: PlainProxy;
  let link: string;

  beforeAll(async () => {
    s = await startAdminServer({ env: { LABBOT_ADMIN_TOKEN: '', LABBOT_WORKER: 'off' } });
    proxy = await startPlainProxy(s.url);
    link = s.running.dashboardLink ?? '';
  }, 120_000);
  afterAll(async () => {
    await proxy?.close();
    await s?.close();
  });

  it('a reverse proxy that adds no forwarding headers does not open /admin, /admin/api/* or /admin/queues', async () => {
    for (const p of DASHBOARD_PATHS) {
      const res = await get(`${proxy.url}${p}`);
      const body = await res.text();
      expect(res.status, p).toBe(401);
      expect(res.headers.getSetCookie(), p).toEqual([]);
      expect(body, p).not.toContain('NIGHTJAR');
      expect(body, p).not.toContain('labbot queue');
    }
  });

  it('a request straight to the loopback address is no exemption either', async () => {
    const port = new URL(s.url).port;
    for (const base of [s.url, `http://localhost:${port}`]) {
      for (const p of DASHBOARD_PATHS) {
        const res = await get(`${base}${p}`);
        await res.text();
        expect(res.status, `${base}${p}`).toBe(401);
      }
    }
  });

  it('the start-up link signs a browser in: ?token= sets an HttpOnly session cookie and the token leaves the URL', async () => {
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/admin\?token=[A-Za-z0-9_-]{32,}$/);
    for (const base of [s.url, proxy.url]) {
      const res = await get(`${base}/admin?token=${encodeURIComponent(tokenOf(link))}`);
      await res.text();
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('/admin');
      const cookie = res.headers.getSetCookie().find((c) => c.startsWith('labbot_admin='));
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Strict/);
      const session = { cookie: cookie!.split(';')[0] };
      const page = await get(`${base}/admin`, session);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<h1>labbot admin</h1>');
      const board = await get(`${base}/admin/queues`, session);
      expect(board.status).toBe(200);
      expect(await board.text()).toContain('labbot queue');
    }
    // Any other page keeps its own query.
    const deep = await get(`${s.url}/admin/doc?id=grant-budget&token=${encodeURIComponent(tokenOf(link))}`);
    expect(deep.status).toBe(303);
    expect(deep.headers.get('location')).toBe('/admin/doc?id=grant-budget');
  });

  it('a wrong token in the URL, the form or a bearer header opens nothing', async () => {
    const wrong = await get(`${proxy.url}/admin?token=${'x'.repeat(32)}`);
    expect(wrong.status).toBe(401);
    expect(wrong.headers.getSetCookie()).toEqual([]);
    const form = await fetch(`${proxy.url}/admin/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: 'not-the-token-0123456789', next: '/admin' }).toString(),
    });
    expect(form.status).toBe(401);
    expect(form.headers.getSetCookie()).toEqual([]);
    const bearer = await get(`${proxy.url}/admin/api/status`, { authorization: 'Bearer not-the-token-0123456789' });
    expect(bearer.status).toBe(401);
    // The right one works as a bearer token and in the sign-in form.
    expect((await get(`${proxy.url}/admin/api/status`, { authorization: `Bearer ${tokenOf(link)}` })).status).toBe(200);
    const signIn = await fetch(`${proxy.url}/admin/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokenOf(link), next: '/admin/queues' }).toString(),
    });
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get('location')).toBe('/admin/queues');
  });

  it('asking as a channel needs the admin token, and the token made at start-up is it', async () => {
    const ask = (headers: Record<string, string>, body: object, base = s.url) =>
      fetch(`${base}/api/ask`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    const question = { question: 'What is the renewal code word?', channel: 'CPI' };
    for (const base of [s.url, proxy.url]) {
      const anonymous = await ask({}, question, base);
      expect(anonymous.status).toBe(403);
      expect(await anonymous.text()).not.toContain('NIGHTJAR');
    }
    const admin = await ask({ authorization: `Bearer ${tokenOf(link)}` }, question);
    expect(admin.status).toBe(200);
    expect(await admin.text()).toContain('NIGHTJAR');

    // The dashboard's ask box, signed in with the link, may pick the channel too.
    const signIn = await get(`${s.url}/admin?token=${encodeURIComponent(tokenOf(link))}`);
    const cookie = signIn.headers.getSetCookie()[0].split(';')[0];
    const page = await (await get(`${s.url}/admin`, { cookie })).text();
    expect(page).toContain('value="CPI"');
    const csrf = /data-csrf="([^"]+)"/.exec(page)![1];
    const box = await fetch(`${s.url}/admin/api/ask`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie, 'x-csrf-token': csrf },
      body: JSON.stringify(question),
    });
    expect(box.status).toBe(200);
    expect(await box.text()).toContain('NIGHTJAR');
  });

  it("anonymous public questions on localhost still work (the README's first command)", async () => {
    const res = await fetch(`${s.url}/api/ask`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'How do I book the confocal microscope?' }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { answer: string; refused: boolean };
    expect(body.refused).toBe(false);
    expect(body.answer).not.toContain('NIGHTJAR');
  });
});

describe('labbot serve with no LABBOT_ADMIN_TOKEN set', () => {
  const started: LabbotProcess[] = [];
  afterAll(async () => {
    for (const p of started) {
      p.child.kill('SIGTERM');
      await p.exited;
    }
  });

  /** Starts `labbot serve` and returns the dashboard link it printed on a line of its own. */
  async function serveAndLink(): Promise<{ p: LabbotProcess; link: string }> {
    const env = testEnv({
      env: { LABBOT_PORT: '0', LABBOT_ADMIN_TOKEN: '', LABBOT_WORKER: 'off', LOG_LEVEL: 'info' },
      fileConfig: { sources: [] },
    });
    const p = startLabbot(['serve'], env);
    started.push(p);
    const link = await waitFor(
      async () => /^\s*(http:\/\/\S+\/admin\?token=\S+)\s*$/m.exec(p.stdout())?.[1],
      90_000,
      'the dashboard link on stdout',
    );
    return { p, link };
  }

  it('prints the dashboard link with a new token at every start, says a proxy does not open it, and keeps the token out of the log', async () => {
    const first = await serveAndLink();
    const second = await serveAndLink();
    expect(tokenOf(first.link)).not.toBe(tokenOf(second.link));
    for (const { p, link } of [first, second]) {
      expect(p.stdout()).toMatch(/reverse proxy/i);
      expect(p.stderr()).not.toContain(tokenOf(link));
      const res = await get(link);
      expect(res.status).toBe(303);
      expect(res.headers.getSetCookie()[0]).toMatch(/^labbot_admin=/);
    }
    // One start's token does not open the other's dashboard.
    const other = new URL(second.link);
    other.searchParams.set('token', tokenOf(first.link));
    expect((await get(other.toString())).status).toBe(401);
  }, 240_000);
});
