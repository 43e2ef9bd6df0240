// A local Zotero library ({"type": "zotero", "path": "<Zotero data folder>"}): zotero.sqlite in
// Zotero's own layout, held open in WAL mode as a running Zotero 10 holds it (its latest changes
// only in zotero.sqlite-wal), and files under storage/<key>/. Real Redis, BullMQ and Chroma.
import { mkdtempSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { requestSync } from '../src/queue/jobs.ts';
import { followSync } from '../src/queue/progress.ts';
import { startServe, type Running } from '../src/serve.ts';
import { testEnv } from './helpers/app.ts';
import { makeZoteroDataDir, type ZoteroDb } from './helpers/zotero-sqlite.ts';
import { makePaperPdf } from './fixtures/make.ts';

describe('a local Zotero library (zotero.sqlite and storage/)', () => {
  let z10: ZoteroDb;
  let z6: ZoteroDb;
  let running: Running;
  const found = (word: string, groups = ['public']) => running.app.catalog.lexicalSearch(groups, word, 5).length > 0;
  const doc = (source: string, rel: string) => running.app.catalog.docAtPath(source, rel);
  const sync = async (source: string) => {
    const ticket = await requestSync(running.queue!.queue, { source, reason: 'test' });
    return followSync(running.queue!.queue, ticket, source, undefined, { pollMs: 100, timeoutMs: 60_000 });
  };

  beforeAll(async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'labbot-zotero-local-'));
    const pdf = await makePaperPdf({
      title: 'Cilia length control in kidney epithelia',
      authors: ['Somebody Else'],
      infoAuthor: 'Somebody Else',
      creationDate: new Date(Date.UTC(2026, 5, 1)),
      sections: [{ heading: 'Results', paragraphs: ['Cilia grew to CILIALEN9 micrometres in mutant kidney epithelia.'] }],
    });
    z10 = makeZoteroDataDir(
      path.join(root, 'Zotero'),
      'zotero10',
      [
        {
          key: 'KKKKKKKK',
          itemType: 'journalArticle',
          fields: {
            title: 'Cilia length control in kidney epithelia',
            date: '2021-07-02 July 2, 2021',
            DOI: '10.5555/cilia.21',
            publicationTitle: 'Kidney Cell Biology',
          },
          creators: [
            ['Ines', 'Okafor'],
            ['Raj', 'Menon'],
          ],
          tags: ['cilia'],
          collections: ['KIDNEYC2'],
        },
        {
          key: 'KKKKATT2',
          itemType: 'attachment',
          attachment: { parent: 'KKKKKKKK', linkMode: 0, contentType: 'application/pdf', path: 'storage:Okafor - 2021 - Cilia.pdf' },
        },
        {
          key: 'LLLLLLLL',
          itemType: 'journalArticle',
          fields: { title: 'Linked scan of a renal protocol', date: '2018-00-00 Spring 2018' },
          creators: [['Ada', 'Linked']],
        },
        // A linked file points outside the Zotero folder: not read, only Zotero's text of it.
        {
          key: 'LLLLATT2',
          itemType: 'attachment',
          attachment: { parent: 'LLLLLLLL', linkMode: 2, contentType: 'application/pdf', path: '/etc/passwd' },
        },
        {
          key: 'MMMMMMMM',
          itemType: 'journalArticle',
          fields: { title: 'Metadata only', date: '2020', abstractNote: 'An abstract that mentions ABSTRACTONLY.' },
          creators: [['Mo', 'Meta']],
        },
        {
          key: 'TTTTTTTT',
          itemType: 'journalArticle',
          fields: { title: 'In the trash', abstractNote: 'TRASHEDLOCAL text.' },
          creators: [['T', 'Trash']],
          trashed: true,
        },
      ],
      {
        collections: [{ key: 'KIDNEYC2', name: 'Kidney' }],
        files: {
          'storage/KKKKATT2/Okafor - 2021 - Cilia.pdf': pdf,
          'storage/LLLLATT2/.zotero-ft-cache': 'Renal protocol text from Zotero: RENALFT step one.',
        },
      },
    );
    z6 = makeZoteroDataDir(path.join(root, 'Zotero6'), 'zotero6', [
      {
        key: 'SSSSSSSS',
        itemType: 'book',
        fields: { title: 'An older Zotero', abstractNote: 'Zotero six says ZOTEROSIX.', date: '2012' },
        creators: [['Old', 'Timer']],
      },
    ]);
    makeZoteroDataDir(path.join(root, 'Zotero4'), 'zotero4', [{ key: 'QQQQQQQQ', itemType: 'book' }]).close();
    // Like a running Zotero 10: everything written so far is still only in the WAL.
    expect(statSync(path.join(root, 'Zotero', 'zotero.sqlite-wal')).size).toBeGreaterThan(10_000);
    const env = testEnv({
      env: { LABBOT_PORT: '0' },
      fileConfig: {
        sources: [
          { id: 'mine', type: 'zotero', path: path.join(root, 'Zotero') },
          { id: 'six', type: 'zotero', path: path.join(root, 'Zotero6'), access: 'pi-only' },
          { id: 'four', type: 'zotero', path: path.join(root, 'Zotero4') },
        ],
      },
    });
    running = await startServe(loadConfig(env), createLogger('silent'));
  }, 120_000);

  afterAll(async () => {
    await running?.close();
    z10?.close();
    z6?.close();
  });

  it("reads a running Zotero 10's database, WAL included, with Zotero's metadata", () => {
    expect(doc('mine', 'KKKKKKKK.pdf')).toMatchObject({
      authors: ['Ines Okafor', 'Raj Menon'],
      year: 2021,
      journal: 'Kidney Cell Biology',
      doi: '10.5555/cilia.21',
    });
    expect(doc('mine', 'KKKKKKKK.pdf')?.metaFrom).toMatchObject({ authors: 'Zotero', year: 'Zotero' });
    expect(doc('mine', 'KKKKKKKK.pdf')?.keywords).toEqual(expect.arrayContaining(['cilia', 'Kidney']));
    expect(found('CILIALEN9')).toBe(true);
    expect(doc('mine', 'LLLLLLLL.txt')).toMatchObject({ year: 2018 });
    expect(found('RENALFT')).toBe(true);
    expect(found('root:x:0')).toBe(false);
    expect(found('ABSTRACTONLY')).toBe(true);
    expect(found('TRASHEDLOCAL')).toBe(false);
  });

  it('picks up edits, trash and deletions made in Zotero at the next sync', async () => {
    z10.setField('MMMMMMMM', 'abstractNote', 'The abstract now mentions REVISEDABSTRACT.');
    z10.trash('LLLLLLLL');
    z10.erase('KKKKATT2');
    const outcome = await sync('mine');
    expect(outcome.error).toBeUndefined();
    expect(found('REVISEDABSTRACT')).toBe(true);
    expect(found('ABSTRACTONLY')).toBe(false);
    expect(found('RENALFT')).toBe(false);
    // Its PDF is gone from Zotero: the item is now its title (no abstract), the PDF's text leaves.
    expect(found('CILIALEN9')).toBe(false);
    expect(doc('mine', 'KKKKKKKK.txt')?.authors).toEqual(['Ines Okafor', 'Raj Menon']);
    const again = await sync('mine');
    expect(again).toMatchObject({ total: 0 });
  });

  it('reads Zotero 6 databases; refuses Zotero 4 with what to do', async () => {
    expect(found('ZOTEROSIX', ['pi-only'])).toBe(true);
    expect(found('ZOTEROSIX')).toBe(false);
    const outcome = await sync('four');
    expect(outcome.error).toMatch(/Zotero 4 or older; open it once in Zotero 5 or newer/);
    expect((await running.app.records!.sourceState('four')).lastError).toMatch(/Zotero 4 or older/);
  });
});
