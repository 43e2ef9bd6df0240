// Ingest into a real Chroma server: formats, metadata, idempotence, updates, deletions, access
// partitions, bad input and index versions.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Labbot } from '../src/app.ts';
import { makeDocx, makeEncryptedPdf, makePaperPdf, makeSlidesPptx } from './fixtures/make.ts';
import { openTestApp, uniqueCollection } from './helpers/app.ts';

const PROTOCOL = `---
id: proto-wb
title: Western blot for TP53
kind: protocol
authors: [Ada Okafor]
year: 2024
---

# Western blot for TP53

## Materials

- Anti-p53 antibody, Abcam ab32389
- RIPA buffer, Thermo 89900
- PVDF membrane

## Procedure

1. Lyse HEK293T cells in RIPA buffer on ice for 30 minutes.
2. Spin at 14,000 g for 15 minutes at 4 °C and keep the supernatant.
3. Load 20 µg of protein per lane on a 10% gel.
4. Transfer to PVDF at 100 V for 60 minutes.
5. Block in 5% milk for 1 hour.
6. Incubate with ab32389 at 1:1000 overnight at 4 °C.
`;

const SECRET = `---
id: pi-budget
title: Grant budget plan
access: pi-only
---

# Grant budget plan

The renewal code word is PELICAN-7. The equipment line covers a new confocal microscope.
`;

const WIKI = `---
id: wiki-safety
title: Lab safety rules
---

# Lab safety rules

## Chemical waste

Halogenated solvents go in the green carboy under the fume hood, never down the sink.

## Emergency

The eyewash station is next to bench 4; flush for fifteen minutes.
`;

function writeCorpus(dir: string) {
  mkdirSync(path.join(dir, 'protocols'), { recursive: true });
  mkdirSync(path.join(dir, 'papers'), { recursive: true });
  mkdirSync(path.join(dir, 'slides'), { recursive: true });
  mkdirSync(path.join(dir, 'restricted'), { recursive: true });
  writeFileSync(path.join(dir, 'protocols', 'western.md'), PROTOCOL);
  writeFileSync(path.join(dir, 'restricted', 'budget.md'), SECRET);
  writeFileSync(path.join(dir, 'safety.md'), WIKI);
  writeFileSync(path.join(dir, 'papers', 'paper.pdf'), Buffer.from(makePaperPdfSync()));
  writeFileSync(
    path.join(dir, 'papers', 'paper.bib'),
    '@article{okafor2021, title={{p53 dynamics in stressed HEK293T cells}}, author={Okafor, ' +
      'Ada and Lee, Min}, year={2021}, journal={Journal of Cell Stress}, ' +
      'doi={10.1234/jcs.2021.001}, keywords={Nutlin-3a; ubiquitin ligase}}',
  );
  writeFileSync(path.join(dir, 'slides', 'update.pptx'), Buffer.from(slides));
  writeFileSync(path.join(dir, 'protocols', 'passaging.docx'), Buffer.from(docx));
  writeFileSync(path.join(dir, 'notes.xyz'), 'unknown format');
  writeFileSync(path.join(dir, 'empty.md'), '');
  writeFileSync(path.join(dir, 'junk.md'), Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)));
  writeFileSync(path.join(dir, 'locked.pdf'), Buffer.from(encrypted));
  writeFileSync(
    path.join(dir, 'bad-access.md'),
    '---\ntitle: Misconfigured\naccess: lab members\n---\n\nSecret plans for the lab retreat.\n',
  );
}

let pdfBytes: Uint8Array;
let slides: Uint8Array;
let docx: Uint8Array;
let encrypted: Uint8Array;
const makePaperPdfSync = () => pdfBytes;

describe('ingest into real Chroma', () => {
  let app: Labbot;
  let dir: string;

  beforeAll(async () => {
    [pdfBytes, slides, docx, encrypted] = await Promise.all([makePaperPdf(), makeSlidesPptx(), makeDocx(), makeEncryptedPdf()]);
    dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-corpus-'));
    writeCorpus(dir);
    app = await openTestApp();
  });
  afterAll(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('indexes every supported format and reports bad files with reasons', async () => {
    const s = await app.ingest({ sourceId: 'lab', root: dir });
    expect(s.documents.indexed).toBe(6);
    const failed = Object.fromEntries(s.failed.map((f) => [path.basename(f.path), f.reason]));
    expect(Object.keys(failed).sort()).toEqual(['bad-access.md', 'empty.md', 'junk.md', 'locked.pdf']);
    // An unreadable access group fails closed: the document is not indexed anywhere.
    expect(failed['bad-access.md']).toMatch(/not a valid group name/);
    expect(failed['locked.pdf']).toMatch(/encrypted/i);
    expect(failed['empty.md']).toMatch(/empty/i);
    expect(s.skipped.map((f) => path.basename(f.path))).toEqual(['notes.xyz']);
    expect(s.chunks.embedded).toBe(s.chunks.written);

    const kinds = Object.fromEntries([...app.catalog.docs()].map((d) => [d.path, d.kind]));
    expect(kinds['protocols/western.md']).toBe('protocol');
    expect(kinds['slides/update.pptx']).toBe('slides');
    expect(kinds['papers/paper.pdf']).toBe('paper');
    expect(kinds['safety.md']).toBe('wiki');
  });

  it('takes bibliographic metadata from the .bib sidecar and keeps it in Chroma', async () => {
    const paper = app.catalog.doc('lab:papers/paper.pdf')!;
    expect(paper.authors).toEqual(['Ada Okafor', 'Min Lee']);
    expect(paper.year).toBe(2021);
    expect(paper.doi).toBe('10.1234/jcs.2021.001');
    expect(paper.url).toBe('https://doi.org/10.1234/jcs.2021.001');
    const stored: Record<string, unknown>[] = [];
    await app.store.scan('public', (rs) => rs.forEach((r) => r.metadata.doc_id === paper.id && stored.push(r.metadata)));
    expect(stored.length).toBe(paper.chunkIds.length);
    expect(stored[0]).toMatchObject({
      authors: 'Ada Okafor; Min Lee',
      year: 2021,
      kind: 'paper',
      access: 'public',
      journal: 'Journal of Cell Stress',
    });
    expect(typeof stored[0].chunk_hash).toBe('string');
  });

  it('a scan in small pages (fetched several at a time) returns every stored chunk exactly once', async () => {
    const ids: string[] = [];
    await app.store.scan('public', (rs) => ids.push(...rs.map((r) => r.id)), 3);
    const expected = [...app.catalog.docs()].filter((d) => d.access === 'public').flatMap((d) => d.chunkIds);
    expect(expected.length).toBeGreaterThan(10);
    expect(ids.length).toBe(expected.length);
    expect(new Set(ids)).toEqual(new Set(expected));
  });

  it('subject keywords are searched with every chunk of their document but never shown', async () => {
    const paper = app.catalog.doc('lab:papers/paper.pdf')!;
    expect(paper.keywords).toEqual(['Nutlin-3a', 'ubiquitin ligase']);
    const hits = app.catalog.lexicalSearch(['public'], 'nutlin ubiquitin ligase', 50).map((h) => h.id);
    expect(hits.length).toBe(paper.chunkIds.length);
    expect(new Set(hits)).toEqual(new Set(paper.chunkIds));
    for (const id of paper.chunkIds) expect(app.catalog.chunk(id)!.text).not.toMatch(/nutlin/i);
    // A new process rebuilds the same lexical view from Chroma's metadata alone.
    const again = await openTestApp({ collection: app.config.collection });
    try {
      expect(again.catalog.doc(paper.id)!.keywords).toEqual(['Nutlin-3a', 'ubiquitin ligase']);
      expect(again.catalog.lexicalSearch(['public'], 'nutlin', 50).length).toBe(paper.chunkIds.length);
    } finally {
      await again.close();
    }
  });

  it('chunks protocols by step and slides by slide, each chunk with a standalone header', async () => {
    const proto = app.catalog.doc('proto-wb')!;
    const chunks = proto.chunkIds.map((id) => app.catalog.chunk(id)!);
    const step6 = chunks.find((c) => c.step === 6)!;
    expect(step6.text).toContain('ab32389');
    expect(step6.text.split('\n')[0]).toContain('Western blot for TP53');
    const materials = chunks.filter((c) => /materials/i.test(c.section));
    expect(materials).toHaveLength(1);
    const deck = app.catalog.doc('lab:slides/update.pptx')!;
    const slideNumbers = deck.chunkIds.map((id) => app.catalog.chunk(id)!.slide);
    expect(slideNumbers).toEqual([...slideNumbers].sort((a, b) => a! - b!));
    expect(new Set(slideNumbers).size).toBe(slideNumbers.length);
  });

  it('re-ingesting unchanged files embeds nothing', async () => {
    const s = await app.ingest({ sourceId: 'lab', root: dir });
    expect(s.documents.indexed).toBe(0);
    expect(s.documents.unchanged).toBe(6);
    expect(s.chunks.embedded).toBe(0);
    expect(s.chunks.written).toBe(0);
  });

  it('a reloaded catalog (new process) sees the same records, so re-ingest stays idempotent', async () => {
    const again = await openTestApp({ collection: app.config.collection });
    try {
      expect(again.catalog.stats()).toEqual(app.catalog.stats());
      const s = await again.ingest({ sourceId: 'lab', root: dir });
      expect(s.chunks.embedded).toBe(0);
      expect(s.documents.unchanged).toBe(6);
    } finally {
      await again.close();
    }
  });

  it('an edited file re-embeds only changed chunks and drops stale ones', async () => {
    const before = app.catalog.doc('wiki-safety')!;
    const hashesBefore = new Set(before.chunkIds.map((id) => app.catalog.chunk(id)!.hash));
    const edited = `${WIKI.replace('never down the sink', 'never down the sink; label it with the date')}\n## New section\n\nGloves are in drawer 3.\n`;
    writeFileSync(path.join(dir, 'safety.md'), edited);
    const s = await app.ingest({ sourceId: 'lab', root: dir });
    expect(s.documents.indexed).toBe(1);
    const after = app.catalog.doc('wiki-safety')!;
    const newTexts = new Set(after.chunkIds.map((id) => app.catalog.chunk(id)!.hash).filter((h) => !hashesBefore.has(h)));
    // Exactly the chunks whose text is new are embedded, and they are not all of the document's.
    expect(newTexts.size).toBeGreaterThan(0);
    expect(newTexts.size).toBeLessThan(after.chunkIds.length);
    expect(s.chunks.embedded).toBe(newTexts.size);
    const texts = after.chunkIds.map((id) => app.catalog.chunk(id)!.text).join('\n');
    expect(texts).toContain('drawer 3');
    expect(texts).toContain('label it with the date');
    // Chroma holds exactly the new chunk ids for this document.
    const ids: string[] = [];
    await app.store.scan('public', (rs) => rs.forEach((r) => r.metadata.doc_id === 'wiki-safety' && ids.push(r.id)));
    expect(ids.sort()).toEqual([...after.chunkIds].sort());
    expect(before.contentHash).not.toBe(after.contentHash);
  });

  it('a file removed from the folder is removed from the index on the next ingest', async () => {
    rmSync(path.join(dir, 'protocols', 'passaging.docx'));
    const s = await app.ingest({ sourceId: 'lab', root: dir });
    expect(s.documents.removed).toBe(1);
    expect(app.catalog.doc('lab:protocols/passaging.docx')).toBeUndefined();
    const left: string[] = [];
    await app.store.scan('public', (rs) => rs.forEach((r) => r.metadata.doc_id === 'lab:protocols/passaging.docx' && left.push(r.id)));
    expect(left).toEqual([]);
  });

  it('keeps restricted documents in their own collection and out of public retrieval', async () => {
    expect(await app.store.groups()).toEqual(expect.arrayContaining(['public', 'pi-only']));
    const q = 'What is the renewal code word PELICAN-7 in the grant budget?';
    const pub = await app.retrieve(q, ['public'], 10);
    expect(pub.passages.some((p) => p.docId === 'pi-budget')).toBe(false);
    expect(pub.passages.every((p) => !p.text.includes('PELICAN'))).toBe(true);
    expect(app.catalog.lexicalSearch(['public'], q, 50).some((h) => h.id.startsWith('pi-budget'))).toBe(false);
    const dense = await app.store.query('public', await app.embeddings.embedQuery(q), 50);
    expect(dense.some((h) => h.id.startsWith('pi-budget'))).toBe(false);
    const pi = await app.retrieve(q, ['public', 'pi-only'], 10);
    expect(pi.passages[0].docId).toBe('pi-budget');
  });

  it('finds an exact catalogue number even when the question is otherwise vague', async () => {
    const r = await app.retrieve('anything about ab32389?', ['public'], 5);
    expect(r.passages[0].text).toContain('ab32389');
    // A rare catalogue number keeps most of the exact-match boost (weighted by its idf).
    expect(r.passages[0].debug.exact).toBeGreaterThan(0.5);
  });

  it('hands the best hit over with its neighbouring chunks (small-to-big), without repeating them', async () => {
    const proto = app.catalog.doc('proto-wb')!;
    const step3 = proto.chunkIds.map((id) => app.catalog.chunk(id)!).find((c) => c.step === 3)!;
    const r = await app.retrieve('Load 20 µg of protein per lane on a 10% gel', ['public'], 6);
    expect(r.passages[0].chunkId).toBe(step3.id);
    expect(r.passages[0].text).toContain('14,000 g');
    expect(r.passages[0].text).toContain('PVDF at 100 V');
    const neighbours = new Set([
      proto.chunkIds[proto.chunkIds.indexOf(step3.id) - 1],
      proto.chunkIds[proto.chunkIds.indexOf(step3.id) + 1],
    ]);
    expect(r.passages.slice(1).some((p) => neighbours.has(p.chunkId))).toBe(false);
  });

  it('refuses to mix index versions in one collection: other settings open it (to answer and queue a rebuild) but never write to it', async () => {
    const other = await openTestApp({ collection: app.config.collection, env: { EMBEDDING_DIMENSIONS: '128' } });
    try {
      expect(other.version).not.toBe(app.version);
      await expect(other.ingest({ sourceId: 'lab', root: dir })).rejects.toThrow(/was built with index version .*labbot ingest --rebuild/s);
    } finally {
      await other.close();
    }
    const again = await openTestApp({ collection: app.config.collection });
    try {
      expect(again.catalog.stats()).toEqual(app.catalog.stats());
    } finally {
      await again.close();
    }
  });

  it('ingests into a fresh collection per test run (collections are isolated)', async () => {
    const fresh = await openTestApp({ collection: uniqueCollection('iso') });
    try {
      expect(fresh.catalog.stats().documents).toBe(0);
    } finally {
      await fresh.close();
    }
  });
});
