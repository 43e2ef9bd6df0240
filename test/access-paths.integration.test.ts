// The access rule (ingest/access.ts) on every way in and every input shape: generated variants of
// front matter, sidecars and library bibliographies, written as people write them, each declaring
// a restricted group.
// Through an in-process ingest (the CLI's path), serve's start-up indexing and the queue worker
// (a generic webhook naming the files), every document lands in its declared group, or is
// refused with a reason; none is ever readable from the default group.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decideAccess } from '../src/ingest/access.ts';
import { loadConfig } from '../src/config.ts';
import { createCatalog } from '../src/search/catalog.ts';
import { createLogger } from '../src/log.ts';
import { startServe, type Running } from '../src/serve.ts';
import { accessVariants, type AccessVariant } from './helpers/access-variants.ts';
import { openTestApp, testEnv } from './helpers/app.ts';
import { genericChange } from './helpers/git-wiki.ts';
import { waitFor } from './helpers/wait.ts';

const GROUPS = ['pi-only', 'grants', 'cell_culture', 'core-2'];
const SECRET = 'access-paths-secret-01';

function writeVariants(dir: string, variants: AccessVariant[]): void {
  for (const v of variants) for (const f of v.files) writeFileSync(path.join(dir, f.name), f.text);
}

describe('the access rule', () => {
  it('refuses unreadable layers, invalid values and disagreeing layers; otherwise the most specific claim wins', () => {
    expect(decideAccess([{ origin: 'front matter', access: 'pi-only' }], 'lab', 'public')).toEqual({
      ok: true,
      group: 'pi-only',
      origin: 'front matter',
    });
    expect(decideAccess([], 'lab', 'public')).toEqual({ ok: true, group: 'lab', origin: 'source config' });
    expect(decideAccess([], undefined, 'public')).toEqual({ ok: true, group: 'public', origin: 'default' });
    expect(decideAccess([{ origin: 'x.yaml', unreadable: 'invalid YAML' }], undefined, 'public')).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/x\.yaml cannot be read/),
    });
    expect(decideAccess([{ origin: 'x.bib', invalidAccess: 'a list' }], undefined, 'public')).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/not a valid group/),
    });
    expect(
      decideAccess(
        [
          { origin: 'front matter', access: 'public' },
          { origin: 'x.yaml', access: 'pi-only' },
        ],
        undefined,
        'public',
      ),
    ).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/disagrees: front matter says "public", x\.yaml says "pi-only"/),
    });
  });

  it('a chunk read back without access metadata is in the group of its collection, never public by default', () => {
    const catalog = createCatalog();
    catalog.load(
      [
        {
          id: 'd#0',
          text: 'The LOSTACCESS note.',
          metadata: {
            doc_id: 'd',
            source: 's',
            path: 'd.md',
            kind: 'note',
            title: 'D',
            authors: '',
            doc_hash: 'h',
            chunk_hash: 'c',
            chunk_index: 0,
            section: '',
          },
        },
      ],
      'pi-only',
    );
    catalog.load(
      [
        {
          id: 'e#0',
          text: 'The WRONGACCESS note.',
          metadata: {
            doc_id: 'e',
            source: 's',
            path: 'e.md',
            kind: 'note',
            title: 'E',
            authors: '',
            access: 'public',
            doc_hash: 'h',
            chunk_hash: 'c',
            chunk_index: 0,
            section: '',
          },
        },
      ],
      'grants',
    );
    expect(catalog.doc('d')?.access).toBe('pi-only');
    // Metadata that names a group keeps it (retrieval then drops the chunk from the other collection's hits).
    expect(catalog.doc('e')?.access).toBe('public');
    expect(catalog.lexicalSearch(['public'], 'LOSTACCESS', 3)).toEqual([]);
  });
});

describe('every way in, every shape: a declared group is kept or the document is refused', () => {
  const closers: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of closers.reverse()) await c();
  });

  it('an in-process ingest (the CLI path) puts 60 generated variants in their declared groups', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-access-'));
    const variants = accessVariants(7, 60);
    writeVariants(dir, variants);
    const app = await openTestApp();
    closers.push(() => app.close());
    const summary = await app.ingest({ sourceId: 'docs', root: dir });
    expect(summary.failed).toEqual([]);
    for (const v of variants) {
      const doc = [...app.catalog.docs()].find((d) => d.path === v.files[0].name);
      expect(doc?.access, v.shape).toBe(v.group);
      expect(app.catalog.lexicalSearch(['public'], v.marker, 3), v.shape).toEqual([]);
      expect(app.catalog.lexicalSearch([v.group], v.marker, 3).length, v.shape).toBeGreaterThan(0);
    }
    // Re-ingesting is idempotent: nothing is rewritten, nothing moves.
    const again = await app.ingest({ sourceId: 'docs', root: dir });
    expect(again.documents).toMatchObject({ indexed: 0, unchanged: variants.length, removed: 0 });
  });

  it('serve start-up and the queue worker keep the declared groups of other generated variants', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-access-serve-'));
    const atStart = accessVariants(11, 24);
    writeVariants(dir, atStart);
    const env = testEnv({
      env: { LLM: 'none', LABBOT_PORT: '0' },
      fileConfig: { sources: [{ id: 'docs', type: 'folder', path: dir, secret: SECRET }], access: { default: 'public', channels: {} } },
    });
    const running: Running = await startServe(loadConfig(env), createLogger('silent'));
    closers.push(() => running.close());
    const { app } = running;
    for (const v of atStart) {
      expect((await app.records!.atPath('docs', v.files[0].name))?.access, v.shape).toBe(v.group);
      expect(app.catalog.lexicalSearch(['public'], v.marker, 3), v.shape).toEqual([]);
    }

    // Later files reach the index through a webhook and the queue worker's index-doc jobs.
    // Renamed, with the names a library entry matches its document by (key, file, DOI) renamed alike.
    const rename = (t: string) => t.replace(/\bdoc-(\d+)/g, 'late-doc-$1');
    const later = accessVariants(13, 24).map((v) => ({
      ...v,
      files: v.files.map((f) => ({ name: `late-${f.name}`, text: rename(f.text) })),
    }));
    writeVariants(dir, later);
    const hook = genericChange(SECRET, { changed: later.map((v) => v.files[0].name) });
    const res = await fetch(`${running.url}/hooks/wiki/docs`, { method: 'POST', headers: hook.headers, body: hook.body });
    expect(res.status).toBe(202);
    for (const v of later) {
      const rec = await waitFor(() => app.records!.atPath('docs', v.files[0].name), 30_000, `${v.files[0].name} indexed`);
      expect(rec.access, v.shape).toBe(v.group);
    }
    await waitFor(async () => later.every((v) => app.catalog.lexicalSearch([v.group], v.marker, 3).length > 0), 15_000, 'catalog current');
    for (const v of later) expect(app.catalog.lexicalSearch(['public'], v.marker, 3), v.shape).toEqual([]);
    for (const g of GROUPS) expect(app.catalog.stats().byGroup[g]?.documents ?? 0).toBeGreaterThan(0);
  });

  it('a document whose metadata breaks after it was indexed is taken out of the index, not left in its old group', async () => {
    // Each break as people make it, on a note first indexed public. The edit that broke the
    // metadata may be the one restricting the note: its old public version must not stay.
    const breaks: { shape: string; files: Record<string, string> }[] = [
      { shape: 'sidecar with invalid YAML', files: { 'note.yaml': 'access: pi-only\ntitle: [unclosed\n' } },
      { shape: 'sidecar access a list', files: { 'note.yaml': 'access: [pi-only, grants]\n' } },
      { shape: 'sidecar access not a group name', files: { 'note.json': '{"access": "PI only!"}' } },
      { shape: 'sidecar and front matter disagree', files: { 'note.yml': '---\naccess: pi-only\n' } },
      // A broken library is refused only when it may carry an access field (one that cannot is read as far as it goes).
      {
        shape: 'BibTeX library with an access field, cut off',
        files: { 'library.bib': '@misc{note,\n  file = {note.md},\n  access = {pi-only},\n  title = {Freezer\n' },
      },
      { shape: 'CSL library that is not JSON', files: { 'library.json': '[{"id": "note", "access": "pi-only",' } },
    ];
    const app = await openTestApp();
    closers.push(() => app.close());
    for (const [i, b] of breaks.entries()) {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-access-break-'));
      const marker = `BROKENMETA${i}X`;
      writeFileSync(path.join(dir, 'note.md'), `---\naccess: public\n---\n# Freezer inventory\n\nThe ${marker} box is on shelf 3.\n`);
      const source = `break-${i}`;
      expect((await app.ingest({ sourceId: source, root: dir })).documents.indexed, b.shape).toBe(1);
      expect(app.catalog.lexicalSearch(['public'], marker, 3).length, b.shape).toBe(1);

      for (const [name, text] of Object.entries(b.files)) writeFileSync(path.join(dir, name), text);
      const s = await app.ingest({ sourceId: source, root: dir });
      expect(s.failed.map((f) => f.reason).join(' '), b.shape).toMatch(/the version indexed before was removed/);
      expect(s.documents.removed, b.shape).toBe(1);
      expect(app.catalog.lexicalSearch(['public'], marker, 3), b.shape).toEqual([]);
      expect(
        [...app.catalog.docs()].some((d) => d.source === source),
        b.shape,
      ).toBe(false);
      const asked = await app.ask(`Which shelf holds the ${marker} box?`);
      expect(
        asked.passages.filter((p) => p.doc_id.startsWith(`${source}:`)),
        b.shape,
      ).toEqual([]);
      // Failing again does not count a second removal; fixing the metadata brings the note back.
      expect((await app.ingest({ sourceId: source, root: dir })).documents.removed, b.shape).toBe(0);
      for (const name of Object.keys(b.files)) rmSync(path.join(dir, name));
      expect((await app.ingest({ sourceId: source, root: dir })).documents.indexed, b.shape).toBe(1);
      expect(app.catalog.lexicalSearch(['public'], marker, 3).length, b.shape).toBe(1);
    }
  });
});
