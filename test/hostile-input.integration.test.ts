// One folder of hostile and broken files, ingested in a single run into real Chroma: the run
// completes, every bad file is reported with a reason a lab member can act on, the good documents
// are indexed and answerable, the zip bombs never inflate past the archive limit and a second run
// is idempotent. The parsers' unit behaviour is in parse-bad-input.test.ts;
// this checks that the pipeline as a whole survives all of it at once.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Labbot } from '../src/app.ts';
import type { FileOutcome, IngestSummary } from '../src/ingest/pipeline.ts';
import { makePaperPdf, PAPER_TITLE, utf8, zeroBytes } from './fixtures/make.ts';
import {
  makeBinaryJunk,
  makeDeepHtml,
  makeEncryptedPdf,
  makeLargeZipBombPptx,
  makeLatin1Text,
  makeNumericAccessMarkdown,
  makeOversizedText,
  makeTruncatedPdf,
  makeWrongTypesMarkdown,
  writeSingleLineMarkdown,
} from './fixtures/hostile.ts';
import { openTestApp } from './helpers/app.ts';

const MB = 1024 * 1024;
// Above the 10 MB single-line file (which must reach the parser), below the 13 MB oversized one.
const MAX_FILE_MB = 12;

const GOOD_PROTOCOL = `---
id: good-miniprep
title: Plasmid miniprep
kind: protocol
authors: [Priya Raman]
year: 2023
---

# Plasmid miniprep

## Procedure

1. Pellet 3 mL of overnight culture at 6,800 g for 3 minutes.
2. Resuspend the pellet in 250 µL of buffer P1 with RNase A.
3. Add 250 µL of lysis buffer P2 and invert gently six times; do not vortex.
4. Neutralise with 350 µL of buffer N3 and spin for 10 minutes at 17,900 g.
5. Elute the DNA in 50 µL of elution buffer EB warmed to 50 °C.
`;

const GOOD_WIKI = `<!doctype html><html><head><title>Cold room rules</title></head><body><main>
<h1>Cold room rules</h1>
<p>The cold room door alarm sounds after ninety seconds; close the door fully behind you.</p>
<h2>Storage</h2>
<p>Label every box in the cold room with your initials and the date. Unlabelled boxes are discarded on the first Monday of each month.</p>
</main></body></html>`;

const WRONG_TYPES_BODY =
  '# Sonicator booking\n\nThe probe sonicator in room C.12 is booked through the shared calendar, in blocks of thirty minutes.';
const NUMERIC_ACCESS_BODY = '# Retreat plans\n\nThe lab retreat budget spreadsheet lives on the PI drive under ORIOLE-4.';

/** What each hostile file must produce: a failure (or skip) reason, or indexing with a warning. */
interface Expectation {
  status: 'failed' | 'skipped' | 'indexed';
  reason?: RegExp;
  warning?: RegExp;
}

const HOSTILE: Record<string, Expectation> = {
  'papers/empty.pdf': { status: 'failed', reason: /^empty\.pdf: empty file$/ },
  'papers/truncated.pdf': { status: 'failed', reason: /^truncated\.pdf: not a valid PDF \(truncated or corrupt\)$/ },
  'papers/locked.pdf': { status: 'failed', reason: /^locked\.pdf: encrypted PDF/ },
  'slides/bomb.pptx': { status: 'failed', reason: /^bomb\.pptx: archive expands beyond 200 MB \(zip bomb\?\)$/ },
  'slides/bomb-liar.pptx': { status: 'failed', reason: /^bomb-liar\.pptx: archive expands beyond 200 MB \(zip bomb\?\)$/ },
  'notes/huge.txt': { status: 'failed', reason: /^file is 13\.0 MB, over the limit of 12\.0 MB \(ingest\.maxFileMb\)$/ },
  'notes/image.md': { status: 'failed', reason: /^image\.md: binary content in a text file$/ },
  'notes/latin1.txt': { status: 'failed', reason: /^latin1\.txt: invalid UTF-8 \(\d+ bad byte sequences; save the file as UTF-8\)$/ },
  'wiki/numeric-access.md': { status: 'failed', reason: /^access 42 in front matter is not a valid group name; not indexed/ },
  'notes/data.xlsx': { status: 'skipped', reason: /unsupported format "\.xlsx"/ },
  // Damaged but readable: indexed, with the damage reported as a warning.
  'wiki/deep.html': {
    status: 'indexed',
    warning: /^HTML nested 100\d{3} levels deep \(limit 500\); read as plain text without structure$/,
  },
  'wiki/wrong-types.md': { status: 'indexed', warning: /"year": expected a year, got "abc"/ },
  'notes/one-line.md': { status: 'indexed', warning: /read as plain text/ },
};

const GOOD = ['protocols/miniprep.md', 'wiki/cold-room.html', 'papers/paper.pdf'];

describe('a folder of hostile files, ingested in one run', () => {
  let app: Labbot;
  let dir: string;
  let first: IngestSummary;
  let firstMs = 0;
  let bomb: Buffer;
  let liar: Buffer;
  let bombUnzipped = true;
  let liarUnzipped = false;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-hostile-'));
    for (const sub of ['papers', 'slides', 'notes', 'wiki', 'protocols']) mkdirSync(path.join(dir, sub));
    const put = (rel: string, bytes: Uint8Array) => writeFileSync(path.join(dir, rel), bytes);
    put('papers/empty.pdf', zeroBytes());
    put('papers/truncated.pdf', await makeTruncatedPdf(0.5));
    put('papers/locked.pdf', makeEncryptedPdf());
    put('papers/paper.pdf', await makePaperPdf());
    // 300 MB of zeros each, ~300 KB on disk: one declares its size, one claims 1000 bytes.
    bomb = Buffer.from(await makeLargeZipBombPptx());
    liar = Buffer.from(await makeLargeZipBombPptx({ declaredBytes: 1000 }));
    put('slides/bomb.pptx', bomb);
    put('slides/bomb-liar.pptx', liar);
    put('notes/huge.txt', makeOversizedText(13 * MB));
    put('notes/image.md', makeBinaryJunk(64 * 1024));
    put('notes/latin1.txt', makeLatin1Text());
    put('notes/data.xlsx', utf8('not a spreadsheet'));
    await writeSingleLineMarkdown(path.join(dir, 'notes/one-line.md'), 10 * MB);
    put('wiki/deep.html', makeDeepHtml(100_000));
    put('wiki/wrong-types.md', makeWrongTypesMarkdown(WRONG_TYPES_BODY));
    put('wiki/numeric-access.md', makeNumericAccessMarkdown(NUMERIC_ACCESS_BODY));
    put('wiki/cold-room.html', utf8(GOOD_WIKI));
    put('protocols/miniprep.md', utf8(GOOD_PROTOCOL));

    app = await openTestApp({
      fileConfig: { access: { default: 'public', channels: { CPI: ['pi-only'] } }, ingest: { maxFileMb: MAX_FILE_MB, embedBatch: 256 } },
    });

    // Watch which archives are ever handed to the unzipper.
    const unzip = vi.spyOn(JSZip, 'loadAsync');
    const t0 = performance.now();
    first = await app.ingest({ sourceId: 'hostile', root: dir });
    firstMs = performance.now() - t0;
    const unzipped = unzip.mock.calls.map((c) => Buffer.from(c[0] as Uint8Array));
    unzip.mockRestore();
    bombUnzipped = unzipped.some((b) => b.equals(bomb));
    liarUnzipped = unzipped.some((b) => b.equals(liar));
  }, 300_000);

  afterAll(async () => {
    await app?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const outcomeOf = (s: IngestSummary, rel: string): FileOutcome | undefined =>
    s.outcomes.find((o) => path.relative(dir, o.path).split(path.sep).join('/') === rel);

  it('completes and reports every file exactly once', () => {
    const rels = first.outcomes.map((o) => path.relative(dir, o.path).split(path.sep).join('/')).sort();
    expect(rels).toEqual([...Object.keys(HOSTILE), ...GOOD].sort());
    // Well under the parser's 120 s timeout per file: nothing hung.
    expect(firstMs).toBeLessThan(240_000);
  });

  it.each(Object.entries(HOSTILE))('%s is reported with a clear reason', (rel, want) => {
    const o = outcomeOf(first, rel);
    expect(o, rel).toBeDefined();
    expect(o!.status).toBe(want.status);
    if (want.reason) expect(o!.reason).toMatch(want.reason);
    if (want.warning) expect(o!.warnings ?? []).toEqual(expect.arrayContaining([expect.stringMatching(want.warning)]));
    if (want.status !== 'indexed') {
      expect(first.failed.concat(first.skipped)).toContain(o);
      expect([...app.catalog.docs()].some((d) => d.path === rel)).toBe(false);
    }
  });

  it('keeps the wrong-typed front matter out of the metadata instead of guessing', () => {
    const o = outcomeOf(first, 'wiki/wrong-types.md')!;
    expect(o.warnings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/"title": expected text, got a list/),
        expect.stringMatching(/"authors": expected a list of names, got 5/),
      ]),
    );
    const doc = app.catalog.doc(o.docId!)!;
    expect(doc.year).toBeUndefined();
    expect(doc.authors).toEqual([]);
    // Falls back to the first heading, not to "1 2" or "[object Object]".
    expect(doc.title).toBe('Sonicator booking');
    expect(doc.access).toBe('public');
  });

  it('fails the numeric access group closed: its text is in no collection', async () => {
    for (const group of await app.store.groups()) {
      const texts: string[] = [];
      await app.store.scan(group, (rs) => rs.forEach((r) => texts.push(r.text)));
      expect(
        texts.some((t) => t.includes('ORIOLE-4')),
        group,
      ).toBe(false);
    }
    const hits = app.catalog.lexicalSearch(['public'], 'ORIOLE-4 retreat budget', 10);
    expect(hits.some((h) => /ORIOLE/.test(app.catalog.chunk(h.id)?.text ?? ''))).toBe(false);
  });

  it('indexes the good documents and answers from them', async () => {
    for (const rel of GOOD) expect(outcomeOf(first, rel)?.status, rel).toBe('indexed');
    const cases: [string, string, RegExp][] = [
      ['How long do I spin after adding buffer N3 in the miniprep?', 'good-miniprep', /17,900 g|10 minutes/],
      ['When are unlabelled boxes in the cold room discarded?', 'hostile:wiki/cold-room.html', /first Monday/],
      [
        'What was the fission rate after twenty-four hours at one percent oxygen?',
        'hostile:papers/paper.pdf',
        /1\.7 events per cell per minute/,
      ],
    ];
    for (const [q, docId, text] of cases) {
      const r = await app.ask(q);
      expect(r.refused, q).toBe(false);
      expect(
        r.citations.map((c) => c.doc_id),
        q,
      ).toContain(docId);
      expect(r.answer, q).toMatch(text);
    }
    expect(app.catalog.doc('hostile:papers/paper.pdf')!.title).toBe(PAPER_TITLE);
  });

  it('indexes the damaged-but-readable files as text (the deep page is searchable)', async () => {
    const r = await app.retrieve('ultracentrifuge rotor TLA-120.2', ['public'], 3);
    expect(r.passages[0].docId).toBe('hostile:wiki/deep.html');
    expect(r.passages[0].text).not.toContain('<div>');
    const oneLine = app.catalog.doc('hostile:notes/one-line.md')!;
    // ~10 MB cut into bounded chunks, none of them the whole line.
    expect(oneLine.chunkIds.length).toBeGreaterThan(1000);
    const longest = Math.max(...oneLine.chunkIds.slice(0, 200).map((id) => app.catalog.chunk(id)!.text.length));
    expect(longest).toBeLessThan(4000);
  });

  it('the zip bombs never reach the unzipper unchecked', () => {
    // The honest bomb is refused from its declared size: it never reaches the unzipper. The liar
    // passes that check (so the spy does see archives) and is stopped by counting while inflating.
    expect(liarUnzipped).toBe(true);
    expect(bombUnzipped).toBe(false);
  });

  it('a second run over the same folder is idempotent', async () => {
    const again = await app.ingest({ sourceId: 'hostile', root: dir });
    expect(again.chunks.embedded).toBe(0);
    expect(again.chunks.written).toBe(0);
    expect(again.documents.indexed).toBe(0);
    expect(again.documents.removed).toBe(0);
    const indexed = Object.entries(HOSTILE)
      .filter(([, w]) => w.status === 'indexed')
      .map(([rel]) => rel);
    for (const rel of [...GOOD, ...indexed]) expect(outcomeOf(again, rel)?.status, rel).toBe('unchanged');
    expect(again.documents.unchanged).toBe(GOOD.length + indexed.length);
    // The bad files are reported again, with the same reasons.
    const reasons = (s: IngestSummary) => Object.fromEntries([...s.failed, ...s.skipped].map((o) => [o.path, o.reason]));
    expect(reasons(again)).toEqual(reasons(first));
  }, 120_000);
});

// Memory is measured on a folder of its own: in the run above, the 10 MB single-line file alone
// moves peak RSS by 300-450 MB depending on when the collector runs, which would hide a 300 MB bomb.
describe('a zip bomb that lies about its size', () => {
  const INFLATED_MB = 600;
  let app: Labbot;
  let dir: string;
  let summary: IngestSummary;
  let growthMb = 0;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-liar-'));
    mkdirSync(path.join(dir, 'slides'));
    const liar = await makeLargeZipBombPptx({ inflatedBytes: INFLATED_MB * MB, declaredBytes: 1000 });
    writeFileSync(path.join(dir, 'slides/liar.pptx'), liar);
    writeFileSync(path.join(dir, 'slides/miniprep.md'), utf8(GOOD_PROTOCOL));
    app = await openTestApp({ fileConfig: { access: { default: 'public' } } });
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sample = () => {
      peak = Math.max(peak, process.memoryUsage().rss);
    };
    const timer = setInterval(sample, 10);
    try {
      summary = await app.ingest({ sourceId: 'liar', root: dir }, sample);
    } finally {
      clearInterval(timer);
    }
    sample();
    growthMb = (peak - before) / MB;
  }, 300_000);

  afterAll(async () => {
    await app?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('is stopped while inflating, so memory grows by about the 200 MB limit, not the 600 MB it holds', () => {
    expect(summary.failed.map((o) => o.reason)).toEqual([expect.stringMatching(/^liar\.pptx: archive expands beyond 200 MB/)]);
    expect(summary.documents.indexed).toBe(1);
    // Measured 210-260 MB stopped at the limit, and 620 MB with the limit lifted.
    expect(growthMb).toBeLessThan(400);
  });
});
