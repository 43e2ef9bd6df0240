// The embedded Chroma server is supervised: after kill -9 of the child, labbot logs the exit,
// starts it again on the same port and data, shows it in /readyz and the dashboard, and answers
// again. Real `labbot serve` in-process, its own Chroma child, real Redis.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { startServe, type Running } from '../src/serve.ts';
import { testEnv } from './helpers/app.ts';
import { captureLog } from './helpers/log-capture.ts';
import { waitFor } from './helpers/wait.ts';

let running: Running | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

interface Ready {
  chroma: string;
  redis: string;
  chromaProcess: { state: string; pid?: number; restarts: number; lastExit?: { code: number | null; signal: string | null } } | null;
}

describe('supervised embedded Chroma', () => {
  it('kill -9 of the Chroma child: the exit and the restart are logged, /readyz and the dashboard show it, and asking works again', async () => {
    const folder = mkdtempSync(path.join(os.tmpdir(), 'labbot-supervise-'));
    writeFileSync(
      path.join(folder, 'freezer.md'),
      '# Freezer\n\nThe minus eighty freezer is defrosted every March; samples move to rack KESTREL7 meanwhile.\n',
    );
    const env = testEnv({ env: { LABBOT_PORT: '0' }, fileConfig: { sources: [{ id: 'docs', type: 'folder', path: folder }] } });
    delete env.CHROMA_URL; // labbot starts (and supervises) its own Chroma under the data dir
    const cap = captureLog();
    running = await startServe(loadConfig(env), cap.log);
    const url = running.url;
    const ready = async () => (await (await fetch(`${url}/readyz`)).json()) as Ready;
    const ask = () =>
      fetch(`${url}/api/ask`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ question: 'Where do samples go while the freezer is defrosted?' }),
      });

    const before = await ready();
    expect(before.chroma).toBe('ok');
    expect(before.chromaProcess).toMatchObject({ state: 'up', restarts: 0 });
    expect((await ask()).status).toBe(200);

    const pid = running.app.chromaProcess()!.pid!;
    process.kill(pid, 'SIGKILL');
    const after = await waitFor(
      async () => {
        const r = await ready();
        return r.chroma === 'ok' && r.chromaProcess?.restarts === 1 && r.chromaProcess.state === 'up' ? r : undefined;
      },
      30_000,
      'Chroma restarted',
    );
    expect(after.chromaProcess?.pid).not.toBe(pid);
    expect(after.chromaProcess?.lastExit?.signal).toBe('SIGKILL');
    expect(cap.find('the embedded Chroma server exited')).toHaveLength(1);
    expect(cap.find('the embedded Chroma server is running again')).toHaveLength(1);

    const res = await ask();
    expect(res.status).toBe(200);
    const body = (await res.json()) as { refused: boolean; answer: string; citations: { doc_id: string }[] };
    expect(body.refused).toBe(false);
    expect(body.citations.some((c) => c.doc_id === 'docs:freezer.md')).toBe(true);

    // No LABBOT_ADMIN_TOKEN: the dashboard takes the token serve made for this start.
    const token = new URL(running.dashboardLink!).searchParams.get('token')!;
    const page = await (await fetch(`${url}/admin`, { headers: { accept: 'text/html', authorization: `Bearer ${token}` } })).text();
    expect(page).toMatch(/Embedded Chroma: <strong[^>]*>up<\/strong>; restarts 1/);
  }, 90_000);

  it('/readyz is served when the dashboard is refused (bound to 0.0.0.0 without a token)', async () => {
    const env = testEnv({
      env: { LABBOT_PORT: '0', LABBOT_HOST: '0.0.0.0', LABBOT_ADMIN_TOKEN: '', LABBOT_WORKER: 'off' },
      fileConfig: { sources: [] },
    });
    running = await startServe(loadConfig(env), captureLog().log);
    expect(running.dashboardRefused).toMatch(/LABBOT_ADMIN_TOKEN/);
    const port = new URL(running.url).port;
    const res = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ chroma: 'ok', redis: 'ok', chromaProcess: null });
    expect((await fetch(`http://127.0.0.1:${port}/admin`)).status).toBe(404);
  });
});
