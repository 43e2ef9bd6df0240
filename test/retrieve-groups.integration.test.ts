// Retrieval checks the group of every hit, and scores a search only with statistics of the
// groups being searched. Real Chroma; documents are written through the real ingest pipeline.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Labbot } from '../src/app.ts';
import { openTestApp, uniqueCollection } from './helpers/app.ts';

const apps: Labbot[] = [];
afterAll(async () => {
  for (const a of apps) await a.close();
});

async function open(collection?: string): Promise<Labbot> {
  const app = await openTestApp({ collection });
  apps.push(app);
  return app;
}

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-groups-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

const PUBLIC = {
  'public/vector.md': '# Plasmid prep\n\nThe pZX9 vector is grown in DH5alpha cells overnight at 37 degrees with ampicillin.\n',
  'public/other.md': '# Gel\n\nRun the agarose gel at 100 volts for forty minutes and image it on the blue light table.\n',
  'public/third.md': '# Freezer\n\nThe minus eighty freezer is defrosted every March by the lab manager.\n',
};

describe('retrieval and groups', () => {
  it('a vector hit whose chunk belongs to another group is dropped, even when the public collection holds it', async () => {
    const collection = uniqueCollection('grp');
    const writer = await open(collection);
    await writer.ingest({ sourceId: 'lab', root: folder(PUBLIC) });
    // A drifted collection: a pi-only chunk stored in the public collection (a moved document whose
    // old copy was not deleted, a half-finished write). Its own metadata says pi-only.
    const [vector] = await writer.embeddings.embedDocuments(['Secret grant code word is HEDGEHOG for the renewal.']);
    await writer.store.upsert('public', [
      {
        id: 'lab:secret.md#0',
        text: 'Secret grant code word is HEDGEHOG for the renewal.',
        embedding: vector,
        metadata: {
          doc_id: 'lab:secret.md',
          source: 'lab',
          path: 'secret.md',
          kind: 'note',
          title: 'Secret',
          authors: '',
          access: 'pi-only',
          doc_hash: 'h',
          chunk_hash: 'c',
          chunk_index: 0,
          section: '',
        },
      },
    ]);
    // A process started now loads the catalog from Chroma: the chunk is known, in group pi-only.
    const reader = await open(collection);
    expect(reader.catalog.chunk('lab:secret.md#0')).toBeDefined();
    const r = await reader.retrieve('Secret grant code word is HEDGEHOG for the renewal.', ['public'], 5);
    expect(r.passages.length).toBeGreaterThan(0);
    expect(r.passages.map((p) => p.docId)).not.toContain('lab:secret.md');
    for (const p of r.passages) expect(p.meta.access).toBe('public');
    // The pi-only group still finds it.
    const pi = await reader.retrieve('Secret grant code word is HEDGEHOG for the renewal.', ['pi-only'], 5);
    expect(pi.passages.map((p) => p.docId)).toContain('lab:secret.md');
  });

  it('restricted documents do not change the identifier boost or the rerank scores of a public search', async () => {
    const publicOnly = await open();
    await publicOnly.ingest({ sourceId: 'lab', root: folder(PUBLIC) });
    // The same public documents, plus many pi-only chunks naming the same identifier.
    const restricted: Record<string, string> = { ...PUBLIC };
    for (let i = 0; i < 30; i++) {
      restricted[`pi/note-${i}.md`] =
        `---\naccess: pi-only\n---\n# Note ${i}\n\nBatch ${i} of pZX9 was sequenced; reads ${i * 7} looked clean and vector yield was fine.\n`;
    }
    const mixed = await open();
    await mixed.ingest({ sourceId: 'lab', root: folder(restricted) });
    expect(mixed.catalog.stats().byGroup['pi-only']?.documents).toBe(30);

    const q = 'How is the pZX9 vector grown?';
    const a = await publicOnly.retrieve(q, ['public'], 3);
    const b = await mixed.retrieve(q, ['public'], 3);
    expect(a.passages[0]?.docId).toBe('lab:public/vector.md');
    expect(b.passages.map((p) => p.docId)).toEqual(a.passages.map((p) => p.docId));
    const top = (r: typeof a) => r.passages.find((p) => p.docId === 'lab:public/vector.md')!.debug;
    // A rare identifier in the searched groups keeps its full boost...
    expect(top(a).exact).toBeGreaterThan(0);
    expect(top(b).exact).toBeCloseTo(top(a).exact, 10);
    // ...and the reranker weighs terms by the searched groups' statistics only.
    expect(top(b).rerank).toBeDefined();
    expect(top(b).rerank).toBeCloseTo(top(a).rerank!, 10);
  });
});
