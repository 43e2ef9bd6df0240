// `npx tsx bench/zotero-sync.ts [--items 2000 --runs 3 --out FILE]`
// A Zotero group library of N papers, each with a PDF made by the repo's fixture generator, served
// by the strict fake Web API (test/helpers/fake-zotero.ts) behind `labbot serve` (real Redis, real
// Chroma, hash embeddings). Per run, on a fresh labbot: the first sync (mirror every item and
// index it), then a sync after 10 edited items (5 metadata edits, 5 new PDF versions) and 5
// deleted ones: requests made, files downloaded, seconds. The baseline is what a client without
// sync state pays on every sync: the first sync's requests. Medians of the runs, with the range.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { requestSync } from '../src/queue/jobs.ts';
import { followSync } from '../src/queue/progress.ts';
import { startServe } from '../src/serve.ts';
import { startChromaServer } from '../src/store/chroma-server.ts';
import { clearNamespace } from './redis-clean.ts';
import { articleItem, pdfAttachment, startFakeZotero, zoteroKey, type FakeZotero } from '../test/helpers/fake-zotero.ts';
import { makePaperPdf } from '../test/fixtures/make.ts';

const { values } = parseArgs({
  options: { items: { type: 'string', default: '2000' }, runs: { type: 'string', default: '3' }, out: { type: 'string' } },
});
const N = Number(values.items);
const RUNS = Number(values.runs);
const KEY = 'bench-zotero-key-0123456789';
const key = zoteroKey;
const TOPICS = [
  'fin regeneration',
  'cilia length',
  'mitochondrial fission',
  'Notch signalling',
  'Wnt outgrowth',
  'osteoblast repair',
  'kidney epithelia',
  'potassium channels',
];

console.error(`making ${N} PDFs...`);
const pdfs: Uint8Array[] = [];
for (let i = 0; i < N; i++) {
  const topic = TOPICS[i % TOPICS.length];
  pdfs.push(
    await makePaperPdf({
      title: `Paper ${i} on ${topic}`,
      authors: [`Author${i} Person`],
      runningHeader: false,
      sections: [
        { heading: 'Results', paragraphs: [`We studied ${topic} in experiment ${i}; marker BENCH${i}X changed by ${i % 97} percent.`] },
      ],
    }),
  );
}

async function library(): Promise<FakeZotero> {
  const z = await startFakeZotero({ library: 'groups/2000', apiKey: KEY });
  const items = [];
  for (let i = 0; i < N; i++) {
    items.push(
      articleItem(key(i, 'P'), {
        title: `Paper ${i} on ${TOPICS[i % TOPICS.length]}`,
        authors: [[`Ann${i}`, `Author${i}`]],
        date: String(2000 + (i % 25)),
        doi: `10.5555/bench.${i}`,
        journal: 'Bench Journal',
        tags: [TOPICS[i % TOPICS.length]],
      }),
    );
    items.push(pdfAttachment(key(i, 'A'), key(i, 'P')));
  }
  z.put(items);
  for (let i = 0; i < N; i++) z.setFile(key(i, 'A'), pdfs[i]);
  return z;
}

interface Run {
  firstS: number;
  firstRequests: number;
  firstFiles: number;
  documents: number;
  incS: number;
  incRequests: number;
  incFiles: number;
  indexed: number;
  removed: number;
}

const chroma = await startChromaServer(mkdtempSync(path.join(os.tmpdir(), 'labbot-bench-chroma-')));
const runs: Run[] = [];
for (let r = 0; r < RUNS; r++) {
  const zotero = await library();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-bench-zotero-'));
  const configFile = path.join(dir, 'labbot.config.json');
  writeFileSync(
    configFile,
    JSON.stringify({ sources: [{ id: 'papers', type: 'zotero', library: 'groups/2000', apiKeyEnv: 'BENCH_ZOTERO_KEY' }] }),
  );
  const config = loadConfig({
    CHROMA_URL: chroma.url,
    LABBOT_COLLECTION: `bench-zotero-${Date.now().toString(36)}`,
    LABBOT_DATA_DIR: path.join(dir, 'data'),
    LABBOT_CONFIG: configFile,
    LABBOT_PORT: '0',
    EMBEDDINGS: 'hash',
    LLM: 'none',
    LOG_LEVEL: 'warn',
    ZOTERO_API_URL: zotero.url,
    BENCH_ZOTERO_KEY: KEY,
  });
  zotero.resetLog();
  const t0 = performance.now();
  const running = await startServe(config, createLogger('warn'));
  const firstS = (performance.now() - t0) / 1000;
  const firstRequests = zotero.requests.length;
  const firstFiles = zotero.requests.filter((q) => q.path.endsWith('/file')).length;
  const documents = running.app.catalog.stats().documents;

  // 10 edited items (5 new titles, 5 new PDF versions) and 5 deleted ones.
  for (let i = 0; i < 5; i++) zotero.edit(key(i * 7, 'P'), { title: `Paper ${i * 7} revised` });
  for (let i = 0; i < 5; i++)
    zotero.setFile(
      key(100 + i * 13, 'A'),
      await makePaperPdf({
        title: `Paper ${100 + i * 13} v2`,
        runningHeader: false,
        sections: [{ heading: 'Results', paragraphs: [`Revised marker REVISED${i}X.`] }],
      }),
    );
  zotero.remove([0, 1, 2, 3, 4].flatMap((i) => [key(500 + i, 'P'), key(500 + i, 'A')]));
  zotero.resetLog();
  const t1 = performance.now();
  const ticket = await requestSync(running.queue!.queue, { source: 'papers', reason: 'bench' });
  const jobId = ticket.jobId;
  const outcome = await followSync(running.queue!.queue, ticket, 'papers', undefined, { pollMs: 50, timeoutMs: 600_000 });
  const incS = (performance.now() - t1) / 1000;
  if (outcome.error || outcome.failed.length)
    throw new Error(`incremental sync failed: ${outcome.error ?? JSON.stringify(outcome.failed)}`);
  const job = await running.queue!.queue.getJob(jobId);
  const res = job?.returnvalue as { index: number; remove: number };
  runs.push({
    firstS,
    firstRequests,
    firstFiles,
    documents,
    incS,
    incRequests: zotero.requests.length,
    incFiles: zotero.requests.filter((q) => q.path.endsWith('/file')).length,
    indexed: res.index,
    removed: res.remove,
  });
  console.error(`run ${r + 1}: ${JSON.stringify(runs[r])}`);
  await running.close();
  await clearNamespace(config.redisUrl, config.collection);
  await zotero.close();
}

const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (xs: number[], d = 1) => `${med(xs).toFixed(d)} (${Math.min(...xs).toFixed(d)}–${Math.max(...xs).toFixed(d)})`;
const col = <K extends keyof Run>(k: K) => runs.map((x) => x[k]);
const lines = [
  `| Zotero library of ${N} papers with PDFs, fake Web API, \`labbot serve\` (hash embeddings); median (range) of ${RUNS} runs | value |`,
  '|---|---|',
  `| first sync: mirror ${N} items and index them, seconds | ${fmt(col('firstS'))} |`,
  `| first sync: API requests (files downloaded) | ${fmt(col('firstRequests'), 0)} (${fmt(col('firstFiles'), 0)}) |`,
  `| documents indexed | ${fmt(col('documents'), 0)} |`,
  '| after 10 edited items (5 metadata, 5 new PDF versions) and 5 deleted: |  |',
  `| sync seconds, until every changed document is indexed or removed | ${fmt(col('incS'), 2)} |`,
  `| API requests (files downloaded) | ${fmt(col('incRequests'), 0)} (${fmt(col('incFiles'), 0)}) |`,
  `| documents indexed / removed | ${fmt(col('indexed'), 0)} / ${fmt(col('removed'), 0)} |`,
  `| baseline: a sync without state downloads everything again (the first ` +
    `sync's requests) | ${(med(col('firstRequests')) / med(col('incRequests'))).toFixed(0)}x ` +
    `the incremental requests |`,
];
console.log(lines.join('\n'));
if (values.out) writeFileSync(values.out, `${lines.join('\n')}\n`);
await chroma.stop();
process.exit(0);
