// One retrieval pipeline in a fresh process, for bench.ts: builds or loads its index, runs the
// warm-up queries, then the measured ones one at a time, and prints one JSON line (latency
// percentiles, index build/load time, its own peak RSS). Every pipeline gets the same queries, the
// same warm-up, the same count and the same k, each in its own process.
//   node --import tsx bench/latency-child.ts <mode> <job.json>
// Modes: labbot-hybrid, labbot-lexical (labbot's index from Chroma, as `serve` loads it; config from
// the environment; retrieval as the asker runs it, the question's translations searched too, each
// translated before the timed queries, its time reported apart), tutorial (LangChain splitter 1000/150 + BM25Retriever + Chroma through
// EnsembleRetriever), bm25-1000, bm25-500 (LangChain splitter 1000/150 or 500/50 + a standard
// BM25: labbot's own index over the naive chunks).
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { EnsembleRetriever } from '@langchain/classic/retrievers/ensemble';
import { BM25Retriever } from '@langchain/community/retrievers/bm25';
import { Chroma } from '@langchain/community/vectorstores/chroma';
import type { Document } from '@langchain/core/documents';
import { RecursiveCharacterTextSplitter } from '@langchain/textsplitters';
import { ChromaClient } from 'chromadb';
import { openLabbot } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { percentile } from '../src/eval/stats.ts';
import { createLogger } from '../src/log.ts';
import { HashEmbeddings } from '../src/models/hash-embeddings.ts';
import { createLexicalIndex } from '../src/search/bm25.ts';
import { configuredTranslator } from '../src/asker.ts';
import { retrieve } from '../src/search/retrieve.ts';
import { detectLanguage } from '../src/search/tokenize.ts';
import { translationsOf } from '../src/translate/translator.ts';

export const MODES = ['labbot-hybrid', 'labbot-lexical', 'tutorial', 'bm25-1000', 'bm25-500'] as const;
export type Mode = (typeof MODES)[number];

export interface LatencyJob {
  k: number;
  warmup: string[];
  queries: string[];
  /** Corpus folders (naive modes read and split them). */
  dirs: string[];
  chromaUrl: string;
  /** The naive pipeline's Chroma collection (tutorial mode), filled by the parent. */
  naiveCollection: string;
}

export interface LatencyResult {
  mode: Mode;
  chunks: number;
  /** Building (naive) or loading (labbot) the index before the first query. */
  loadMs: number;
  p50: number;
  p95: number;
  rssPeakMb: number;
  /** labbot only: questions with a translation searched too, and the translator's median time per question (not in p50/p95). */
  translated?: number;
  translateP50?: number;
}

/** Naive chunks of the corpus folders: front matter dropped, as a tutorial's loader would. */
export async function naiveChunks(dirs: string[], size: number, overlap: number): Promise<Document[]> {
  const splitter = new RecursiveCharacterTextSplitter({ chunkSize: size, chunkOverlap: overlap });
  const docs: Document[] = [];
  for (const dir of dirs) {
    for (const f of readdirSync(dir).sort()) {
      const text = readFileSync(path.join(dir, f), 'utf8').replace(/^---[\s\S]*?---/, '');
      docs.push(...(await splitter.createDocuments([text], [{ source: f }])));
    }
  }
  return docs;
}

interface Pipeline {
  chunks: number;
  search: (q: string, alternates: string[]) => Promise<unknown>;
  /** The question's translations, as labbot searches them too (none for the naive pipelines). */
  translate?: (q: string) => Promise<string[]>;
}

async function build(mode: Mode, job: LatencyJob): Promise<Pipeline> {
  if (mode === 'labbot-hybrid' || mode === 'labbot-lexical') {
    const log = createLogger('warn');
    const app = await openLabbot(loadConfig(), log);
    const groups = [app.config.access.default];
    const chunks = app.catalog.stats().chunks;
    // Retrieval as the asker runs it (src/asker.ts), with the question's translations given: the
    // translator is timed apart (Apertium starts a process per question not seen before).
    const translator = configuredTranslator(app.config, log);
    const translate = (q: string) => translationsOf(q, detectLanguage(q), app.config.translation.pairs, translator);
    const hybrid = mode === 'labbot-hybrid';
    const settings = hybrid ? app.config.retrieval : { ...app.config.retrieval, denseWeight: 0 };
    const deps = {
      catalog: app.catalog,
      dense: hybrid ? (g: string, v: number[], n: number) => app.store.query(g, v, n) : async () => [],
      embedQuery: hybrid ? (q: string) => app.embeddings.embedQuery(q) : () => Promise.reject(new Error('lexical only')),
      reranker: app.reranker,
    };
    return { chunks, translate, search: (q, alternates) => retrieve(q, groups, settings, deps, job.k, alternates) };
  }
  if (mode === 'tutorial') {
    const docs = await naiveChunks(job.dirs, 1000, 150);
    const u = new URL(job.chromaUrl);
    const store = new Chroma(new HashEmbeddings(), {
      collectionName: job.naiveCollection,
      index: new ChromaClient({ host: u.hostname, port: Number(u.port), ssl: false }),
    });
    const bm25 = BM25Retriever.fromDocuments(docs, { k: job.k });
    const ensemble = new EnsembleRetriever({ retrievers: [bm25, store.asRetriever(job.k)], weights: [0.5, 0.5] });
    return { chunks: docs.length, search: (q) => ensemble.invoke(q) };
  }
  const [size, overlap] = mode === 'bm25-1000' ? [1000, 150] : [500, 50];
  const docs = await naiveChunks(job.dirs, size, overlap);
  const index = createLexicalIndex();
  docs.forEach((d, i) => index.add(String(i), d.pageContent));
  return { chunks: docs.length, search: async (q) => index.search(q, job.k).map((h) => docs[Number(h.id)]) };
}

async function main(): Promise<void> {
  const [mode, jobFile] = process.argv.slice(2) as [Mode, string];
  if (!MODES.includes(mode)) throw new Error(`mode must be one of ${MODES.join(', ')}`);
  const job = JSON.parse(readFileSync(jobFile, 'utf8')) as LatencyJob;
  let peak = 0;
  const sample = () => (peak = Math.max(peak, process.memoryUsage().rss));
  const timer = setInterval(sample, 50);
  const t0 = performance.now();
  const { chunks, search, translate } = await build(mode, job);
  const loadMs = performance.now() - t0;
  const alternates = new Map<string, string[]>();
  const translateMs: number[] = [];
  for (const q of translate ? [...job.warmup, ...job.queries] : []) {
    const t = performance.now();
    alternates.set(q, await translate!(q));
    translateMs.push(performance.now() - t);
  }
  for (const q of job.warmup) await search(q, alternates.get(q) ?? []);
  const lat: number[] = [];
  for (const q of job.queries) {
    const alt = alternates.get(q) ?? [];
    const t = performance.now();
    await search(q, alt);
    lat.push(performance.now() - t);
    sample();
  }
  clearInterval(timer);
  sample();
  const result: LatencyResult = {
    mode,
    chunks,
    loadMs: Math.round(loadMs),
    p50: percentile(lat, 0.5),
    p95: percentile(lat, 0.95),
    rssPeakMb: Math.round(peak / 1024 / 1024),
    ...(translate
      ? { translated: [...alternates.values()].filter((a) => a.length > 0).length, translateP50: percentile(translateMs, 0.5) }
      : {}),
  };
  console.log(JSON.stringify(result));
  process.exit(0);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) await main();
