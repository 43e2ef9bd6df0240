// DOI enrichment and retraction notices through the real app (real Chroma and Redis, the strict
// fake Crossref on 127.0.0.1): PDFs as labs keep them (a DOI on page 1 and nothing else), the
// lab's own metadata, Crossref down, the cache, and retracted papers in every kind of answer.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { toAskJson } from '../src/answer/ask-json.ts';
import type { Labbot } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { recheckNotices } from '../src/enrich/recheck.ts';
import { answerMessages } from '../src/slack/format.ts';
import { makePaperPdf } from './fixtures/make.ts';
import { openAppOwnRedis, testEnv } from './helpers/app.ts';
import { deadCrossrefUrl, startFakeCrossref, type FakeCrossref } from './helpers/fake-crossref.ts';
import { chatEnv, startFakeOpenAI, type FakeOpenAI } from './helpers/fake-openai.ts';
import { captureLog } from './helpers/log-capture.ts';

const TITLE = 'Hypoxia Remodels Mitochondrial Fission Dynamics in Cultured HeLa Cells';
const DOI = '10.5555/jlm.2022.0042';
const QUESTION = 'How many fission events per cell per minute did HeLa cells show under normoxia?';
const MAILTO = 'lab@example.org';

/** A PDF as a lab downloads it: title, names and DOI printed on page 1, an info dictionary with none of them and a 2026 CreationDate. */
const barePdf = (doi = DOI) =>
  makePaperPdf({ doi, infoTitle: null, infoAuthor: '', authors: ['A. Sharma', 'B. Okafor'], creationDate: new Date(Date.UTC(2026, 0, 5)) });

function folder(files: Record<string, Uint8Array | string>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-crossref-'));
  for (const [name, data] of Object.entries(files)) writeFileSync(path.join(dir, name), data);
  return dir;
}

const SHARMA = {
  doi: DOI,
  title: TITLE,
  authors: [
    { given: 'Anjali', family: 'Sharma' },
    { given: 'Bola', family: 'Okafor' },
    { given: 'Li', family: 'Wei' },
  ],
  year: 2022,
  month: 5,
  journal: 'Journal of Laboratory Methods',
};
const RETRACTION = {
  doi: '10.5555/jlm.2024.retraction',
  type: 'retraction',
  source: 'retraction-watch',
  date: [2024, 3, 12] as [number, number, number],
};

describe('DOI enrichment from Crossref', () => {
  let crossref: FakeCrossref;
  const opened: (() => Promise<void>)[] = [];
  const open = async (
    dir: string,
    opts: { enrich?: boolean; url?: string; env?: Record<string, string>; log?: ReturnType<typeof captureLog>; collection?: string } = {},
  ) => {
    const env = testEnv({
      collection: opts.collection,
      env: { CROSSREF_API_URL: opts.url ?? crossref.url, EMBEDDINGS: 'hash', ...opts.env },
      fileConfig: {
        sources: [{ id: 'papers', type: 'folder', path: dir }],
        access: { default: 'public', channels: { CPI: ['pi-only'] } },
        ...(opts.enrich === false ? {} : { enrich: { crossref: true, mailto: MAILTO } }),
      },
    });
    const h = await openAppOwnRedis(env, { log: opts.log?.log });
    opened.push(h.close);
    return { app: h.app, env };
  };
  const ingest = async (app: Labbot) => {
    const s = await app.ingestSource(app.config.sources[0]);
    expect(s.failed).toEqual([]);
    return s;
  };
  const requestsFor = (doi: string) => crossref.requests.filter((r) => r.doi?.toLowerCase() === doi.toLowerCase()).length;

  beforeAll(async () => {
    crossref = await startFakeCrossref();
  });
  afterEach(async () => {
    while (opened.length) await opened.pop()!();
    crossref.works.clear();
    crossref.failures = [];
    crossref.requests.length = 0;
  });
  afterAll(() => crossref.close());

  it("cites a PDF that has only a DOI with Crossref's authors and year (not the 2026 CreationDate)", async () => {
    crossref.addWork(SHARMA);
    const { app } = await open(folder({ 'sharma.pdf': await barePdf() }));
    await ingest(app);
    const doc = [...app.catalog.docs()][0];
    expect(doc).toMatchObject({
      authors: ['Sharma, Anjali', 'Okafor, Bola', 'Wei, Li'],
      year: 2022,
      journal: 'Journal of Laboratory Methods',
      doi: DOI,
    });
    // Page 1's byline and year are guesses; Crossref's record of the DOI printed there replaces them.
    expect(doc.metaFrom).toMatchObject({ authors: 'Crossref', year: 'Crossref', journal: 'Crossref', doi: 'text' });
    const r = await app.ask(QUESTION);
    expect(r.refused).toBe(false);
    expect(r.citations[0].label).toMatch(/^\[Sharma et al\., 2022, /);
    expect(r.citations[0].notice).toBeNull();
    expect(r.answer).not.toContain('⚠️');
    const sent = crossref.requests.find((q) => q.doi === DOI)!;
    expect(sent).toMatchObject({ pool: 'polite', mailto: MAILTO });
  });

  it("never overwrites the lab's own metadata: a sidecar's authors and year stay, Crossref fills only the journal; access stays the lab's", async () => {
    crossref.addWork(SHARMA);
    const sidecar = `authors: [Adaeze Okafor]\nyear: 2019\naccess: pi-only\n`;
    const { app } = await open(folder({ 'okafor.pdf': await barePdf(), 'okafor.yaml': sidecar }));
    await ingest(app);
    const doc = [...app.catalog.docs()][0];
    expect(doc).toMatchObject({
      authors: ['Adaeze Okafor'],
      year: 2019,
      journal: 'Journal of Laboratory Methods',
      access: 'pi-only',
      title: TITLE,
    });
    expect(doc.metaFrom).toMatchObject({ authors: 'okafor.yaml', year: 'okafor.yaml', journal: 'Crossref' });
    expect((await app.ask(QUESTION)).refused).toBe(true); // pi-only: not readable from public
    expect((await app.ask(QUESTION, { channel: 'CPI' })).citations[0].label).toMatch(/^\[Okafor, 2019, /);
  });

  it('with the option off asks Crossref nothing, and the document is indexed from what its page 1 prints', async () => {
    crossref.addWork(SHARMA);
    const before = crossref.requests.length;
    const { app } = await open(folder({ 'sharma.pdf': await barePdf() }), { enrich: false });
    await ingest(app);
    expect(crossref.requests.length).toBe(before);
    expect(app.enricher).toBeUndefined();
    const doc = [...app.catalog.docs()][0];
    expect(doc).toMatchObject({ authors: ['A. Sharma', 'B. Okafor'], doi: DOI });
    expect(doc.metaFrom).toMatchObject({ authors: 'text', doi: 'text' });
    expect(doc.journal).toBeUndefined();
  });

  it('with Crossref unreachable indexes the document, logs the skip, and does not retry it on every run', async () => {
    const log = captureLog('warn');
    const { app } = await open(folder({ 'sharma.pdf': await barePdf() }), { url: await deadCrossrefUrl(), log });
    const s = await ingest(app);
    expect(s.documents.indexed).toBe(1);
    expect(s.outcomes[0].warnings?.join(' ')).toMatch(/Crossref unreachable.*tried again/);
    expect(log.find('Crossref unavailable').length).toBe(1);
    expect(log.find('enrichment skipped')[0]).toMatchObject({ reason: expect.stringMatching(/Crossref/) });
    expect((await app.ask(QUESTION)).refused).toBe(false);
    // While Crossref is known to be down, a re-ingest reads nothing again.
    const again = await ingest(app);
    expect(again.documents).toMatchObject({ indexed: 0, unchanged: 1 });
  });

  it('a document indexed while Crossref failed is enriched once Crossref answers again', async () => {
    crossref.addWork(SHARMA);
    crossref.failures.push(503, 503, 503);
    const { app } = await open(folder({ 'sharma.pdf': await barePdf() }));
    await ingest(app);
    expect([...app.catalog.docs()][0]).toMatchObject({ authors: ['A. Sharma', 'B. Okafor'], metaFrom: { authors: 'text' } });
    expect(await app.enricher!.available()).toBe(false);
    expect((await ingest(app)).documents.unchanged).toBe(1);
    await app.enricher!.store.markUp(); // the back-off has run out
    const s = await ingest(app);
    expect(s.documents.indexed).toBe(1);
    expect([...app.catalog.docs()][0]).toMatchObject({ year: 2022, authors: ['Sharma, Anjali', 'Okafor, Bola', 'Wei, Li'] });
    expect((await ingest(app)).documents.unchanged).toBe(1);
  });

  it('the cache: re-indexing the same DOI (a rebuild, another process) asks Crossref nothing', async () => {
    crossref.addWork(SHARMA);
    const dir = folder({ 'sharma.pdf': await barePdf() });
    const { app, env } = await open(dir);
    await ingest(app);
    expect(requestsFor(DOI)).toBe(1);
    await app.reset();
    const s = await ingest(app);
    expect(s.documents.indexed).toBe(1);
    const other = await openAppOwnRedis(env);
    opened.push(other.close);
    await other.app.reset();
    await ingest(other.app);
    expect(requestsFor(DOI)).toBe(1);
    expect([...other.app.catalog.docs()][0].year).toBe(2022);
    const ttl = await other.redis.pttl(`${other.app.ns}:crossref:work:${DOI}`);
    expect(ttl).toBeGreaterThan(23 * 3_600_000);
  });

  it('caches "not found" too, for less long', async () => {
    const { app } = await open(folder({ 'sharma.pdf': await barePdf() }));
    await ingest(app);
    expect(requestsFor(DOI)).toBe(1);
    await app.reset();
    await ingest(app);
    expect(requestsFor(DOI)).toBe(1);
    const ttl = await app.redis!.pttl(`${app.ns}:crossref:work:${DOI}`);
    expect(ttl).toBeGreaterThan(5 * 3_600_000);
    expect(ttl).toBeLessThanOrEqual(6 * 3_600_000);
  });

  it("does not pin another paper's record on a PDF whose page-1 DOI is Crossref's record of another work", async () => {
    crossref.addWork({ ...SHARMA, title: 'Loss of kcnk5b lengthens zebrafish fins', updatedBy: [RETRACTION] });
    const { app } = await open(folder({ 'sharma.pdf': await barePdf() }));
    const s = await ingest(app);
    expect(s.outcomes[0].warnings?.join(' ')).toMatch(/record of another work/);
    const doc = [...app.catalog.docs()][0];
    expect(doc.doi).toBeUndefined();
    expect(doc.journal).toBeUndefined();
    expect(doc.authors).toEqual(['A. Sharma', 'B. Okafor']); // page 1's, not the other work's
    const r = await app.ask(QUESTION);
    expect(r.citations[0].notice).toBeNull();
  });

  it('flags a retracted paper in an extractive answer, its JSON and its Slack message', async () => {
    crossref.addWork({ ...SHARMA, updatedBy: [RETRACTION, { doi: '10.5555/jlm.2023.c1', type: 'correction', date: [2023, 1, 2] }] });
    const { app } = await open(folder({ 'sharma.pdf': await barePdf() }));
    await ingest(app);
    const r = await app.ask(QUESTION);
    expect(r.refused).toBe(false);
    expect(r.model).toBe('extractive');
    expect(r.citations[0].notice).toEqual({ kind: 'retraction', doi: RETRACTION.doi, date: '2024-03-12', source: 'retraction-watch' });
    expect(r.answer).toContain('⚠️ [Sharma et al., 2022] has been retracted (2024): its findings should not be relied on.');
    expect(toAskJson(r).citations[0].notice?.kind).toBe('retraction');
    const posted = JSON.stringify(answerMessages(r));
    expect(posted).toContain('has been retracted (2024)');
    expect(posted).toContain('*⚠️ Retracted 2024*');
    // Answering reads the notices from memory: no request per question.
    const before = crossref.requests.length;
    for (let i = 0; i < 3; i++) await app.ask(QUESTION);
    expect(crossref.requests.length).toBe(before);
  });

  it('flags an expression of concern', async () => {
    crossref.addWork({ ...SHARMA, updatedBy: [{ doi: '10.5555/jlm.eoc', type: 'expression_of_concern', date: [2023, 9, 1] }] });
    const { app } = await open(folder({ 'sharma.pdf': await barePdf() }));
    await ingest(app);
    const en = await app.ask(QUESTION);
    expect(en.citations[0].notice?.kind).toBe('expression-of-concern');
    expect(en.answer).toContain('carries an expression of concern from its publisher (2023): treat its findings with caution.');
  });

  it('a paper retracted after it was indexed is flagged once its record expires and is checked again', async () => {
    crossref.addWork(SHARMA);
    const { app } = await open(folder({ 'sharma.pdf': await barePdf() }));
    await ingest(app);
    expect((await app.ask(QUESTION)).citations[0].notice).toBeNull();
    crossref.addWork({ ...SHARMA, updatedBy: [RETRACTION] });
    // Still cached: nothing is asked, nothing flagged yet.
    expect(await recheckNotices(app)).toMatchObject({ dois: 1, asked: 0 });
    expect((await app.ask(QUESTION)).citations[0].notice).toBeNull();
    await app.redis!.pexpire(`${app.ns}:crossref:work:${DOI}`, 1);
    await new Promise((r) => setTimeout(r, 20));
    expect(await recheckNotices(app)).toMatchObject({ dois: 1, asked: 1, unavailable: false });
    expect((await app.ask(QUESTION)).citations[0].notice?.kind).toBe('retraction');
    // Another process answering from the same index learns it from Redis.
    const other = await openAppOwnRedis(loadConfigEnv(app));
    opened.push(other.close);
    expect((await other.app.ask(QUESTION)).citations[0].notice?.kind).toBe('retraction');
  });

  describe('with a chat model', () => {
    let openai: FakeOpenAI;
    beforeAll(async () => {
      openai = await startFakeOpenAI();
    });
    afterAll(() => openai.close());

    it("tells the model the paper is retracted, and the model's answer carries the flag", async () => {
      crossref.addWork({ ...SHARMA, updatedBy: [RETRACTION] });
      openai.reply = () => 'Under normoxia HeLa cells showed 0.8 fission events per cell per minute [S1].';
      const { app } = await open(folder({ 'sharma.pdf': await barePdf() }), { env: chatEnv(openai) });
      await ingest(app);
      const r = await app.ask(QUESTION);
      expect(r.model).toBe('fake-chat');
      const body = openai.requests.filter((q) => q.path.endsWith('/chat/completions')).at(-1)!.body as {
        messages: { role: string; content: string }[];
      };
      const [system, user] = body.messages;
      expect(system.content).toMatch(/8\. A passage with a "notice:" field comes from a paper that was retracted/);
      expect(user.content).toContain('notice: RETRACTED (2024); its findings are not established');
      expect(r.citations[0].notice?.kind).toBe('retraction');
      // The claim is cited by the chunk that holds it (a neighbour of the hit may be a passage of its own).
      expect(r.answer).toMatch(
        /0\.8 fission events per cell per minute \[S\d+\]\.\n\n⚠️ \[Sharma et al\., 2022\] has been retracted \(2024\)/,
      );
    });

    it('says it in the language of the question', async () => {
      crossref.addWork({ ...SHARMA, updatedBy: [{ doi: '10.5555/jlm.eoc', type: 'expression_of_concern', date: [2023, 9, 1] }] });
      openai.reply = () => 'En normoxia las células HeLa mostraron 0.8 fission events per cell per minute [S1].';
      const { app } = await open(folder({ 'sharma.pdf': await barePdf() }), { env: chatEnv(openai) });
      await ingest(app);
      const r = await app.ask('¿Cuántos eventos de fisión por célula y minuto mostraron las células HeLa en normoxia?');
      expect(r.language).toBe('es');
      expect(r.refused).toBe(false);
      expect(r.answer).toContain(
        '⚠️ [Sharma et al., 2022] tiene una expresión de preocupación de su editorial (2023): trate sus resultados con cautela.',
      );
    });

    it('says nothing of notices to the model when no passage has one', async () => {
      crossref.addWork(SHARMA);
      openai.reply = () => 'Under normoxia HeLa cells showed 0.8 fission events per cell per minute [S1].';
      const { app } = await open(folder({ 'sharma.pdf': await barePdf() }), { env: chatEnv(openai) });
      await ingest(app);
      await app.ask(QUESTION);
      const body = openai.requests.filter((q) => q.path.endsWith('/chat/completions')).at(-1)!.body as {
        messages: { role: string; content: string }[];
      };
      expect(body.messages[0].content).not.toContain('notice');
      expect(body.messages[1].content).not.toContain('notice:');
    });
  });

  it('labbot ingest, then labbot ask in another process, prints the flag (human and --json)', async () => {
    crossref.addWork({ ...SHARMA, updatedBy: [RETRACTION] });
    const dir = folder({ 'sharma.pdf': await barePdf() });
    const env = testEnv({
      env: { CROSSREF_API_URL: crossref.url, EMBEDDINGS: 'hash', LLM: 'none' },
      fileConfig: { sources: [{ id: 'papers', type: 'folder', path: dir }], enrich: { crossref: true, mailto: MAILTO } },
    });
    // Not spawnSync: the fake Crossref answers from this process's event loop.
    const run = (args: string[]) =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [path.resolve('bin/labbot.js'), ...args], { env: { ...process.env, ...env } });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
        child.on('close', (status) => resolve({ status, stdout, stderr }));
      });
    const ing = await run(['ingest', '--source', 'papers', '--json']);
    expect(ing.status, ing.stderr).toBe(0);
    const human = await run(['ask', QUESTION]);
    expect(human.status, human.stderr).toBe(0);
    expect(human.stdout).toContain('⚠️ [Sharma et al., 2022] has been retracted (2024)');
    expect(human.stdout).toMatch(/\n {4}⚠️ Retracted 2024 <https:\/\/doi\.org\/10\.5555\/jlm\.2024\.retraction>/);
    const json = JSON.parse((await run(['ask', QUESTION, '--json'])).stdout);
    expect(json.citations[0].notice).toMatchObject({ kind: 'retraction', date: '2024-03-12' });
    expect(requestsFor(DOI)).toBe(1);
  }, 240_000);

  it('refuses a config that turns enrichment on without a contact address', () => {
    const env = testEnv({ fileConfig: { enrich: { crossref: true } } });
    expect(() => loadConfig(env)).toThrow(/enrich\.mailto/);
    expect(() => loadConfig(testEnv({ fileConfig: { enrich: { crossref: true, mailto: 'not an address' } } }))).toThrow(/e-mail/);
    expect(loadConfig(testEnv({})).enrich).toBeUndefined();
  });
});

/** The environment an app was opened with, for a second process on the same index. */
function loadConfigEnv(app: Labbot): Record<string, string> {
  const c = app.config;
  return {
    CHROMA_URL: c.chromaUrl!,
    LABBOT_COLLECTION: c.collection,
    LABBOT_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'labbot-second-')),
    LABBOT_CONFIG: c.configFile!,
    LOG_LEVEL: 'silent',
    EMBEDDINGS: 'hash',
    CROSSREF_API_URL: c.enrich!.crossref.apiUrl,
  };
}
