// Issue 24, items 1 and 2: a restricted document's access group holds whatever shape its
// metadata is written in. Each reproduction goes through the real ingest path (files on disk, the
// pipeline, Chroma and the lexical catalog) and is then asked about the way a public reader asks
// (no channel, as an anonymous POST /api/ask or a public Slack channel does) and the way a member
// of the group asks (channel CPI, which the test config maps to pi-only).
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Labbot } from '../../src/app.ts';
import type { IngestSummary } from '../../src/ingest/pipeline.ts';
import { accessVariants, brokenAccessVariants, type AccessVariant } from '../helpers/access-variants.ts';
import { openTestApp } from '../helpers/app.ts';

let app: Labbot;
beforeAll(async () => {
  app = await openTestApp();
});
afterAll(async () => {
  await app?.close();
});

let sources = 0;

interface Outcome {
  summary: IngestSummary;
  /** The group the document was indexed in, if it was. */
  indexedAs?: string;
  /** Passages about the marker a public reader is given. */
  publicPassages: string[];
  /** Passages about the marker a member of pi-only is given. */
  piPassages: string[];
}

/** Writes `files` (the document first) into a folder of their own, ingests it, and asks about `marker`. */
async function ingestAndAsk(
  files: Record<string, string>,
  marker: string,
  dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-shapes-')),
  sourceId = `shapes-${++sources}`,
): Promise<Outcome> {
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  const summary = await app.ingest({ sourceId, root: dir });
  const doc = [...app.catalog.docs()].find((d) => d.source === sourceId && d.path === Object.keys(files)[0]);
  const question = `What does the ${marker} note say?`;
  const ofThisSource = (r: Awaited<ReturnType<Labbot['ask']>>) =>
    r.passages.filter((p) => p.doc_id.startsWith(`${sourceId}:`)).map((p) => p.text);
  return {
    summary,
    indexedAs: doc?.access,
    publicPassages: ofThisSource(await app.ask(question)),
    piPassages: ofThisSource(await app.ask(question, { channel: 'CPI' })),
  };
}

/** The document is in pi-only: a member reads it, a public reader does not. */
function expectRestricted(o: Outcome, marker: string): void {
  expect(o.summary.failed).toEqual([]);
  expect(o.indexedAs).toBe('pi-only');
  expect(o.publicPassages.join(' ')).not.toContain(marker);
  expect(o.piPassages.join(' ')).toContain(marker);
}

/** The document is not indexed at all, with a reason; nobody reads it. */
function expectRefused(o: Outcome, marker: string, reason: RegExp): void {
  expect(o.summary.failed.map((f) => f.reason).join(' ')).toMatch(reason);
  expect(o.indexedAs).toBeUndefined();
  expect(o.publicPassages.join(' ')).not.toContain(marker);
  expect(o.piPassages.join(' ')).not.toContain(marker);
}

describe('item 1: a YAML sidecar or front matter written as people write it keeps its access group', () => {
  it('a YAML sidecar opened with --- keeps its access group', async () => {
    const o = await ingestAndAsk(
      { 'sec2.txt': 'The SECRETTWO assay code is 4411.\n', 'sec2.yaml': '---\ntitle: Secret two\naccess: pi-only\n' },
      'SECRETTWO',
    );
    expectRestricted(o, 'SECRETTWO');
    expect([...app.catalog.docs()].find((d) => d.path === 'sec2.txt' && d.access === 'pi-only')?.title).toBe('Secret two');
  });

  it('a .yml sidecar written between --- and ... keeps its access group', async () => {
    const o = await ingestAndAsk(
      { 'sec5.md': 'The SECRETFIVE assay code is 5511.\n', 'sec5.yml': '---\ntitle: Secret five\naccess: pi-only\n...\n' },
      'SECRETFIVE',
    );
    expectRestricted(o, 'SECRETFIVE');
  });

  it('a YAML sidecar with --- between its fields is refused, and its earlier public version removed', async () => {
    // Two YAML documents: which one describes the file is unknown, and the second one restricts it.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-shapes-'));
    const first = await ingestAndAsk({ 'sec3.txt': 'The SECRETTHREE assay code is 3311.\n' }, 'SECRETTHREE', dir, 'shapes-sec3');
    expect(first.indexedAs).toBe('public');
    const o = await ingestAndAsk(
      { 'sec3.txt': 'The SECRETTHREE assay code is 3311.\n', 'sec3.yaml': 'title: Secret three\n---\naccess: pi-only\n' },
      'SECRETTHREE',
      dir,
      'shapes-sec3',
    );
    expectRefused(o, 'SECRETTHREE', /sec3\.yaml cannot be read .*more than one document.*the version indexed before was removed/);
    expect(o.summary.documents.removed).toBe(1);
  });

  it('a Markdown file with a blank line before its front matter keeps its access group', async () => {
    const o = await ingestAndAsk(
      { 'sec6.md': '\n---\ntitle: Secret six\naccess: pi-only\n---\n\nThe SECRETSIX assay code is 6611.\n' },
      'SECRETSIX',
    );
    expectRestricted(o, 'SECRETSIX');
  });

  it('a plain-text note with blank lines and a BOM before its front matter keeps its access group', async () => {
    const o = await ingestAndAsk(
      { 'sec7.txt': '\uFEFF\r\n  \r\n---\r\naccess: pi-only\r\n---\r\nThe SECRETSEVEN assay code is 7711.\r\n' },
      'SECRETSEVEN',
    );
    expectRestricted(o, 'SECRETSEVEN');
  });

  it('TOML front matter (+++) holding access = "pi-only" keeps its access group', async () => {
    const o = await ingestAndAsk(
      { 'sec8.md': '+++\ntitle = "Secret eight"\naccess = "pi-only"\n+++\n\nThe SECRETEIGHT assay code is 8811.\n' },
      'SECRETEIGHT',
    );
    expectRestricted(o, 'SECRETEIGHT');
    expect([...app.catalog.docs()].find((d) => d.path === 'sec8.md' && d.access === 'pi-only')?.title).toBe('Secret eight');
  });

  it('TOML front matter in a plain-text note, after a blank line, keeps its access group', async () => {
    const o = await ingestAndAsk({ 'sec9.txt': '\n+++\naccess = "pi-only"\n+++\nThe SECRETNINE assay code is 9911.\n' }, 'SECRETNINE');
    expectRestricted(o, 'SECRETNINE');
  });

  it('TOML front matter that does not parse is refused, and its earlier public version removed', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-shapes-'));
    const first = await ingestAndAsk({ 'sec10.md': 'The SECRETTEN assay code is 1011.\n' }, 'SECRETTEN', dir, 'shapes-sec10');
    expect(first.indexedAs).toBe('public');
    const o = await ingestAndAsk(
      { 'sec10.md': '+++\naccess = pi-only\n+++\n\nThe SECRETTEN assay code is 1011.\n' },
      'SECRETTEN',
      dir,
      'shapes-sec10',
    );
    expectRefused(o, 'SECRETTEN', /front matter cannot be read .*TOML.*the version indexed before was removed/);
  });

  it('front matter opened but never closed is refused when it names an access group', async () => {
    const o = await ingestAndAsk(
      { 'sec11.md': '---\ntitle: Secret eleven\naccess: pi-only\n\nThe SECRETELEVEN assay code is 1111.\n' },
      'SECRETELEVEN',
    );
    expectRefused(o, 'SECRETELEVEN', /front matter cannot be read .*not closed/);
  });

  it('a sidecar restricts every document of its name (paper.md and paper.txt beside paper.yaml)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-shapes-'));
    const o = await ingestAndAsk(
      {
        'sec13.txt': 'The SECRETTHIRTEEN assay code is 1311.\n',
        'sec13.md': 'The SECRETTHIRTEEN gel is in freezer B.\n',
        'sec13.yaml': 'access: pi-only\n',
      },
      'SECRETTHIRTEEN',
      dir,
    );
    expect(o.summary.failed).toEqual([]);
    const both = [...app.catalog.docs()].filter((d) => d.path.startsWith('sec13.'));
    expect(both.map((d) => `${d.path} ${d.access}`).sort()).toEqual(['sec13.md pi-only', 'sec13.txt pi-only']);
    expect(o.publicPassages.join(' ')).not.toContain('SECRETTHIRTEEN');
    expect(o.piPassages.join(' ')).toContain('SECRETTHIRTEEN');
  });

  it('an HTML page with front matter (a Jekyll source) keeps its access group', async () => {
    const o = await ingestAndAsk(
      { 'sec14.html': '---\nlayout: page\naccess: pi-only\n---\n<h1>Freezer</h1>\n<p>The SECRETFOURTEEN assay code is 1411.</p>\n' },
      'SECRETFOURTEEN',
    );
    expectRestricted(o, 'SECRETFOURTEEN');
  });

  it('a TOML sidecar (.toml) keeps its access group', async () => {
    const o = await ingestAndAsk(
      { 'sec12.txt': 'The SECRETTWELVE assay code is 1211.\n', 'sec12.toml': 'title = "Secret twelve"\naccess = "pi-only"\n' },
      'SECRETTWELVE',
    );
    expectRestricted(o, 'SECRETTWELVE');
  });
});

describe("item 2: a .bib sidecar's access field is read", () => {
  it('a well-formed access = {pi-only} in a .bib sidecar keeps its access group', async () => {
    const bib = '@article{sec4,\n  title = {Secret four},\n  author = {Okafor, Ada},\n  year = {2023},\n  access = {pi-only}\n}\n';
    const o = await ingestAndAsk({ 'sec4.txt': 'The SECRETFOUR assay code is 4411.\n', 'sec4.bib': bib }, 'SECRETFOUR');
    expectRestricted(o, 'SECRETFOUR');
    expect([...app.catalog.docs()].find((d) => d.path === 'sec4.txt' && d.access === 'pi-only')?.title).toBe('Secret four');
  });

  it('a .bib sidecar whose second entry restricts it, with no entry named after the document, is refused', async () => {
    const bib =
      '@misc{intro,\n  title = {Secret fifteen, part one}\n}\n@misc{rest,\n  title = {Secret fifteen, part two},\n  access = {pi-only}\n}\n';
    const o = await ingestAndAsk({ 'sec15.txt': 'The SECRETFIFTEEN assay code is 1511.\n', 'sec15.bib': bib }, 'SECRETFIFTEEN');
    expectRefused(o, 'SECRETFIFTEEN', /sec15\.bib cannot be read \(its entries name different access groups/);
  });
});

describe('property: a restricted document is indexed in its group or not at all, never public', () => {
  /** Writes every variant into one folder, ingests it once, and checks each in the catalog and through a public ask. */
  async function check(variants: AccessVariant[], refused: boolean): Promise<void> {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-shapes-prop-'));
    for (const v of variants) for (const f of v.files) writeFileSync(path.join(dir, f.name), f.text);
    const sourceId = `shapes-prop-${++sources}`;
    const summary = await app.ingest({ sourceId, root: dir });
    const failed = new Map(summary.failed.map((f) => [path.basename(f.path), f.reason ?? '']));
    const indexed = new Map([...app.catalog.docs()].filter((d) => d.source === sourceId).map((d) => [d.path, d]));
    for (const v of variants) {
      const doc = v.files[0].name;
      const rec = indexed.get(doc);
      // The property itself: never in the default group, never answered to a public reader.
      expect(rec?.access, v.shape).not.toBe('public');
      expect(app.catalog.lexicalSearch(['public'], v.marker, 3), v.shape).toEqual([]);
      const asked = await app.ask(`What does the ${v.marker} passage say?`);
      expect(asked.passages.map((p) => p.text).join(' '), v.shape).not.toContain(v.marker);
      if (refused) {
        // A shape that cannot be read as metadata is refused with a reason, not indexed anywhere.
        expect(rec, v.shape).toBeUndefined();
        expect(failed.get(doc), v.shape).toMatch(/not indexed/);
      } else {
        // A readable shape keeps its declared group: members of it read the text.
        expect(failed.get(doc), v.shape).toBeUndefined();
        expect(rec?.access, v.shape).toBe(v.group);
        expect(app.catalog.lexicalSearch([v.group], v.marker, 3).length, v.shape).toBeGreaterThan(0);
      }
    }
  }

  for (const seed of [101, 202, 303]) {
    it(`readable sidecar and front-matter shapes (seed ${seed}) keep their declared group`, async () => {
      await check(accessVariants(seed, 48), false);
    });
  }

  for (const seed of [404, 505]) {
    it(`unreadable sidecar and front-matter shapes (seed ${seed}) are refused`, async () => {
      await check(brokenAccessVariants(seed, 50), true);
    });
  }
});
