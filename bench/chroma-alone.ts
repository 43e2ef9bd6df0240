// `npx tsx bench/chroma-ceiling.ts [chunks] [--documents]`: how fast Chroma alone takes chunks on
// this machine, with no parsing or chunking in front of it: hash-embedded 500-character texts
// with labbot's metadata fields and HNSW settings, upserted 2,000 at a time into a fresh local
// server, the text stored as labbot stores it (a metadata field), or with --documents as
// Chroma documents (which the server full-text indexes). The ingest rate in bench/RESULTS.md is
// read against this ceiling.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ChromaClient } from 'chromadb';
import { loadConfig } from '../src/config.ts';
import { createEmbeddings } from '../src/models/embeddings.ts';
import { startChromaServer } from '../src/store/chroma-server.ts';
import { loadSentences } from './corpus.ts';

const total = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 100_000);
const asDocuments = process.argv.includes('--documents');
const BATCH = 2000;
const REPORT = 20_000;
const config = loadConfig();
const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-ceiling-'));
const server = await startChromaServer(path.join(dir, 'chroma'));
try {
  const url = new URL(server.url);
  const client = new ChromaClient({ host: url.hostname, port: Number(url.port), ssl: false });
  const embeddings = await createEmbeddings(config);
  const sentences = loadSentences(path.resolve('../shared/data/pubmedqa'));
  const { hnswM, hnswEfConstruction, hnswEfSearch } = config.retrieval;
  const col = await client.createCollection({
    name: 'ceiling',
    embeddingFunction: null,
    configuration: { hnsw: { space: 'cosine', ef_construction: hnswEfConstruction, ef_search: hnswEfSearch, max_neighbors: hnswM } },
  });
  const textAt = (i: number) => {
    let t = '';
    for (let j = i * 7; t.length < 500; j++) t += `${sentences[j % sentences.length]} `;
    return t;
  };
  const metaAt = (i: number) => ({
    doc_id: `d${i >> 4}`, source: 'ceiling', path: `d${i >> 4}.md`, kind: 'paper', title: `Paper ${i >> 4}`,
    authors: 'Ada Okafor; Min Lee', access: 'public', doc_hash: 'h'.repeat(64), chunk_hash: String(i).padStart(64, '0'),
    chunk_index: i % 16, section: `Part ${i % 16}`,
  });
  const t0 = performance.now();
  let tLast = t0;
  for (let i = 0; i < total; i += BATCH) {
    const ids = Array.from({ length: Math.min(BATCH, total - i) }, (_, j) => i + j);
    const texts = ids.map(textAt);
    const vectors = await embeddings.embedDocuments(texts);
    await col.upsert(
      asDocuments
        ? { ids: ids.map((n) => `c${n}`), embeddings: vectors, documents: texts, metadatas: ids.map(metaAt) }
        : { ids: ids.map((n) => `c${n}`), embeddings: vectors, metadatas: ids.map((n, j) => ({ ...metaAt(n), labbot_text: texts[j] })) },
    );
    const done = i + ids.length;
    if (done % REPORT === 0 || done === total) {
      const now = performance.now();
      console.log(`${done} chunks: ${(((done % REPORT) || REPORT) / ((now - tLast) / 1000)).toFixed(0)} chunks/s for the last ${(done % REPORT) || REPORT}`);
      tLast = now;
    }
  }
  console.log(`Chroma alone, text as ${asDocuments ? 'documents' : 'metadata'}: ${(total / ((performance.now() - t0) / 1000)).toFixed(0)} chunks/s over ${total} chunks (embedding included, ${BATCH} per upsert)`);
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
