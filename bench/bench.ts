// `npm run bench [-- --sizes 10000,100000 --queries 200 --naive-queries 40 --skip-naive --skip-service]`
// Ingest throughput into real Chroma (hash embeddings), hybrid retrieval latency and peak RSS of a
// fresh labbot process at each size, HNSW recall@10 against an exact scan, and the naive LangChain
// pipeline (RecursiveCharacterTextSplitter + BM25Retriever + Chroma via EnsembleRetriever) on the
// same documents in the same run; then, each in its own process, the Slack ack burst
// (bench/slack-ack.ts) and wiki edit-to-searchable time (bench/wiki-freshness.ts). Prints a table
// and writes bench/RESULTS.md.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { EnsembleRetriever } from '@langchain/classic/retrievers/ensemble';
import { BM25Retriever } from '@langchain/community/retrievers/bm25';
import { Chroma } from '@langchain/community/vectorstores/chroma';
import { Document } from '@langchain/core/documents';
import { RecursiveCharacterTextSplitter } from '@langchain/textsplitters';
import { ChromaClient } from 'chromadb';
import { openApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { HashEmbeddings } from '../src/models/hash-embeddings.ts';
import { startChromaServer } from '../src/store/chroma-server.ts';
import { loadQuestions, loadSentences, writeCorpus } from './corpus.ts';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000,100000' },
    queries: { type: 'string', default: '200' },
    'naive-queries': { type: 'string', default: '40' },
    'skip-naive': { type: 'boolean' },
    'skip-service': { type: 'boolean' },
    'wiki-pages': { type: 'string', default: '1000' },
    pubmedqa: { type: 'string', default: 'datasets/pubmedqa' },
  },
});
const sizes = values.sizes.split(',').map(Number).sort((a, b) => a - b);
const nQueries = Number(values.queries);
const nNaive = Number(values['naive-queries']);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0;
};
const ms = (x: number) => x.toFixed(1);
const log = createLogger('warn');

const work = mkdtempSync(path.join(os.tmpdir(), 'labbot-bench-'));
const base = loadConfig();
const server = base.chromaUrl ? undefined : await startChromaServer(path.join(work, 'chroma'));
const chromaUrl = base.chromaUrl ?? server!.url;
const collection = `bench-${Date.now().toString(36)}`;
const emptyConfig = path.join(work, 'labbot.config.json');
writeFileSync(emptyConfig, '{}');
const config = { ...base, chromaUrl, collection, sources: [], dataDir: path.join(work, 'data') };
const app = await openApp(config, log, { loadCatalog: false });

console.error(`bench: Chroma ${chromaUrl}, work dir ${work}`);
const sentences = loadSentences(path.resolve(values.pubmedqa));
const queries = loadQuestions(path.resolve(values.pubmedqa), nQueries);
const queriesFile = path.join(work, 'queries.json');
writeFileSync(queriesFile, JSON.stringify(queries));

interface Row {
  size: number;
  chunks: number;
  ingestChunksPerS: number;
  p50: number;
  p95: number;
  p99: number;
  stagesP50: Record<string, number>;
  stagesP95: Record<string, number>;
  rssPeakMb: number;
  loadMs: number;
  recall: { ef: number; recall: number; p50: number }[];
  naive?: { p50: number; p95: number; queries: number };
}
const rows: Row[] = [];

async function hnswRecall(): Promise<Row['recall']> {
  // Exact top-10 by scanning every stored vector; compared with Chroma's HNSW answer.
  const ids: string[] = [];
  const vecs: Float32Array[] = [];
  await app.store.scan('public', (rs) => rs.forEach((r) => ids.push(r.id)));
  for (let i = 0; i < ids.length; i += 5000) {
    const got = await app.store.embeddingsOf('public', ids.slice(i, i + 5000));
    for (const id of ids.slice(i, i + 5000)) vecs.push(Float32Array.from(got.get(id)!));
  }
  const qs = queries.slice(0, 100);
  const qv = await app.embeddings.embedDocuments(qs);
  const exact = qv.map((q) => {
    const scores = vecs.map((v) => {
      let s = 0;
      for (let j = 0; j < v.length; j++) s += v[j] * q[j];
      return s;
    });
    return new Set(
      scores
        .map((s, i) => [s, i] as const)
        .sort((a, b) => b[0] - a[0])
        .slice(0, 10)
        .map(([, i]) => ids[i]),
    );
  });
  // Chroma applies ef_search when it loads a collection, so one measurement at the configured
  // settings; other build settings are compared by running the bench with another config file.
  const out: Row['recall'] = [];
  let hit = 0;
  const lat: number[] = [];
  for (let i = 0; i < qs.length; i++) {
    const t = performance.now();
    const got = await app.store.query('public', qv[i], 10);
    lat.push(performance.now() - t);
    hit += got.filter((g) => exact[i].has(g.id)).length;
  }
  out.push({ ef: config.retrieval.hnswEfSearch, recall: hit / (qs.length * 10), p50: pct(lat, 0.5) });
  return out;
}

async function naivePipeline(dirs: string[], size: number): Promise<Row['naive']> {
  const splitter = new RecursiveCharacterTextSplitter({ chunkSize: 1000, chunkOverlap: 150 });
  const docs: Document[] = [];
  for (const dir of dirs) {
    for (const f of readdirSync(dir)) {
      const text = readFileSync(path.join(dir, f), 'utf8').replace(/^---[\s\S]*?---/, '');
      docs.push(...(await splitter.createDocuments([text], [{ source: f }])));
    }
  }
  const embeddings = new HashEmbeddings();
  const u = new URL(chromaUrl);
  const store = new Chroma(embeddings, {
    collectionName: `naive-${size}-${Date.now().toString(36)}`,
    index: new ChromaClient({ host: u.hostname, port: Number(u.port), ssl: false }),
    collectionMetadata: { 'hnsw:space': 'cosine' },
  });
  const vectors = await embeddings.embedDocuments(docs.map((d) => d.pageContent));
  for (let i = 0; i < docs.length; i += 5000) await store.addVectors(vectors.slice(i, i + 5000), docs.slice(i, i + 5000));
  const bm25 = BM25Retriever.fromDocuments(docs, { k: 10 });
  const ensemble = new EnsembleRetriever({ retrievers: [bm25, store.asRetriever(10)], weights: [0.5, 0.5] });
  const lat: number[] = [];
  const qs = queries.slice(0, nNaive);
  for (const q of qs) {
    const t = performance.now();
    await ensemble.invoke(q);
    lat.push(performance.now() - t);
  }
  return { p50: pct(lat, 0.5), p95: pct(lat, 0.95), queries: qs.length };
}

try {
  const dirs: string[] = [];
  let chunks = 0;
  let docsSoFar = 0;
  // ~7,000-character documents: estimate chunks per document from the chunking, then correct.
  const chunksPerDoc = Math.ceil(7000 / Math.max(100, config.chunking.size - config.chunking.overlap));
  for (const size of sizes) {
    let ingestMs = 0;
    let written = 0;
    let perDoc = chunksPerDoc;
    while (chunks < size * 0.98) {
      const count = Math.max(1, Math.ceil((size - chunks) / perDoc));
      if (count * perDoc > (size - chunks) * 1.1 && count > 10) perDoc *= 1.05; // avoid overshooting on a wrong estimate
      const dir = path.join(work, `corpus-${dirs.length}`);
      writeCorpus(dir, sentences, { count, chars: 7000, seed: dirs.length + 1, prefix: `d${dirs.length}` });
      dirs.push(dir);
      const t = performance.now();
      const s = await app.ingest({ sourceId: `bench${dirs.length}`, root: dir }, (e) => {
        if (e.phase === 'file' && (e.done % 500 === 0 || e.done === e.total)) process.stderr.write(`\r  ingest ${e.done}/${e.total} files   `);
      });
      ingestMs += performance.now() - t;
      written += s.chunks.written;
      chunks += s.chunks.written;
      docsSoFar += count;
      perDoc = chunks / docsSoFar;
    }
    process.stderr.write('\n');
    const child = spawnSync(process.execPath, ['--import', 'tsx', 'bench/retrieval-child.ts', queriesFile], {
      env: { ...process.env, CHROMA_URL: chromaUrl, LABBOT_COLLECTION: collection, LABBOT_CONFIG: emptyConfig, LOG_LEVEL: 'warn' },
      encoding: 'utf8',
      maxBuffer: 10 * 1024 * 1024,
    });
    if (child.status !== 0) throw new Error(`retrieval child failed: ${child.stderr}`);
    const r = JSON.parse(child.stdout.trim().split('\n').at(-1)!);
    console.error(`  ${size}: ${r.chunks} chunks, p95 ${r.p95} ms, RSS ${r.rssPeakMb} MB`);
    const recall = await hnswRecall();
    const naive = values['skip-naive'] ? undefined : await naivePipeline(dirs, size);
    rows.push({ size, chunks: r.chunks, ingestChunksPerS: written / (ingestMs / 1000), ...r, recall, naive });
  }
} finally {
  await app.reset().catch(() => undefined);
  await app.close();
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
}

/** Runs another bench script in its own process (so its RSS and event loop are its own). */
function serviceBench(script: string, args: string[]): string {
  const r = spawnSync(process.execPath, ['--import', 'tsx', script, ...args], { encoding: 'utf8', timeout: 20 * 60_000 });
  if (r.status !== 0) return `(${script} failed: ${(r.stderr || r.stdout).trim().split('\n').slice(-3).join(' ')})`;
  return r.stdout.trim();
}
const service = values['skip-service']
  ? []
  : [
      '## Slack: 50 signed mentions at once (`npx tsx bench/slack-ack.ts`)',
      '',
      '```',
      serviceBench('bench/slack-ack.ts', []),
      '```',
      '',
      '## Wiki: push webhook to searchable (`npx tsx bench/wiki-freshness.ts`)',
      '',
      serviceBench('bench/wiki-freshness.ts', ['--pages', values['wiki-pages'], '--edits', '5']),
      '',
    ];

const cpus = os.cpus();
const lines = [
  '# labbot benchmark results',
  '',
  `Machine: ${cpus.length} × ${cpus[0]?.model ?? 'cpu'}, ${(os.totalmem() / 1024 ** 3).toFixed(0)} GB RAM, Node ${process.version}. ` +
    `Embeddings: offline hash (384-d). Chroma: local server. Queries: PubMedQA questions over synthetic heading-less papers built from PubMedQA sentences.`,
  '',
  '| chunks | ingest chunks/s | retrieval p50 ms | p95 ms | p99 ms | peak RSS MB (fresh process) | naive LangChain p50 / p95 ms | p95 ratio |',
  '|---|---|---|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.chunks} | ${r.ingestChunksPerS.toFixed(0)} | ${ms(r.p50)} | ${ms(r.p95)} | ${ms(r.p99)} | ${r.rssPeakMb} | ${r.naive ? `${ms(r.naive.p50)} / ${ms(r.naive.p95)} (${r.naive.queries} q)` : '-'} | ${r.naive ? `${(r.naive.p95 / r.p95).toFixed(0)}x` : '-'} |`,
  ),
  '',
  'Stage p50 / p95 (ms) inside retrieval:',
  '',
  ...rows.map(
    (r) =>
      `- ${r.chunks} chunks: ${Object.keys(r.stagesP95).map((k) => `${k.replace(/Ms$/, '')} ${r.stagesP50[k]} / ${r.stagesP95[k]}`).join(', ')}; index load at start-up ${r.loadMs} ms`,
  ),
  '',
  `HNSW recall@10 against an exact scan (100 queries; M=${config.retrieval.hnswM}, ef_construction=${config.retrieval.hnswEfConstruction}, ef_search=${config.retrieval.hnswEfSearch}):`,
  '',
  '| chunks | ' + (rows[0]?.recall.map((x) => `ef ${x.ef}`).join(' | ') ?? '') + ' |',
  '|---|' + (rows[0]?.recall.map(() => '---').join('|') ?? '') + '|',
  ...rows.map((r) => `| ${r.chunks} | ${r.recall.map((x) => `${x.recall.toFixed(3)} (${ms(x.p50)} ms)`).join(' | ')} |`),
  '',
  `Command: \`npm run bench -- --sizes ${values.sizes} --queries ${nQueries} --naive-queries ${nNaive}\``,
  '',
  ...service,
];
mkdirSync('bench', { recursive: true });
writeFileSync('bench/RESULTS.md', lines.join('\n'));
console.log(lines.join('\n'));
