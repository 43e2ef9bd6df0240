// A real browser (Debian chromium via playwright-core) against a real `serve` with its worker:
// sign in, re-sync a source and watch the completed count grow, run the ask box, open bull-board;
// with no token configured, open the start-up link serve printed.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdminServer, TOKEN, type AdminServer } from './admin-server.ts';

const CHROMIUM = '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

describe('admin dashboard in a browser', () => {
  let s: AdminServer;
  let browser: Browser;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `The browser test needs Debian's chromium at ${CHROMIUM}: \`npm test\` ` +
          `installs it with apt (scripts/test-deps.sh) when run as root or with password-less sudo.`,
      );
    }
    s = await startAdminServer();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
  });
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it('signs in, re-syncs, asks and opens the queue board', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const failed: string[] = [];
    page.on('response', (r) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${r.url().replace(s.url, '')}`);
    });
    const blocked: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy/.test(m.text())) blocked.push(m.text());
    });

    // Not signed in: the dashboard answers with the login form.
    await page.goto(`${s.url}/admin`);
    await page.fill('#token', TOKEN);
    await Promise.all([page.waitForURL(`${s.url}/admin`), page.click('button[type=submit]')]);
    expect(await page.locator('h1').textContent()).toBe('labbot admin');
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === 'labbot_admin');
    expect(session?.httpOnly).toBe(true);
    expect(session?.sameSite).toBe('Strict');

    // Load time and weight of /admin (HTML + its CSS/JS), fresh navigation.
    await page.goto(`${s.url}/admin`, { waitUntil: 'load' });
    // Evaluated in the page (a string: this project's types have no DOM lib).
    const perf = (await page.evaluate(`(() => {
      const nav = performance.getEntriesByType('navigation')[0];
      return {
        loadMs: nav.loadEventEnd - nav.startTime,
        domContentLoadedMs: nav.domContentLoadedEventEnd - nav.startTime,
        htmlBytes: nav.decodedBodySize,
        htmlTransferBytes: nav.transferSize,
        assets: performance.getEntriesByType('resource').map((r) => ({ name: r.name, bytes: r.decodedBodySize })),
      };
    })()`)) as {
      loadMs: number;
      domContentLoadedMs: number;
      htmlBytes: number;
      htmlTransferBytes: number;
      assets: { name: string; bytes: number }[];
    };
    mkdirSync('test-output', { recursive: true });
    writeFileSync('test-output/admin-perf.json', JSON.stringify(perf, null, 2));
    expect(perf.assets.map((a) => a.name.replace(s.url, '')).sort()).toEqual(['/admin/static/admin.css', '/admin/static/admin.js']);

    // Re-sync: the worker in serve processes the job, the completed count grows.
    const completed = async () => Number(await page.locator('[data-state="completed"]').textContent());
    const before = await completed();
    await Promise.all([page.waitForURL(/\/admin\?queued=/), page.click('button[data-action="sync"]')]);
    expect(await page.locator('.flash').textContent()).toContain('Queued job sync-');
    let after = before;
    for (let i = 0; i < 60 && after <= before; i++) {
      await page.waitForTimeout(250);
      await page.reload();
      after = await completed();
    }
    expect(after).toBeGreaterThan(before);

    // Ask box: passages with ranks, the ones sent to the model highlighted.
    await page.fill('#question', 'Where are the competent cells stored in the freezer?');
    await page.selectOption('#channel', 'CPI');
    await page.click('#ask-form button[type=submit]');
    await page.locator('#ask-passages tbody tr').first().waitFor();
    expect(await page.locator('#ask-meta').textContent()).toContain('groups: public, pi-only');
    const rows = await page.locator('#ask-passages tbody tr').count();
    expect(rows).toBeGreaterThan(3);
    expect(await page.locator('#ask-passages tbody tr.sent').count()).toBeGreaterThan(0);
    expect(await page.locator('#ask-passages tbody tr.sent td:nth-child(2)').first().textContent()).toBe('S1');
    const ranks = await page.locator('#ask-passages tbody td.bm25').allTextContents();
    expect(ranks.some((r) => /^\d+$/.test(r))).toBe(true);
    expect((await page.locator('#ask-answer').textContent())?.length).toBeGreaterThan(10);
    await page.screenshot({ path: 'test-output/admin.png', fullPage: true });

    // A question that names its source shows how the name was read.
    expect(await page.locator('#ask-source').isHidden()).toBe(true);
    await page.fill('#question', 'In the Zhang 2019 paper, where are the competent cells stored?');
    await page.click('#ask-form button[type=submit]');
    await page.locator('#ask-source:not([hidden])').waitFor();
    expect(await page.locator('#ask-source').textContent()).toBe(
      'Source named in the question: author Zhang (not in the index) · year 2019 · kind paper → 0 matching document(s)',
    );
    expect(await page.locator('#ask-answer').textContent()).toContain('Zhang 2019');

    // bull-board renders its UI behind the same session.
    await page.goto(`${s.url}/admin/queues`);
    await page.getByText('labbot-index').first().waitFor({ timeout: 15_000 });
    await page.waitForLoadState('networkidle');
    await page.getByText('labbot-index').first().click();
    await page.waitForLoadState('networkidle');
    await page.screenshot({ path: 'test-output/admin-queues.png' });
    // Only the first, signed-out visit failed; no script was blocked by the CSP (bull-board's
    // Google web font is, on purpose: nothing loads from outside the app).
    expect(failed.filter((f) => f !== '/favicon.ico' && !f.endsWith(' /favicon.ico'))).toEqual(['401 /admin']);
    expect(blocked.filter((b) => !/fonts\.googleapis/.test(b))).toEqual([]);
    await context.close();
  });

  it('with no LABBOT_ADMIN_TOKEN set, the link serve printed signs in, and the token leaves the address bar', async () => {
    const bare = await startAdminServer({ env: { LABBOT_ADMIN_TOKEN: '', LABBOT_WORKER: 'off' }, sources: [] });
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${bare.url}/admin`);
      expect(await page.locator('#token-help').textContent()).toContain('/admin?token=');
      await page.goto(bare.running.dashboardLink!);
      expect(page.url()).toBe(`${bare.url}/admin`);
      expect(await page.locator('#generated-token').textContent()).toContain('No LABBOT_ADMIN_TOKEN is set');
      await page.goto(`${bare.url}/admin/queues`);
      await page.getByText('labbot-index').first().waitFor({ timeout: 15_000 });
    } finally {
      await context.close();
      await bare.close();
    }
  });
});
