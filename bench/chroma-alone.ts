// `npx tsx bench/chroma-alone.ts [chunks] [--documents] [--chroma-url URL] [--pubmedqa DIR] [--json]`
// How fast a bare Chroma client stores chunks on this machine, with no parsing or chunking in
// front of it: hash-embedded 500-character texts with labbot's metadata fields and HNSW settings,
// embedded then upserted 2,000 at a time, one batch after the other, into a fresh collection (of a
// fresh local server unless --chroma-url). The text is stored as labbot stores it (a metadata
// field), or with --documents as Chroma documents (which the server full-text indexes).
// Not an upper bound for labbot's ingest: labbot embeds the next batch while the last one is
// written, which this loop does not, so labbot can be faster. It is the reference rate of the
// store itself, read next to labbot's whole ingest (list, parse, chunk, embed, store).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ChromaClient } from 'chromadb';
import { loadConfig } from '../src/config.ts';
import { createEmbeddings } from '../src/models/embeddings.ts';
import { startChromaServer } from '../src/store/chroma-server.ts';
import { loadSentences } from './corpus.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    documents: { type: 'boolean' },
    'chroma-url': { type: 'string' },
    pubmedqa: { type: 'string', default: 'datasets/pubmedqa' },
    json: { type: 'boolean' },
  },
});
const total = Number(positionals[0] ?? 100_000);
const asDocuments = Boolean(values.documents);
const BATCH = 2000;
const REPORT = 20_000;
const config = loadConfig();
const dir = values['chroma-url'] ? undefined : mkdtempSync(path.join(os.tmpdir(), 'labbot-chroma-alone-'));
const server = dir ? await startChromaServer(path.join(dir, 'chroma')) : undefined;
const url = new URL(values['chroma-url'] ?? server!.url);
const client = new ChromaClient({ host: url.hostname, port: Number(url.port), ssl: false });
const name = `chroma-alone-${process.pid}-${Date.now().toString(36)}`;
try {
  const embeddings = await createEmbeddings(config);
  const sentences = loadSentences(path.resolve(values.pubmedqa));
  const { hnswM, hnswEfConstruction, hnswEfSearch } = config.retrieval;
  const col = await client.createCollection({
    name,
    embeddingFunction: null,
    configuration: { hnsw: { space: 'cosine', ef_construction: hnswEfConstruction, ef_search: hnswEfSearch, max_neighbors: hnswM } },
  });
  const textAt = (i: number) => {
    let t = '';
    for (let j = i * 7; t.length < 500; j++) t += `${sentences[j % sentences.length]} `;
    return t;
  };
  const metaAt = (i: number) => ({
    doc_id: `d${i >> 4}`,
    source: 'alone',
    path: `d${i >> 4}.md`,
    kind: 'paper',
    title: `Paper ${i >> 4}`,
    authors: 'Ada Okafor; Min Lee',
    access: 'public',
    doc_hash: 'h'.repeat(64),
    chunk_hash: String(i).padStart(64, '0'),
    chunk_index: i % 16,
    section: `Part ${i % 16}`,
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
    if (!values.json && (done % REPORT === 0 || done === total)) {
      const now = performance.now();
      console.log(
        `${done} chunks: ${((done % REPORT || REPORT) / ((now - tLast) / 1000)).toFixed(0)} chunks/s for the last ${done % REPORT || REPORT}`,
      );
      tLast = now;
    }
  }
  const rate = total / ((performance.now() - t0) / 1000);
  if (values.json)
    console.log(JSON.stringify({ chunks: total, chunksPerS: Math.round(rate), layout: asDocuments ? 'documents' : 'metadata' }));
  else
    console.log(
      `Chroma alone, text as ${asDocuments ? 'documents' : 'metadata'}: ${rate.toFixed(0)} ` +
        `chunks/s over ${total} chunks (embedding included, ${BATCH} per upsert, one at a time)`,
    );
} finally {
  await client.deleteCollection({ name }).catch(() => undefined);
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}
