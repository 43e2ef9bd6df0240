// Enrichment where `labbot serve` runs it: the first index at start, queue jobs from webhooks and
// syncs (real BullMQ worker, Redis, Chroma), Crossref failing mid-way, and the answer over
// POST /api/ask; then a Slack mention through the real Bolt app against the strict fake Slack.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { enqueueSync } from '../src/queue/jobs.ts';
import { startServe, type Running } from '../src/serve.ts';
import { makePaperPdf, type PaperSection } from './fixtures/make.ts';
import { testEnv } from './helpers/app.ts';
import { startFakeCrossref, type FakeCrossref } from './helpers/fake-crossref.ts';
import { genericChange } from './helpers/git-wiki.ts';
import { SIGNING_SECRET } from './helpers/slack-bot.ts';
import { startSlackHarness, type SlackHarness } from './helpers/slack-harness.ts';
import { eventRequest, mentionEnvelope, post } from './helpers/slack-request.ts';
import { waitFor } from './helpers/wait.ts';

const SECRET = 'papers-secret-01';
const ADMIN_TOKEN = 'admin-token-0123456789';
const MAILTO = 'lab@example.org';

const FIN: PaperSection[] = [
  {
    heading: 'Abstract',
    paragraphs: [
      'Loss of the potassium channel kcnk5b lengthens the fins of adult zebrafish by prolonging the outgrowth phase of fin regeneration.',
    ],
  },
  {
    heading: '3. Results',
    paragraphs: [
      'Homozygous kcnk5b mutant fish had caudal fins 42 percent longer than their wild-type siblings at six months of age, with more ray segments per ray.',
    ],
  },
];
const HYPOXIA_TITLE = 'Hypoxia Remodels Mitochondrial Fission Dynamics in Cultured HeLa Cells';
const FIN_TITLE = 'Loss of kcnk5b Lengthens the Fins of Adult Zebrafish';
const bare = (doi: string, title = HYPOXIA_TITLE, sections?: PaperSection[]) =>
  makePaperPdf({
    doi,
    title,
    sections,
    infoTitle: null,
    infoAuthor: '',
    authors: ['A. Sharma'],
    creationDate: new Date(Date.UTC(2026, 0, 5)),
  });
const RETRACTED = {
  doi: '10.5555/fin.retraction',
  type: 'retraction',
  source: 'retraction-watch',
  date: [2024, 3, 12] as [number, number, number],
};

describe('enrichment in labbot serve and its queue worker', () => {
  let crossref: FakeCrossref;
  let running: Running;
  let dir: string;
  const hook = (changed: string[]) => {
    const req = genericChange(SECRET, { changed }, `d-${changed.join(',')}-${Date.now()}`);
    return fetch(`${running.url}/hooks/wiki/papers`, { method: 'POST', headers: req.headers, body: req.body });
  };
  const doc = (rel: string) => running.app.catalog.docAtPath('papers', rel);
  const idle = () =>
    waitFor(
      async () => {
        const c = await running.queue!.queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
        return c.waiting + c.active + c.delayed + c.prioritized === 0;
      },
      30_000,
      'queue idle',
    );

  beforeAll(async () => {
    crossref = await startFakeCrossref();
    crossref.addWork({ doi: '10.5555/hypoxia.1', title: HYPOXIA_TITLE, authors: [{ given: 'Anjali', family: 'Sharma' }], year: 2022 });
    crossref.addWork({
      doi: '10.5555/fin.1',
      title: FIN_TITLE,
      authors: [
        { given: 'Bola', family: 'Okafor' },
        { given: 'Li', family: 'Wei' },
      ],
      year: 2021,
      updatedBy: [RETRACTED],
    });
    crossref.addWork({ doi: '10.5555/later.1', title: HYPOXIA_TITLE, authors: [{ given: 'Chen', family: 'Li' }], year: 2020 });
    dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-crossref-serve-'));
    writeFileSync(path.join(dir, 'hypoxia.pdf'), await bare('10.5555/hypoxia.1'));
    const env = testEnv({
      env: { CROSSREF_API_URL: crossref.url, EMBEDDINGS: 'hash', LLM: 'none', LABBOT_PORT: '0', LABBOT_ADMIN_TOKEN: ADMIN_TOKEN },
      fileConfig: {
        sources: [{ id: 'papers', type: 'folder', path: dir, secret: SECRET }],
        access: { default: 'public' },
        enrich: { crossref: true, mailto: MAILTO },
      },
    });
    running = await startServe(loadConfig(env), createLogger('silent'));
  }, 120_000);
  afterAll(async () => {
    await running?.close();
    await crossref?.close();
  });

  it('enriches the first index at start', () => {
    expect(doc('hypoxia.pdf')).toMatchObject({ authors: ['Sharma, Anjali'], year: 2022 });
  });

  it('a paper added later is enriched by the worker, and POST /api/ask flags it as retracted', async () => {
    writeFileSync(path.join(dir, 'fin.pdf'), await bare('10.5555/fin.1', FIN_TITLE, FIN));
    expect((await hook(['fin.pdf'])).status).toBe(202);
    await waitFor(async () => doc('fin.pdf'), 30_000, 'fin.pdf indexed by the worker');
    expect(doc('fin.pdf')).toMatchObject({ authors: ['Okafor, Bola', 'Wei, Li'], year: 2021 });
    const res = await fetch(`${running.url}/api/ask`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'How much longer were the caudal fins of kcnk5b mutant fish?' }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      answer: string;
      refused: boolean;
      citations: { doc_id: string; notice: { kind: string; date: string } | null }[];
    };
    expect(body.refused).toBe(false);
    expect(body.citations[0]).toMatchObject({ doc_id: 'papers:fin.pdf', notice: { kind: 'retraction', date: '2024-03-12' } });
    expect(body.answer).toContain('⚠️ [Okafor & Wei, 2021] has been retracted (2024)');
    // The dashboard's ask box shows the answer text and counts the flagged citations.
    const admin = await fetch(`${running.url}/admin/api/ask`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'How much longer were the caudal fins of kcnk5b mutant fish?', channel: 'public' }),
    });
    expect(admin.status).toBe(200);
    const shown = (await admin.json()) as typeof body;
    expect(shown.answer).toContain('has been retracted (2024)');
    expect(shown.citations.filter((c) => c.notice?.kind === 'retraction')).toHaveLength(1);
  });

  it('a job while Crossref fails indexes the paper anyway; syncs leave it until Crossref may answer, then enrich it', async () => {
    crossref.failures.push(503, 503, 503);
    writeFileSync(path.join(dir, 'later.pdf'), await bare('10.5555/later.1'));
    await hook(['later.pdf']);
    await waitFor(async () => doc('later.pdf'), 30_000, 'later.pdf indexed');
    // Indexed with what its page 1 prints; Crossref's record is not there yet.
    expect(doc('later.pdf')).toMatchObject({ authors: ['A. Sharma'], metaFrom: { authors: 'text' } });
    expect(await running.app.records!.problems('papers')).toEqual([]);
    await idle();
    const failed = await running.queue!.queue.getJobCounts('failed');
    expect(failed.failed).toBe(0);
    // Crossref counts as down: a full sync finds nothing to do.
    const asked = crossref.requests.length;
    await enqueueSync(running.queue!.queue, { source: 'papers', reason: 'test' });
    await new Promise((r) => setTimeout(r, 500));
    await idle();
    expect(crossref.requests.length).toBe(asked);
    expect(doc('later.pdf')!.metaFrom?.authors).toBe('text');
    // The back-off runs out: the next sync reads it again and Crossref's record joins it.
    await running.app.enricher!.store.markUp();
    await enqueueSync(running.queue!.queue, { source: 'papers', reason: 'test' });
    await waitFor(async () => doc('later.pdf')?.metaFrom?.authors === 'Crossref', 30_000, 'later.pdf enriched');
    expect(doc('later.pdf')).toMatchObject({ authors: ['Li, Chen'], year: 2020 });
  });
});

describe('a retracted paper cited in Slack', () => {
  let crossref: FakeCrossref;
  let harness: SlackHarness;
  beforeAll(async () => {
    crossref = await startFakeCrossref();
    crossref.addWork({
      doi: '10.5555/fin.1',
      title: FIN_TITLE,
      authors: [
        { given: 'Bola', family: 'Okafor' },
        { given: 'Li', family: 'Wei' },
      ],
      year: 2021,
      updatedBy: [RETRACTED],
    });
    const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-crossref-slack-'));
    writeFileSync(path.join(dir, 'fin.pdf'), await bare('10.5555/fin.1', FIN_TITLE, FIN));
    harness = await startSlackHarness({
      fileConfig: {
        sources: [{ id: 'papers', type: 'folder', path: dir }],
        access: { default: 'public' },
        enrich: { crossref: true, mailto: MAILTO },
      },
      env: { CROSSREF_API_URL: crossref.url },
    });
  });
  afterAll(async () => {
    await harness?.close();
    await crossref?.close();
  });

  it('the posted answer says the paper was retracted and its Sources entry is flagged', async () => {
    const { bot, fake } = harness;
    await post(
      bot.url,
      eventRequest(
        SIGNING_SECRET,
        mentionEnvelope({ text: 'How much longer were the caudal fins of kcnk5b mutant fish?', channel: 'CFIN' }),
      ),
    );
    const final = await fake.waitFor(() => {
      const c = fake.calls.filter((x) => x.body.channel === 'CFIN' && (x.method === 'chat.update' || x.method === 'chat.postMessage'));
      const last = c.at(-1);
      return last && JSON.stringify(last.body.blocks ?? []).includes('labbot_feedback') ? last : undefined;
    }, 30_000);
    expect(fake.rejected.filter((r) => r.body.channel === 'CFIN')).toEqual([]);
    const text = JSON.stringify(final.body.blocks);
    expect(text).toContain('has been retracted (2024): its findings should not be relied on.');
    expect(text).toContain('*⚠️ Retracted 2024*');
  });
});
