// Readiness with Redis or Chroma down, the dashboard with no LABBOT_ADMIN_TOKEN set and the start-up refusal.
import { execFileSync } from 'node:child_process';
import { request } from 'node:http';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { adminTokenFor } from '../src/admin/auth.ts';
import { createAdminRouter, dashboardStartCheck } from '../src/admin/dashboard.ts';
import { createMetrics } from '../src/admin/metrics.ts';
import { openLabbot } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { freePort, startChromaServer } from '../src/store/chroma-server.ts';
import { startAdminServer } from './admin-server.ts';
import { testEnv } from './helpers/app.ts';

function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('dashboard start check', () => {
  it('refuses a non-loopback bind without a token, with a clear message', () => {
    const msg = dashboardStartCheck({ host: '0.0.0.0', adminToken: undefined });
    expect(msg).toMatch(/LABBOT_ADMIN_TOKEN/);
    expect(msg).toMatch(/0\.0\.0\.0/);
    expect(dashboardStartCheck({ host: '10.1.2.3', adminToken: undefined })).toBeDefined();
    expect(dashboardStartCheck({ host: '127.0.0.1', adminToken: undefined })).toBeUndefined();
    expect(dashboardStartCheck({ host: 'localhost', adminToken: undefined })).toBeUndefined();
    expect(dashboardStartCheck({ host: '::1', adminToken: undefined })).toBeUndefined();
    expect(dashboardStartCheck({ host: '0.0.0.0', adminToken: 'a-long-enough-token-123' })).toBeUndefined();
  });

  it('createAdminRouter throws that message', async () => {
    const config = loadConfig(testEnv({ env: { LABBOT_HOST: '0.0.0.0' } }));
    const log = createLogger('silent');
    const app = await openLabbot(config, log);
    try {
      const metrics = createMetrics({ app });
      await expect(
        createAdminRouter({
          app,
          queue: undefined,
          redis: undefined,
          activity: undefined,
          metrics,
          log,
          adminToken: adminTokenFor(undefined),
        }),
      ).rejects.toThrow(/refuses to start.*LABBOT_ADMIN_TOKEN/s);
      await metrics.close();
    } finally {
      await app.close();
    }
  });
});

describe('no token configured, on localhost', () => {
  it('asks for the token made at start-up, says where it is, and the signed-in page says it changes at every start', async () => {
    const s = await startAdminServer({ env: { LABBOT_ADMIN_TOKEN: '', LABBOT_WORKER: 'off' }, sources: [] });
    try {
      const page = await get(`${s.url}/admin`, { accept: 'text/html' });
      expect(page.status).toBe(401);
      expect(page.body).toContain('No LABBOT_ADMIN_TOKEN is set');
      expect(page.body).toContain('/admin?token=');
      // A page on another site that rebinds its DNS name to 127.0.0.1 sends its own Host.
      const rebound = await get(`${s.url}/admin`, { host: 'evil.example', accept: 'text/html' });
      expect(rebound.status).toBe(401);
      // No session, no state change (and with one, the session's CSRF token is still needed).
      const res = await fetch(`${s.url}/admin/actions/rebuild`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'confirm=yes',
      });
      expect(res.status).toBe(401);
      const signIn = await fetch(s.running.dashboardLink!, { redirect: 'manual' });
      const cookie = signIn.headers.getSetCookie()[0].split(';')[0];
      const signedIn = await get(`${s.url}/admin`, { accept: 'text/html', cookie });
      expect(signedIn.status).toBe(200);
      expect(signedIn.body).toContain('id="generated-token"');
      const noCsrf = await fetch(`${s.url}/admin/actions/rebuild`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
        body: 'confirm=yes',
      });
      expect(noCsrf.status).toBe(403);
    } finally {
      await s.close();
    }
  });
});

describe('/readyz', () => {
  it('names Redis when it goes down', async () => {
    const port = await freePort();
    execFileSync('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'yes']);
    let up = true;
    const s = await startAdminServer({ env: { REDIS_URL: `redis://127.0.0.1:${port}`, LABBOT_WORKER: 'off' }, sources: [] });
    try {
      const ok = await fetch(`${s.url}/readyz`);
      expect(ok.status).toBe(200);
      execFileSync('redis-cli', ['-p', String(port), 'shutdown', 'nosave']);
      up = false;
      const down = await fetch(`${s.url}/readyz`);
      expect(down.status).toBe(503);
      expect(await down.json()).toEqual({ chroma: 'ok', redis: 'down', chromaProcess: null });
    } finally {
      if (up) execFileSync('redis-cli', ['-p', String(port), 'shutdown', 'nosave']);
      // Closing waits on Redis connections that can no longer be reached: bounded.
      await Promise.race([s.close(), new Promise((r) => setTimeout(r, 3000))]);
    }
  });

  it('reports Redis down when serve started without it', async () => {
    const s = await startAdminServer({ env: { REDIS_URL: 'redis://127.0.0.1:1' }, sources: [] });
    try {
      const res = await fetch(`${s.url}/readyz`);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ chroma: 'ok', redis: 'down', chromaProcess: null });
      // The dashboard still renders and says the queue is missing.
      const page = await (await fetch(`${s.url}/admin`, { headers: { authorization: 'Bearer admin-token-for-tests-0123456789' } })).text();
      expect(page).toContain('Redis is not reachable');
    } finally {
      await s.close();
    }
  });

  it('names Chroma when it goes down', async () => {
    const chroma = await startChromaServer(mkdtempSync(path.join(os.tmpdir(), 'labbot-readyz-chroma-')));
    let up = true;
    const s = await startAdminServer({ env: { CHROMA_URL: chroma.url, LABBOT_WORKER: 'off' }, sources: [] });
    try {
      expect((await fetch(`${s.url}/readyz`)).status).toBe(200);
      await chroma.stop();
      up = false;
      const down = await fetch(`${s.url}/readyz`);
      expect(down.status).toBe(503);
      expect(await down.json()).toEqual({ chroma: 'down', redis: 'ok', chromaProcess: null });
    } finally {
      if (up) await chroma.stop();
      await s.close();
    }
  });
});
