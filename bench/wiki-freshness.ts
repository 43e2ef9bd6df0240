// `npx tsx bench/wiki-freshness.ts [--pages 1000 --edits 5]`
// A git wiki of N pages behind `labbot serve` (real Redis, real Chroma, embeddings through an
// OpenAI-compatible HTTP server so every embedded text is counted). Measures: time from a signed
// push webhook to `ask` returning the edited text (and to a deleted page being gone), texts
// embedded for a one-page edit, and the cost ratio of a full re-index to that incremental one.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { writeFileSync } from 'node:fs';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { startChromaServer } from '../src/store/chroma-server.ts';
import { startServe } from '../src/serve.ts';
import { clearNamespace } from './redis-clean.ts';
import { startFakeOpenAI } from '../test/helpers/fake-openai.ts';
import { createGitWiki, githubPush, wikiPage } from '../test/helpers/git-wiki.ts';

const { values } = parseArgs({
  options: {
    pages: { type: 'string', default: '1000' },
    edits: { type: 'string', default: '5' },
    out: { type: 'string' },
    verbose: { type: 'boolean' },
  },
});
const pages = Number(values.pages);
const edits = Number(values.edits);
const SECRET = 'bench-secret-0123';

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? 0;

async function until(fn: () => Promise<boolean>, timeoutMs = 60_000): Promise<number> {
  const t0 = performance.now();
  while (!(await fn())) {
    if (performance.now() - t0 > timeoutMs) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
  return performance.now() - t0;
}

const all: Record<string, string> = {};
for (let i = 1; i <= pages; i++) all[`pages/page-${i}.md`] = wikiPage(i);
const wiki = createGitWiki(all);
const chroma = await startChromaServer(mkdtempSync(path.join(os.tmpdir(), 'labbot-bench-chroma-')));
const fake = await startFakeOpenAI({ dimensions: 384 });
const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-bench-wiki-'));
const configFile = path.join(dir, 'labbot.config.json');
writeFileSync(
  configFile,
  JSON.stringify({ sources: [{ id: 'wiki', type: 'git', url: wiki.remote, branch: 'main', secret: SECRET, kind: 'wiki' }] }),
);
const config = loadConfig({
  CHROMA_URL: chroma.url,
  LABBOT_COLLECTION: `bench-wiki-${Date.now().toString(36)}`,
  LABBOT_DATA_DIR: path.join(dir, 'data'),
  LABBOT_CONFIG: configFile,
  LABBOT_PORT: '0',
  EMBEDDINGS: 'openai',
  EMBEDDING_MODEL: 'bench-embed',
  LLM: 'none',
  OPENAI_BASE_URL: fake.baseURL,
  OPENAI_API_KEY: 'bench',
  LOG_LEVEL: 'warn',
});

const t0 = performance.now();
const running = await startServe(config, createLogger('warn'));
const fullMs = performance.now() - t0;
const fullTexts = fake.embeddedDocuments.length;
const stats = running.app.catalog.stats();
console.error(
  `initial index: ${stats.documents} pages, ${stats.chunks} chunks, ${fullTexts} texts embedded in ${(fullMs / 1000).toFixed(1)} s`,
);

let delivery = 0;
const push = () =>
  fetch(`${running.url}/hooks/wiki/wiki`, {
    method: 'POST',
    ...githubPush(SECRET, { ref: 'refs/heads/main' }, `bench-${++delivery}`),
  }).then((r) => {
    if (r.status !== 202) throw new Error(`webhook answered ${r.status}`);
  });

const editLatency: number[] = [];
const editTexts: number[] = [];
for (let e = 1; e <= edits; e++) {
  const n = 1 + ((e * 137) % pages);
  const marker = `FRESH${e}X${n}`;
  wiki.write(`pages/page-${n}.md`, wikiPage(n).replace(`checklist code PAGE${n}CLEAN`, `checklist code ${marker}`));
  wiki.commitAndPush(`edit page ${n}`);
  const before = fake.embeddedDocuments.length;
  const t = performance.now();
  const t0Wall = Date.now();
  await push();
  await until(async () => (await running.app.ask(`checklist code ${marker}`)).passages.some((p) => p.text.includes(marker)));
  editLatency.push(performance.now() - t);
  editTexts.push(fake.embeddedDocuments.length - before);
  const jobs = values.verbose ? await running.queue!.queue.getJobs(['completed'], 0, 5) : [];
  for (const j of jobs.filter((x) => (x.finishedOn ?? 0) >= Date.now() - 10_000)) {
    console.log(`  ${j.name}: queued +${(j.processedOn ?? 0) - t0Wall} ms, ran ${(j.finishedOn ?? 0) - (j.processedOn ?? 0)} ms`);
  }
  // Let the queue settle so the next edit starts clean.
  await until(async () => (await running.queue!.queue.getJobCounts('waiting', 'active', 'delayed')).active === 0);
}

const deleteLatency: number[] = [];
for (let d = 1; d <= Math.min(3, edits); d++) {
  const n = 2 + d * 11;
  wiki.remove(`pages/page-${n}.md`);
  wiki.commitAndPush(`delete page ${n}`);
  const t = performance.now();
  await push();
  await until(async () => !(await running.app.ask(`slot code PAGE${n}BOOK`)).passages.some((p) => p.text.includes(`PAGE${n}BOOK`)));
  deleteLatency.push(performance.now() - t);
}

const incremental = Math.max(1, Math.max(...editTexts));
const lines = [
  `| wiki of ${pages} pages (${stats.chunks} chunks), hash embeddings over HTTP | value |`,
  '|---|---|',
  `| webhook -> edited text returned by ask, p50 / max (${edits} edits) | ${pct(editLatency, 0.5).toFixed(0)} / ${Math.max(...editLatency).toFixed(0)} ms |`,
  `| webhook -> deleted page gone from answers, max (${deleteLatency.length}) | ${Math.max(...deleteLatency).toFixed(0)} ms |`,
  `| texts embedded for a one-page edit (one changed section) | ${editTexts.join(', ')} |`,
  `| texts embedded for the full index | ${fullTexts} |`,
  `| full / incremental embedding cost | ${(fullTexts / incremental).toFixed(0)}x |`,
  `| full index time | ${(fullMs / 1000).toFixed(1)} s |`,
  `| full / incremental time | ${(fullMs / pct(editLatency, 0.5)).toFixed(0)}x |`,
];
console.log(lines.join('\n'));
if (values.out) writeFileSync(values.out, `${lines.join('\n')}\n`);
await running.close();
await clearNamespace(config.redisUrl, config.collection);
await fake.close();
await chroma.stop();
process.exit(0);
