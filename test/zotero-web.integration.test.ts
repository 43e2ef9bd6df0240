// A Zotero group library over the Web API, as a lab connects one: `labbot serve` mirrors it,
// indexes it through the queue, and keeps it in step with edits, trash and deletions. The Zotero
// API is a strict fake on 127.0.0.1 (test/helpers/fake-zotero.ts); Redis, BullMQ and Chroma are real.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IndexedDoc } from '../src/types.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { requestSync } from '../src/queue/jobs.ts';
import { followSync } from '../src/queue/progress.ts';
import type { SyncResult } from '../src/queue/sync-source.ts';
import { startServe, type Running } from '../src/serve.ts';
import type { DocRecord } from '../src/store/records.ts';
import { testEnv } from './helpers/app.ts';
import { articleItem, pdfAttachment, startFakeZotero, type FakeZotero } from './helpers/fake-zotero.ts';
import { makeCorruptPdf, makePaperPdf } from './fixtures/make.ts';
import { waitFor } from './helpers/wait.ts';

const TOKEN = 'zotero-admin-token-0123456789';
const KEY = 'fake-zotero-key-0123456789';

describe('a Zotero library over the Web API', () => {
  let zotero: FakeZotero;
  let restricted: FakeZotero;
  let running: Running;
  let dataDir: string;

  const found = (word: string, groups = ['public']) => running.app.catalog.lexicalSearch(groups, word, 5).length > 0;
  const doc = (source: string, rel: string) => running.app.catalog.docAtPath(source, rel);
  const sync = async (source = 'papers', full = false) => {
    const ticket = await requestSync(running.queue!.queue, { source, reason: 'test', full });
    const id = ticket.jobId;
    const outcome = await followSync(running.queue!.queue, ticket, source, undefined, { pollMs: 100, timeoutMs: 60_000 });
    expect(outcome.error).toBeUndefined();
    expect(outcome.failed.filter((f) => !/DDDDDDDD/.test(f.reason))).toEqual([]);
    const job = await running.queue!.queue.getJob(id);
    return { outcome, result: job?.returnvalue as SyncResult };
  };
  const fileCalls = (key: string, z = zotero) => z.requests.filter((r) => r.path.endsWith(`/items/${key}/file`));

  beforeAll(async () => {
    zotero = await startFakeZotero({ library: 'groups/4711', apiKey: KEY });
    zotero.putCollection('FINSC2LL', 'Fin regeneration');
    // AAAA: the PDF's own info dictionary names other authors and a 2026 creation date; Zotero's record is the truth.
    zotero.put([
      articleItem('AAAAAAAA', {
        title: 'Loss of kcnk5b lengthens zebrafish fins',
        authors: [
          ['Priya', 'Sharma'],
          ['Tom', 'Becker'],
        ],
        date: 'March 15, 2022',
        doi: '10.5555/fins.2022.7',
        journal: 'Developmental Biology',
        tags: ['zebrafish', 'potassium channel'],
        collections: ['FINSC2LL'],
      }),
      pdfAttachment('AAAAPDF2', 'AAAAAAAA'),
      articleItem('BBBBBBBB', {
        title: 'Notch signalling in the regenerating blastema',
        authors: [['Ana', 'Lopez']],
        date: '2019',
        journal: 'Development',
      }),
      pdfAttachment('BBBBPDF2', 'BBBBBBBB'),
      articleItem('CCCCCCCC', {
        title: 'Osteoblast dedifferentiation during fin repair',
        authors: [['Kenji', 'Mori']],
        date: '2015-06-01',
        abstract: 'Osteoblasts dedifferentiate after amputation; marker OSTEOMARKER7 rises within a day.',
      }),
      articleItem('DDDDDDDD', { title: 'A damaged file', authors: [['Eve', 'Damage']], date: '2020' }),
      pdfAttachment('DDDDPDF2', 'DDDDDDDD'),
      articleItem('EEEEEEEE', {
        title: 'Trashed from the start',
        authors: [['Tess', 'Trash']],
        date: '2021',
        abstract: 'TRASHEDWORD should never be indexed.',
      }),
      pdfAttachment('FFFFFFFF', undefined, { title: 'scan-2023.pdf' }),
    ]);
    zotero.trash('EEEEEEEE');
    zotero.setFile(
      'AAAAPDF2',
      await makePaperPdf({
        title: 'Loss of kcnk5b lengthens zebrafish fins',
        authors: ['Wrong Person'],
        infoAuthor: 'Wrong Person',
        creationDate: new Date(Date.UTC(2026, 0, 2)),
        doi: '10.5555/fins.2022.7',
        journalHeader: 'Developmental Biology 481 (2022) 1-9',
        sections: [
          {
            heading: 'Results',
            paragraphs: [
              'We found that loss of kcnk5b increased adult fin length by forty percent (FINLENGTH40) compared with wild-type siblings.',
            ],
          },
        ],
      }),
    );
    // BBBB's file is not stored on zotero.org: its text comes from Zotero's full-text index.
    zotero.setFulltext('BBBBPDF2', 'Blastema cells require Notch; NOTCHWORD inhibition stops regrowth.');
    zotero.setFile('DDDDPDF2', makeCorruptPdf());
    zotero.setFile(
      'FFFFFFFF',
      await makePaperPdf({
        title: 'Scanned protocol notes',
        authors: ['Lab Member'],
        sections: [{ heading: 'Notes', paragraphs: ['The standalone scan mentions STANDALONESCAN once.'] }],
      }),
    );

    restricted = await startFakeZotero({ library: 'groups/999', apiKey: KEY });
    restricted.put([
      articleItem('GGGGGGGG', { title: 'Unpublished grant aims', authors: [['Pat', 'Investigator']], date: '2024' }),
      pdfAttachment('GGGGPDF2', 'GGGGGGGG'),
    ]);
    // Zotero's text of a file may look like front matter that claims a group: it must not win.
    restricted.setFulltext('GGGGPDF2', '---\naccess: public\n---\nThe grant aims mention GRANTAIMS.');

    const env = testEnv({
      env: { LABBOT_PORT: '0', LABBOT_ADMIN_TOKEN: TOKEN, ZOTERO_API_URL: zotero.url, LAB_ZOTERO_KEY: KEY },
      fileConfig: {
        access: { default: 'public', channels: { CPI: ['pi-only'] } },
        sources: [
          { id: 'papers', type: 'zotero', library: 'groups/4711', apiKeyEnv: 'LAB_ZOTERO_KEY', poll: '15m' },
          { id: 'grants', type: 'zotero', library: 'groups/999', apiKeyEnv: 'LAB_ZOTERO_KEY', access: 'pi-only' },
        ],
      },
    });
    // Both libraries behind one API URL: the restricted fake answers its own library's paths.
    const config = loadConfig(env);
    config.sources = config.sources.map((s) =>
      s.id === 'grants' && s.zotero?.via === 'web' ? { ...s, zotero: { ...s.zotero, apiUrl: restricted.url } } : s,
    );
    dataDir = config.dataDir;
    running = await startServe(config, createLogger('silent'));
  }, 120_000);

  afterAll(async () => {
    await running?.close();
    await zotero?.close();
    await restricted?.close();
  });

  it("indexes each item once, with the metadata Zotero holds, never the PDF's own", async () => {
    const a = doc('papers', 'AAAAAAAA.pdf');
    expect(a).toMatchObject({
      title: 'Loss of kcnk5b lengthens zebrafish fins',
      authors: ['Priya Sharma', 'Tom Becker'],
      year: 2022,
      journal: 'Developmental Biology',
      doi: '10.5555/fins.2022.7',
    });
    expect(a?.metaFrom).toMatchObject({ authors: 'Zotero', year: 'Zotero', title: 'Zotero', journal: 'Zotero' });
    expect(a?.keywords).toEqual(expect.arrayContaining(['zebrafish', 'potassium channel', 'Fin regeneration']));
    const answer = await running.app.ask('What did Sharma et al. 2022 find about fin length?');
    expect(answer.refused).toBe(false);
    expect(answer.citations[0]).toMatchObject({ authors: ['Priya Sharma', 'Tom Becker'], year: 2022 });
    expect(answer.citations[0].label).toMatch(/Sharma .*2022/);
    // Fulltext when the file is not stored; title and abstract when there is no attachment.
    expect(doc('papers', 'BBBBBBBB.txt')).toMatchObject({ authors: ['Ana Lopez'], year: 2019 });
    expect(found('NOTCHWORD')).toBe(true);
    expect(doc('papers', 'CCCCCCCC.txt')).toMatchObject({ year: 2015 });
    expect(found('OSTEOMARKER7')).toBe(true);
    // A standalone PDF: Zotero has no record of it, so the file's own metadata names it.
    expect(doc('papers', 'FFFFFFFF.pdf')?.title).toBe('Scanned protocol notes');
    expect(found('TRASHEDWORD')).toBe(false);
  });

  it('a corrupt PDF in Zotero becomes a problem row on the dashboard, and the rest is indexed', async () => {
    const problems = await running.app.records!.problems('papers');
    expect(problems.find((p) => p.path === 'DDDDDDDD.pdf')).toMatchObject({ status: 'failed' });
    const page = await (await fetch(`${running.url}/admin`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    expect(page).toContain('DDDDDDDD.pdf');
    expect(page).toContain('groups/4711');
    expect(page).not.toContain(KEY);
  });

  it("the source's access holds: a restricted library is only in its group, whatever its text claims", async () => {
    expect(found('GRANTAIMS')).toBe(false);
    expect(found('GRANTAIMS', ['pi-only'])).toBe(true);
    expect(doc('grants', 'GGGGGGGG.txt')?.access).toBe('pi-only');
  });

  it('files go to the storage host without the API key; no more than 4 requests are in flight', () => {
    expect(zotero.keyLeaks).toEqual([]);
    expect(fileCalls('AAAAPDF2').length).toBe(1);
    expect(zotero.maxInFlight).toBeLessThanOrEqual(4);
  });

  it('an incremental sync fetches only what changed: an edit, a new paper, a trashed and a deleted item', async () => {
    zotero.resetLog();
    zotero.edit('AAAAAAAA', { title: 'Loss of kcnk5b lengthens zebrafish fins (corrected)' });
    zotero.put([
      articleItem('HHHHHHHH', { title: 'Wnt drives fin outgrowth', authors: [['Li', 'Chen']], date: '2023' }),
      pdfAttachment('HHHHPDF2', 'HHHHHHHH'),
    ]);
    zotero.setFile(
      'HHHHPDF2',
      await makePaperPdf({
        title: 'Wnt drives fin outgrowth',
        authors: ['Li Chen'],
        sections: [{ heading: 'Results', paragraphs: ['Wnt activity WNTWORD marks the outgrowth front.'] }],
      }),
    );
    zotero.trash('BBBBBBBB');
    zotero.remove(['CCCCCCCC']);
    const { result } = await sync();
    expect(result.mode).toBe('diff');
    // A document job collapsed into one still running counts as settled for the sync's follower.
    await waitFor(async () => found('WNTWORD'), 30_000, 'the new paper indexed');
    expect(found('NOTCHWORD')).toBe(false);
    expect(found('OSTEOMARKER7')).toBe(false);
    expect(doc('papers', 'AAAAAAAA.pdf')?.title).toBe('Loss of kcnk5b lengthens zebrafish fins (corrected)');
    // The edited item's unchanged PDF is not downloaded again; the new one is, once.
    expect(fileCalls('AAAAPDF2')).toEqual([]);
    expect(fileCalls('HHHHPDF2')).toHaveLength(1);
    expect(zotero.requests.filter((r) => r.query.itemKey).every((r) => r.query.itemKey.split(',').length <= 50)).toBe(true);
    expect(zotero.requests.filter((r) => r.path.endsWith('/items') && !r.query.itemKey).every((r) => r.query.since)).toBe(true);
  });

  it('304: nothing changed means one request and no work', async () => {
    zotero.resetLog();
    const { result } = await sync();
    expect(zotero.requests).toHaveLength(1);
    expect(zotero.requests[0]).toMatchObject({ status: 304 });
    expect(result.jobIds).toEqual([]);
  });

  it('409 from the delete log means the whole library is listed again, and what is gone leaves', async () => {
    zotero.remove(['FFFFFFFF']);
    zotero.purgeDeleteLog();
    zotero.resetLog();
    expect(found('STANDALONESCAN')).toBe(true);
    await sync();
    expect(zotero.requests.some((r) => r.path.endsWith('/deleted') && r.status === 409)).toBe(true);
    expect(zotero.requests.some((r) => r.path.endsWith('/items') && r.query.format === 'versions' && !r.query.since)).toBe(true);
    expect(found('STANDALONESCAN')).toBe(false);
    expect(fileCalls('HHHHPDF2')).toEqual([]);
  });

  it('429 with Retry-After and Backoff are waited out, by every request', async () => {
    zotero.edit('HHHHHHHH', { title: 'Wnt drives fin outgrowth (v2)' });
    zotero.resetLog();
    zotero.rateLimit(1, 1);
    const t0 = Date.now();
    await sync();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
    expect(zotero.violations).toEqual([]);
    expect(doc('papers', 'HHHHHHHH.pdf')?.title).toBe('Wnt drives fin outgrowth (v2)');

    zotero.edit('HHHHHHHH', { title: 'Wnt drives fin outgrowth (v3)' });
    zotero.resetLog();
    zotero.backoff(1);
    await sync();
    expect(zotero.violations).toEqual([]);
    expect(doc('papers', 'HHHHHHHH.pdf')?.title).toBe('Wnt drives fin outgrowth (v3)');
  });

  it('a file the storage host fails to send is a problem row, the old text stays, and the next sync fetches it', async () => {
    zotero.setFile(
      'HHHHPDF2',
      await makePaperPdf({
        title: 'Wnt drives fin outgrowth',
        authors: ['Li Chen'],
        sections: [{ heading: 'Results', paragraphs: ['Wnt activity WNTWORD2 marks the outgrowth front.'] }],
      }),
    );
    zotero.failStorage('HHHHPDF2', 1);
    await sync();
    const problem = (await running.app.records!.problems('papers')).find((p) => p.path === 'HHHHHHHH.pdf');
    expect(problem?.reason).toMatch(/from Zotero item HHHHHHHH: download failed/);
    expect(found('WNTWORD')).toBe(true);
    await sync();
    expect(found('WNTWORD2')).toBe(true);
    expect((await running.app.records!.problems('papers')).find((p) => p.path === 'HHHHHHHH.pdf')).toBeUndefined();
  });

  it('a wiped mirror is rebuilt and compared in full, never trusted as deletions', async () => {
    const before = await Promise.all(['AAAAAAAA.pdf', 'HHHHHHHH.pdf'].map((p) => running.app.records!.atPath('papers', p)));
    rmSync(`${dataDir}/zotero/papers`, { recursive: true, force: true });
    zotero.resetLog();
    const { result } = await sync();
    expect(result.mode).toBe('listing');
    expect(found('WNTWORD2')).toBe(true);
    expect(found('FINLENGTH40')).toBe(true);
    // Downloaded again into the new mirror, but the same bytes: nothing is indexed again.
    const after = await Promise.all(['AAAAAAAA.pdf', 'HHHHHHHH.pdf'].map((p) => running.app.records!.atPath('papers', p)));
    const at = (rs: (IndexedDoc | undefined)[]) => rs.map((r) => (r as DocRecord | undefined)?.indexedAt);
    expect(at(after)).toEqual(at(before));
    expect(result.unchanged).toBeGreaterThanOrEqual(2);
  });

  it("the sync's progress is on the dashboard's queue board", async () => {
    const board = (await (
      await fetch(`${running.url}/admin/queues/api/queues?activeQueue=labbot-index&status=completed&page=1`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      })
    ).json()) as {
      queues: { jobs: { name: string; progress: unknown }[] }[];
    };
    const jobs = board.queues.flatMap((q) => q.jobs).filter((j) => j.name === 'sync-source');
    expect(jobs.length).toBeGreaterThan(0);
    expect(jobs.map((j) => j.progress)).toContainEqual(expect.objectContaining({ source: 'papers', zotero: 'documents' }));
  });

  it('a sync requested while another runs is followed to the sync that covers it, not reported with the running one', async () => {
    const queue = running.queue!.queue;
    zotero.delayMs = 400; // the running sync waits on Zotero while the second request arrives
    const first = await requestSync(queue, { source: 'papers', reason: 'test' });
    await waitFor(async () => (await queue.getJob(first.jobId))?.isActive(), 20_000, 'first sync running');
    zotero.put([
      articleItem('KKKKKKKK', {
        title: 'Late arrival in the library',
        authors: [['Lena', 'Late']],
        date: '2024',
        abstract: 'The late item names LATEARRIVAL9.',
      }),
    ]);
    const requestedAt = Date.now();
    const second = await requestSync(queue, { source: 'papers', reason: 'test' });
    // BullMQ collapses it into the running job and hands back that job's id.
    expect(second.jobId).toBe(first.jobId);
    zotero.delayMs = 0;
    const outcome = await followSync(queue, second, 'papers', undefined, { pollMs: 50, timeoutMs: 60_000 });
    expect(outcome.error).toBeUndefined();
    // The outcome is that of a sync that started after the request (it read the request).
    const covering = (await queue.getJob(outcome.job!))!;
    expect(covering.id).not.toBe(first.jobId);
    expect(covering.processedOn).toBeGreaterThanOrEqual(requestedAt);
    expect(outcome.commit).toBe((covering.returnvalue as SyncResult).commit);
    // The first request's outcome is the first job's.
    expect((await followSync(queue, first, 'papers', undefined, { pollMs: 50, timeoutMs: 60_000 })).job).toBe(first.jobId);
    await waitFor(async () => found('LATEARRIVAL9'), 20_000, 'late item indexed');
  });
});
