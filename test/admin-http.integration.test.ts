// The admin dashboard over HTTP on a real `serve` (real Redis, real Chroma): authentication,
// CSRF, escaping of untrusted documents, the ask API, activity, gaps CSV and /metrics.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVIL, evilFolder, LAB, startAdminServer, TOKEN, type AdminServer } from './admin-server.ts';

const bearer = { authorization: `Bearer ${TOKEN}` };

describe('admin dashboard over HTTP', () => {
  let s: AdminServer;
  let cookie = '';
  let csrf = '';

  beforeAll(async () => {
    // No worker: jobs enqueued here stay in the queue where the test can look at them.
    s = await startAdminServer({
      env: { LABBOT_WORKER: 'off' },
      sources: [
        { id: 'lab', type: 'folder', path: LAB },
        { id: 'evil', type: 'folder', path: evilFolder() },
      ],
    });
  });
  afterAll(async () => {
    await s?.close();
  });

  async function signIn(): Promise<void> {
    const res = await fetch(`${s.url}/admin/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: TOKEN, next: '/admin' }).toString(),
    });
    expect(res.status).toBe(303);
    const set = res.headers.get('set-cookie') ?? '';
    cookie = set.split(';')[0];
    const page = await (await fetch(`${s.url}/admin`, { headers: { cookie } })).text();
    csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
    expect(csrf.length).toBeGreaterThan(20);
  }

  it('refuses requests without a token or with a wrong one', async () => {
    for (const p of [
      '/admin',
      '/admin/api/status',
      '/admin/queues',
      '/admin/queues/api/queues',
      '/admin/gaps.csv',
      '/admin/static/admin.js',
    ]) {
      const none = await fetch(`${s.url}${p}`);
      expect(none.status, p).toBe(401);
      const bad = await fetch(`${s.url}${p}`, { headers: { authorization: 'Bearer wrong-token-wrong-token-0000' } });
      expect(bad.status, p).toBe(401);
    }
    // The 401 page for a browser is the login form.
    const html = await fetch(`${s.url}/admin`, { headers: { accept: 'text/html' } });
    expect(html.status).toBe(401);
    expect(await html.text()).toContain('action="/admin/login"');
  });

  it('serves the dashboard and bull-board to a good bearer token', async () => {
    const res = await fetch(`${s.url}/admin`, { headers: bearer });
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain('labbot admin');
    expect(page).toMatch(/<td><strong>lab<\/strong>/);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const board = await fetch(`${s.url}/admin/queues/api/queues`, { headers: bearer });
    expect(board.status).toBe(200);
    expect(await board.text()).toContain('labbot-index');
    const js = await fetch(`${s.url}/admin/static/admin.js`, { headers: bearer });
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toContain('javascript');
  });

  it('signs in with the form: an HttpOnly SameSite=Strict cookie that is not the token', async () => {
    const wrong = await fetch(`${s.url}/admin/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'token=nope-nope-nope-nope',
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();

    const res = await fetch(`${s.url}/admin/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: TOKEN }).toString(),
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/admin');
    const set = res.headers.get('set-cookie') ?? '';
    expect(set).toMatch(/HttpOnly/i);
    expect(set).toMatch(/SameSite=Strict/i);
    expect(set).not.toContain(TOKEN);
    const c = set.split(';')[0];
    const page = await fetch(`${s.url}/admin`, { headers: { cookie: c } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Sign out');
    // A made-up session id is no session.
    expect((await fetch(`${s.url}/admin`, { headers: { cookie: 'labbot_admin=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' } })).status).toBe(401);

    // Signing out ends the session server-side.
    const pageCsrf =
      /name="_csrf" value="([^"]+)"/.exec(await (await fetch(`${s.url}/admin`, { headers: { cookie: c } })).text())?.[1] ?? '';
    const out = await fetch(`${s.url}/admin/logout`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: c, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: pageCsrf }).toString(),
    });
    expect(out.status).toBe(303);
    expect((await fetch(`${s.url}/admin`, { headers: { cookie: c } })).status).toBe(401);
  });

  it('refuses state changes without the CSRF token, with a wrong one or from another origin', async () => {
    await signIn();
    const post = (body: Record<string, string>, headers: Record<string, string> = {}) =>
      fetch(`${s.url}/admin/actions/sync`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(body).toString(),
      });
    const queue = s.running.queue!.queue;
    const before = await queue.getJobs(['waiting', 'prioritized', 'delayed', 'active']);

    expect((await post({ source: 'lab' })).status).toBe(403);
    expect((await post({ source: 'lab', _csrf: `${csrf.slice(0, -2)}xx` })).status).toBe(403);
    expect((await post({ source: 'lab', _csrf: csrf }, { origin: 'https://evil.example' })).status).toBe(403);
    const after403 = await queue.getJobs(['waiting', 'prioritized', 'delayed', 'active']);
    expect(after403.length).toBe(before.length);

    const ok = await post({ source: 'lab', _csrf: csrf }, { origin: s.url });
    expect(ok.status).toBe(303);
    const loc = ok.headers.get('location') ?? '';
    const jobId = decodeURIComponent(/queued=([^#&]+)/.exec(loc)?.[1] ?? '');
    const job = await queue.getJob(jobId);
    expect(job?.name).toBe('sync-source');
    expect(job?.data).toMatchObject({ source: 'lab', reason: 'dashboard' });

    // Unknown sources are refused, not enqueued.
    expect((await post({ source: 'nope', _csrf: csrf })).status).toBe(400);
  });

  it('asks for confirmation before a rebuild, then enqueues it', async () => {
    if (!csrf) await signIn();
    const queue = s.running.queue!.queue;
    const send = (body: Record<string, string>) =>
      fetch(`${s.url}/admin/actions/rebuild`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(body).toString(),
      });
    const rebuilds = async () =>
      (await queue.getJobs(['waiting', 'prioritized', 'delayed', 'active', 'completed', 'failed'])).filter((j) => j?.name === 'rebuild')
        .length;
    const n0 = await rebuilds();
    const confirm = await send({ _csrf: csrf });
    expect(confirm.status).toBe(200);
    expect(await confirm.text()).toContain('name="confirm" value="yes"');
    expect(await rebuilds()).toBe(n0);
    expect((await send({ confirm: 'yes' })).status).toBe(403);
    const done = await send({ _csrf: csrf, confirm: 'yes' });
    expect(done.status).toBe(303);
    expect(await rebuilds()).toBe(n0 + 1);
  });

  it('renders untrusted titles and passages as text on the page and in the ask API', async () => {
    const page = await (await fetch(`${s.url}/admin`, { headers: bearer })).text();
    expect(page).toContain('Ultracentrifuge rotor &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).not.toContain(EVIL);

    const res = await fetch(`${s.url}/admin/api/ask`, {
      method: 'POST',
      headers: { ...bearer, 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'How is the ultracentrifuge rotor cleaned?', channel: 'public' }),
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain('<script>');
    expect(text).toContain('\\u003cscript\\u003e');
    const body = JSON.parse(text) as { passages: { title: string; text: string }[] };
    expect(body.passages.some((p) => p.title.includes(EVIL))).toBe(true);

    // The question, and the evil citation title, now show in the activity table: escaped.
    const again = await (await fetch(`${s.url}/admin`, { headers: bearer })).text();
    expect(again).toContain('How is the ultracentrifuge rotor cleaned?');
    expect(again).not.toContain(EVIL);
  });

  it('ask API returns every passage with dense/BM25 ranks and scores, marking those sent to the model', async () => {
    if (!csrf) await signIn();
    const ask = (question: string, channel: string, headers: Record<string, string> = { 'x-csrf-token': csrf }) =>
      fetch(`${s.url}/admin/api/ask`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ question, channel }),
      });
    expect((await ask('grant budget', 'public', {})).status).toBe(403);

    const res = await ask('What is in the grant renewal budget draft?', 'CPI');
    expect(res.status).toBe(200);
    type P = {
      rank: number;
      label: string | null;
      doc_id: string;
      dense_rank: number | null;
      bm25_rank: number | null;
      fused: number;
      rerank: number | null;
    };
    const r = (await res.json()) as { groups: string[]; passages: P[]; answer: string; model: string };
    expect(r.groups).toEqual(['public', 'pi-only']);
    expect(r.passages.length).toBeGreaterThan(8);
    const sent = r.passages.filter((p) => p.label);
    expect(sent.map((p) => p.label)).toEqual(sent.map((_, i) => `S${i + 1}`));
    expect(sent.length).toBeLessThan(r.passages.length);
    expect(r.passages.some((p) => typeof p.dense_rank === 'number')).toBe(true);
    expect(r.passages.some((p) => typeof p.bm25_rank === 'number')).toBe(true);
    expect(r.passages.every((p) => typeof p.fused === 'number')).toBe(true);
    expect(r.passages.some((p) => typeof p.rerank === 'number')).toBe(true);
    expect(sent.some((p) => p.doc_id === 'pi-grant-budget')).toBe(true);

    // From a public channel the PI-only document is never retrieved.
    const pub = (await (await ask('What is in the grant renewal budget draft?', 'public')).json()) as { groups: string[]; passages: P[] };
    expect(pub.groups).toEqual(['public']);
    expect(pub.passages.some((p) => p.doc_id === 'pi-grant-budget')).toBe(false);

    expect((await ask('x', 'C-UNKNOWN')).status).toBe(400);
  });

  it('groups knowledge gaps and exports them as CSV without formula injection', async () => {
    const a = s.activity!;
    const base = { source: 'slack' as const, answer: 'no', citations: [], latencyMs: 10, model: 'extractive' };
    await a.recordQuestion({ ...base, channel: 'C1', question: 'How do we calibrate the plate reader?', refused: true });
    await a.recordQuestion({ ...base, channel: 'C2', question: 'Plate reader calibration schedule?', refused: true });
    await a.recordQuestion({ ...base, channel: 'C1', question: '=HYPERLINK("http://x","click") cryostat maintenance', refused: true });
    const res = await fetch(`${s.url}/admin/gaps.csv`, { headers: bearer });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/csv');
    const csv = await res.text();
    const lines = csv.replace(/^\ufeff/, '').split('\r\n');
    expect(lines[0]).toBe('"topic","terms","questions","refused","weak","channels","last_asked","examples"');
    const plate = lines.find((l) => /^"calibrate plate reader",/.test(l));
    expect(plate).toBeDefined();
    expect(plate).toContain(',"2","2","0",');
    expect(plate).toContain('"C1 (1); C2 (1)"');
    expect(csv).toContain(`"'=HYPERLINK(""http://x"",""click"") cryostat maintenance"`);
    expect(csv).not.toMatch(/(^|,)=HYPERLINK/m);

    const page = await (await fetch(`${s.url}/admin`, { headers: bearer })).text();
    expect(page).toContain('How do we calibrate the plate reader?');
    expect(page).toMatch(/<svg class="chart"[^>]*aria-label="Questions and index jobs per hour, last 24 hours \(questions: [1-9]/);
  });

  it('/readyz reports Chroma and Redis ok', async () => {
    const res = await fetch(`${s.url}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ chroma: 'ok', redis: 'ok', chromaProcess: null });
  });

  it('/metrics exposes the metrics and counts a question after an ask', async () => {
    const scrape = async () => (await (await fetch(`${s.url}/metrics`)).text()) as string;
    const answered = (t: string) => Number(/^labbot_questions_total\{outcome="answered"\} (\d+)/m.exec(t)?.[1] ?? 'NaN');
    const before = await scrape();
    for (const name of [
      'labbot_answer_duration_seconds',
      'labbot_retrieval_duration_seconds',
      'labbot_questions_total',
      'labbot_queue_jobs',
      'labbot_job_duration_seconds',
      'labbot_documents_indexed',
      'labbot_chunks_indexed',
    ]) {
      expect(before).toContain(`# TYPE ${name}`);
    }
    expect(before).toMatch(/^labbot_queue_jobs\{state="waiting"\} \d+/m);
    expect(Number(/^labbot_documents_indexed\{source="lab",kind="wiki"\} (\d+)/m.exec(before)?.[1] ?? 0)).toBeGreaterThan(0);
    const n0 = answered(before);
    expect(Number.isFinite(n0)).toBe(true);
    const res = await fetch(`${s.url}/admin/api/ask`, {
      method: 'POST',
      headers: { ...bearer, 'content-type': 'application/json' },
      // (The sample lab has no competent cells: that question is refused, not answered.)
      body: JSON.stringify({ question: 'Where are the ab32389 aliquots stored?' }),
    });
    expect(res.status).toBe(200);
    const after = await scrape();
    expect(answered(after)).toBe(n0 + 1);
    expect(Number(/^labbot_answer_duration_seconds_count\{outcome="answered"\} (\d+)/m.exec(after)?.[1])).toBeGreaterThanOrEqual(1);
    // observeAsk is the lead's hook for Slack and /api/ask.
    s.metrics.observeAsk({ outcome: 'error', totalMs: 5 });
    expect(await scrape()).toMatch(/^labbot_questions_total\{outcome="error"\} 1$/m);
  });
});
