// The Chroma adapter's storage layout on a real server: chunk text rides in metadata (no
// full-text index to build), and collections written with text as documents still read back.
import { ChromaClient } from 'chromadb';
import { describe, expect, it, inject } from 'vitest';
import { openChromaStore } from '../src/store/chroma-store.ts';
import { uniqueCollection } from './helpers/app.ts';

const url = () => inject('chromaUrl');
const clientFor = (u: string) => {
  const p = new URL(u);
  return new ChromaClient({ host: p.hostname, port: Number(p.port), ssl: false });
};
const open = (base: string) => openChromaStore({ url: url(), base, version: 'v-test', efSearch: 50 });

describe('chroma store layout', () => {
  it('stores chunk text outside Chroma documents and scans it back', async () => {
    const base = uniqueCollection('layout');
    const store = open(base);
    await store.upsert('public', [
      { id: 'd#0', text: 'TP53 western blot, step 1', embedding: [1, 0, 0], metadata: { doc_id: 'd', chunk_index: 0 } },
      { id: 'd#1', text: 'Block in 5% milk', embedding: [0, 1, 0], metadata: { doc_id: 'd', chunk_index: 1 } },
      // A table kept whole can make one long chunk.
      { id: 'd#2', text: '| gene | fold |\n'.repeat(8000), embedding: [0, 0, 1], metadata: { doc_id: 'd', chunk_index: 2 } },
    ]);
    const raw = await (await clientFor(url()).getCollection({ name: `${base}--public` })).get({ include: ['documents', 'metadatas'] });
    expect(raw.documents.every((d) => d === null || d === '')).toBe(true);

    const scanned: { id: string; text: string; keys: string[] }[] = [];
    await store.scan('public', (rs) => rs.forEach((r) => scanned.push({ id: r.id, text: r.text, keys: Object.keys(r.metadata) })));
    scanned.sort((a, b) => a.id.localeCompare(b.id));
    expect(scanned.map((s) => s.text)).toEqual(['TP53 western blot, step 1', 'Block in 5% milk', '| gene | fold |\n'.repeat(8000)]);
    expect(scanned[0].keys).toEqual(expect.arrayContaining(['chunk_index', 'doc_id']));
    await store.dropAll();
  });

  it('reads collections written with the text as Chroma documents', async () => {
    const base = uniqueCollection('legacy');
    const col = await clientFor(url()).createCollection({
      name: `${base}--public`,
      embeddingFunction: null,
      metadata: { labbot_index_version: 'v-test', labbot_group: 'public' },
    });
    await col.add({
      ids: ['old#0'],
      embeddings: [[0, 0, 1]],
      documents: ['Halogenated solvents go in the green carboy'],
      metadatas: [{ doc_id: 'old', chunk_index: 0 }],
    });
    const store = open(base);
    const texts: string[] = [];
    await store.scan('public', (rs) => texts.push(...rs.map((r) => r.text)));
    expect(texts).toEqual(['Halogenated solvents go in the green carboy']);
    await store.dropAll();
  });
});
