// `npx tsx bench/dashboard-first-view.ts [--mb 30]`: how long /healthz waits while the dashboard's
// views are opened for the first time after a large document was indexed. A real `serve`
// (in-process, hash embeddings, real Redis and Chroma) indexes a folder holding one --mb MB
// Markdown document (with a planted instruction near its end) and the sample lab; then each view
// is requested once while a client in a worker thread sends /healthz back to back: the view's
// time, the slowest /healthz answered meanwhile, and the event loop's longest stall
// (perf_hooks monitorEventLoopDelay in the server's process). Before/after: run this file in a
// checkout of the older commit (`git archive <commit> | tar -x -C /tmp/base`, symlink
// node_modules, copy this file into its bench/).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { docViewUrl } from '../src/answer/doc-links.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { startServe } from '../src/serve.ts';
import { startChromaServer } from '../src/store/chroma-server.ts';
import { BIG_DOC_ID, BIG_DOC_PLANTED, bigDocument } from '../test/helpers/big-document.ts';
import { clearNamespace } from './redis-clean.ts';

const { values } = parseArgs({ options: { mb: { type: 'string', default: '30' } } });
const MB = Number(values.mb);
const TOKEN = 'bench-admin-token-0123456789abcdef';
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

// The client runs in a worker thread so a blocked server loop cannot also hold the client's
// clock. Plain JS (eval): tsx does not load in workers.
const CLIENT =
  `
const { parentPort, workerData } = require('node:worker_threads');
const ` +
  `{ base, view, headers } = workerData;
(async () => {
  await fetch(base ` +
  `+ '/healthz').then((r) => r.text());
  let done = false;
  const lat = ` +
  `[];
  const t0 = performance.now();
  const viewP = fetch(base + view, ` +
  `{ headers }).then(async (r) => { const body = await r.text(); done = true; ` +
  `return { status: r.status, ms: performance.now() - t0, bytes: body.length, ` +
  `planted: body.includes(workerData.planted), pending: body.includes('id="injections-pending"') ` +
  `}; });
  while (!done) {
    const s = performance.now();
    await fetch(base ` +
  `+ '/healthz').then((r) => r.text());
    lat.push(performance.now() - ` +
  `s);
  }
  const v = await viewP;
  parentPort.postMessage({ ...v, healthz: ` +
  `lat });
})().catch((err) => parentPort.postMessage({ error: String(err) }));
`;

interface ViewResult {
  status: number;
  ms: number;
  bytes: number;
  healthz: number[];
  /** The page lists the planted line / says the check is still running. */
  planted: boolean;
  pending: boolean;
  error?: string;
}

function measure(base: string, view: string, headers: Record<string, string>): Promise<ViewResult> {
  return new Promise((resolve, reject) => {
    const w = new Worker(CLIENT, { eval: true, workerData: { base, view, headers, planted: BIG_DOC_PLANTED } });
    w.once('message', (m: ViewResult) => {
      void w.terminate();
      if (m.error) reject(new Error(m.error));
      else resolve(m);
    });
    w.once('error', reject);
  });
}

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-bench-firstview-'));
  const folder = path.join(dir, 'big');
  mkdirSync(folder);
  writeFileSync(path.join(folder, 'manual.md'), bigDocument(MB * 1024 * 1024));
  const chroma = await startChromaServer(path.join(dir, 'chroma'));
  const collection = `bench-firstview-${process.pid}`;
  const configFile = path.join(dir, 'labbot.config.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      sources: [
        { id: 'lab', type: 'folder', path: path.resolve('examples/lab') },
        { id: 'big', type: 'folder', path: folder },
      ],
    }),
  );
  const secret = 'bench-link-secret-0123456789abcdef0123456789';
  const config = loadConfig({
    CHROMA_URL: chroma.url,
    REDIS_URL,
    LABBOT_COLLECTION: collection,
    LABBOT_DATA_DIR: path.join(dir, 'data'),
    LABBOT_CONFIG: configFile,
    LABBOT_PORT: '0',
    LABBOT_ADMIN_TOKEN: TOKEN,
    LABBOT_WORKER: 'off',
    LABBOT_PUBLIC_URL: 'http://127.0.0.1',
    LABBOT_LINK_SECRET: secret,
    EMBEDDINGS: 'hash',
    LLM: 'none',
    LOG_LEVEL: 'silent',
  });
  const t0 = performance.now();
  const running = await startServe(config, createLogger('silent'));
  const ingestS = (performance.now() - t0) / 1000;
  try {
    const bearer = { authorization: `Bearer ${TOKEN}`, accept: 'text/html' };
    const docLink = docViewUrl(
      { baseUrl: '', secret },
      { docId: BIG_DOC_ID, who: 'public', groups: ['public'], expires: Math.floor(Date.now() / 1000) + 3600 },
    );
    const views: [string, string, Record<string, string>][] = [
      ['/admin (first view)', '/admin', bearer],
      ['/admin (second view)', '/admin', bearer],
      ['/admin/doc (metadata)', `/admin/doc?id=${BIG_DOC_ID}`, bearer],
      ['/admin/api/status', '/admin/api/status', bearer],
      ['/metrics', '/metrics', {}],
      ['/doc (member view, first page)', docLink, {}],
    ];
    console.log(
      `${MB} MB document (${running.app.catalog.chunkCount} chunks with the ` +
        `sample lab), indexed in ${ingestS.toFixed(0)} s; load average ${os.loadavg()[0].toFixed(1)}`,
    );
    console.log(
      '| view | status | view ms | size | /healthz answered meanwhile | slowest /healthz ms | longest loop stall ms | planted line |',
    );
    console.log('|---|---|---|---|---|---|---|---|');
    for (const [name, view, headers] of views) {
      const h = monitorEventLoopDelay({ resolution: 5 });
      h.enable();
      const r = await measure(running.url, view, headers);
      h.disable();
      const slowest = r.healthz.length ? Math.max(...r.healthz) : NaN;
      const kb = r.bytes > 1e6 ? `${(r.bytes / 1e6).toFixed(1)} MB` : `${(r.bytes / 1e3).toFixed(0)} kB`;
      const planted = view !== '/admin' ? '' : r.planted ? 'listed' : r.pending ? 'still checking' : 'MISSING';
      console.log(
        `| ${name} | ${r.status} | ${r.ms.toFixed(0)} | ${kb} | ${r.healthz.length} | ${slowest.toFixed(0)} | ${(h.max / 1e6).toFixed(0)} | ${planted} |`,
      );
    }
    // The check goes on after a first view that stopped waiting: how long until the line is listed.
    const t1 = performance.now();
    for (let i = 0; i < 600; i++) {
      const page = await (await fetch(`${running.url}/admin`, { headers: bearer })).text();
      if (page.includes(BIG_DOC_PLANTED)) {
        console.log(`planted line listed ${((performance.now() - t1) / 1000).toFixed(1)} s after the table's last row`);
        break;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  } finally {
    await running.close();
    await clearNamespace(REDIS_URL, collection).catch(() => undefined);
    await chroma.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
