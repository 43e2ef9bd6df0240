// Crossref's record of a DOI read into labbot's values, and the HTTP client against the strict
// fake Crossref (pools, limits, 404, 429, nothing listening).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crossrefLayer, mainNotice, parseCrossrefWork, titleMatchesText, withCrossrefLayer } from '../src/ingest/metadata/crossref.ts';
import { resolveMeta } from '../src/ingest/metadata/layers.ts';
import { createCrossrefClient } from '../src/enrich/crossref-client.ts';
import { createCrossrefEnricher } from '../src/enrich/crossref-enricher.ts';
import { memoryCrossrefStore } from '../src/enrich/crossref-store.ts';
import { crossrefMessage, deadCrossrefUrl, startFakeCrossref, type FakeCrossref } from './helpers/fake-crossref.ts';

const WAKEFIELD = crossrefMessage({
  doi: '10.1016/S0140-6736(97)11096-0',
  title: 'RETRACTED: Ileal-lymphoid-nodular hyperplasia, <i>non-specific</i> colitis &amp; pervasive developmental disorder in children',
  authors: [{ given: 'AJ', family: 'Wakefield' }, { given: 'SH', family: 'Murch' }, { name: 'The Study Group' }],
  year: 1998,
  month: 2,
  journal: 'The Lancet',
  updatedBy: [
    { doi: '10.1016/s0140-6736(04)15715-2', type: 'correction', source: 'retraction-watch', date: [2004, 3, 6] },
    { doi: '10.1016/s0140-6736(10)60175-4', type: 'retraction', source: 'retraction-watch', date: [2010, 2, 6] },
  ],
});

describe('a Crossref work as labbot reads it', () => {
  it('takes title (markup and entities gone), "Family, Given" authors, year, journal; corrections are not notices', () => {
    const r = parseCrossrefWork(WAKEFIELD)!;
    expect(r.doi).toBe('10.1016/S0140-6736(97)11096-0');
    expect(r.title).toBe(
      'RETRACTED: Ileal-lymphoid-nodular hyperplasia, non-specific colitis & pervasive developmental disorder in children',
    );
    expect(r.authors).toEqual(['Wakefield, AJ', 'Murch, SH', 'The Study Group']);
    expect(r.year).toBe(1998);
    expect(r.journal).toBe('The Lancet');
    expect(r.notices).toEqual([
      { kind: 'retraction', doi: '10.1016/s0140-6736(10)60175-4', date: '2010-02-06', source: 'retraction-watch' },
    ]);
  });

  it('keeps what is readable when a field is malformed, and refuses what is not a work', () => {
    const r = parseCrossrefWork({
      ...WAKEFIELD,
      author: [{ family: 7 }, { family: 'Murch' }],
      issued: 'soon',
      'container-title': [3, 'J'],
    })!;
    expect(r.authors).toEqual(['Murch']);
    expect(r.year).toBe(1998); // from `published`
    expect(r.journal).toBe('J');
    expect(parseCrossrefWork({ title: ['no DOI'] })).toBeUndefined();
    expect(parseCrossrefWork('Resource not found.')).toBeUndefined();
  });

  it('shows the gravest notice: a retraction over an expression of concern; hyphen or underscore alike', () => {
    const r = parseCrossrefWork(
      crossrefMessage({
        doi: '10.5555/x',
        updatedBy: [
          { doi: '10.5555/eoc', type: 'expression-of-concern' },
          { doi: '10.5555/r', type: 'retraction' },
          { doi: '10.5555/w', type: 'erratum' },
        ],
      }),
    )!;
    expect(r.notices.map((n) => n.kind)).toEqual(['expression-of-concern', 'retraction']);
    expect(mainNotice(r.notices)?.kind).toBe('retraction');
  });

  it("sits after the lab's layers and before the file's own, so it fills gaps and never overwrites", () => {
    const layer = crossrefLayer(parseCrossrefWork(WAKEFIELD)!);
    expect(layer.meta.access).toBeUndefined();
    const lab = { origin: 'paper.yaml', meta: { authors: ['Okafor, Adaeze'], year: 2019 } };
    const pdf = { origin: 'PDF info', meta: { title: 'Microsoft Word - draft3.docx', year: 2026, doi: '10.1016/S0140-6736(97)11096-0' } };
    const { meta, from } = resolveMeta(withCrossrefLayer([lab, pdf], layer, (l) => l.origin === 'PDF info'));
    expect(meta.authors).toEqual(['Okafor, Adaeze']);
    expect(meta.year).toBe(2019);
    expect(meta.title).toMatch(/^RETRACTED: Ileal/);
    expect(from).toMatchObject({ authors: 'paper.yaml', year: 'paper.yaml', title: 'Crossref', journal: 'Crossref', doi: 'PDF info' });
  });

  it("recognises a work's title in its own text, not in another paper's", () => {
    const text =
      'Ileal-lymphoid-nodular hyperplasia, non-specific colitis, and pervasive developmental disorder in children\nA. J. Wakefield';
    expect(titleMatchesText(parseCrossrefWork(WAKEFIELD)!.title!, text)).toBe(true);
    expect(titleMatchesText('Loss of kcnk5b lengthens zebrafish fins', text)).toBe(false);
  });
});

describe('the Crossref client against the fake Crossref', () => {
  let fake: FakeCrossref;
  beforeAll(async () => {
    fake = await startFakeCrossref();
    fake.works.set('10.1016/s0140-6736(97)11096-0', WAKEFIELD);
    for (let i = 0; i < 12; i++) fake.addWork({ doi: `10.5555/paced.${i}`, title: `Paced ${i}` });
  });
  afterAll(() => fake.close());

  it('asks in the polite pool (mailto and User-Agent), finds a DOI in any case, and reads 404 as not found', async () => {
    const client = createCrossrefClient({ apiUrl: fake.url, mailto: 'lab@example.org' });
    const found = await client.work('10.1016/s0140-6736(97)11096-0');
    expect(found.status).toBe('found');
    expect(await client.work('10.1016/unknown.1')).toEqual({ status: 'not-found' });
    const [first] = fake.requests.slice(-2);
    expect(first).toMatchObject({ pool: 'polite', mailto: 'lab@example.org', path: '/works/10.1016%2Fs0140-6736(97)11096-0' });
    expect(first.userAgent).toContain('mailto:lab@example.org');
    expect(client.limits()).toEqual({ perInterval: 10, intervalMs: 1000, concurrency: 5 });
  });

  it('keeps to the limits Crossref announces: never more in flight or per second than allowed', async () => {
    fake.delayMs = 150;
    const before = fake.requests.length;
    const client = createCrossrefClient({ apiUrl: fake.url, mailto: 'lab@example.org' });
    const out = await Promise.all(Array.from({ length: 12 }, (_, i) => client.work(`10.5555/paced.${i}`)));
    fake.delayMs = 0;
    expect(out.every((o) => o.status === 'found')).toBe(true);
    const mine = fake.requests.slice(before);
    expect(mine.filter((r) => r.status === 429)).toEqual([]);
    expect(fake.maxInFlight.polite).toBeLessThanOrEqual(5);
  });

  it('waits out a 429 with Retry-After and then answers; a lasting one is "unavailable", never a throw', async () => {
    const client = createCrossrefClient({ apiUrl: fake.url, mailto: 'lab@example.org' });
    fake.retryAfter = 1;
    fake.failures.push(429);
    const t0 = Date.now();
    expect((await client.work('10.5555/paced.1')).status).toBe('found');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
    fake.retryAfter = 3600;
    fake.failures.push(429);
    const out = await client.work('10.5555/paced.2');
    expect(out).toMatchObject({ status: 'unavailable', retryAfterMs: 3_600_000 });
    fake.retryAfter = undefined;
  });

  it('with nothing listening, answers "unavailable" with the reason', async () => {
    const client = createCrossrefClient({ apiUrl: await deadCrossrefUrl(), mailto: 'lab@example.org' });
    const out = await client.work('10.5555/paced.1');
    expect(out.status).toBe('unavailable');
    expect(out.status === 'unavailable' && out.reason).toMatch(/unreachable|ECONNREFUSED/);
  });

  it(
    'backs off for 2 minutes after a failure Crossref gave no Retry-After for, doubling while ' +
      "it fails; for Crossref's Retry-After when it gave one",
    async () => {
      let now = Date.now();
      const store = memoryCrossrefStore(() => now);
      const client = createCrossrefClient({ apiUrl: fake.url, mailto: 'lab@example.org' });
      const enricher = createCrossrefEnricher({ client, store, maxAgeMs: 86_400_000 });
      fake.failures.push(503, 503, 503);
      expect((await enricher.lookup('10.5555/paced.3')).status).toBe('unavailable');
      expect(await store.downFor()).toBe(120_000);
      expect(await enricher.available()).toBe(false);
      // While down, nothing is sent at all.
      const sent = fake.requests.length;
      expect((await enricher.lookup('10.5555/paced.4')).status).toBe('unavailable');
      expect(fake.requests.length).toBe(sent);
      now += 120_001;
      expect(await enricher.available()).toBe(true);
      fake.failures.push(503, 503, 503);
      await enricher.lookup('10.5555/paced.3');
      expect(await store.downFor()).toBe(240_000);
      now += 240_001;
      fake.retryAfter = 3600;
      fake.failures.push(429);
      expect((await enricher.lookup('10.5555/paced.5')).status).toBe('unavailable');
      fake.retryAfter = undefined;
      expect(await store.downFor()).toBeGreaterThan(3_590_000);
      // The same client does not hold the next lookup for that hour: it answers at once.
      await store.markUp();
      const t0 = Date.now();
      expect((await enricher.lookup('10.5555/paced.6')).status).toBe('unavailable');
      expect(Date.now() - t0).toBeLessThan(1000);
      // Crossref answering again clears the back-off.
      const fresh = createCrossrefEnricher({
        client: createCrossrefClient({ apiUrl: fake.url, mailto: 'lab@example.org' }),
        store,
        maxAgeMs: 86_400_000,
      });
      await store.markUp();
      expect((await fresh.lookup('10.5555/paced.5')).status).toBe('found');
      expect(await store.backoff()).toBe(0);
    },
  );

  it('the fake puts a request without a valid contact address in the public pool, one at a time', async () => {
    const before = fake.requests.length;
    fake.delayMs = 100;
    const [a, b] = await Promise.all([
      fetch(`${fake.url}/works/10.5555%2Fpaced.1?mailto=nobody`),
      fetch(`${fake.url}/works/10.5555%2Fpaced.2`),
    ]);
    fake.delayMs = 0;
    expect(a.headers.get('x-api-pool')).toBe('public');
    expect(a.headers.get('x-concurrency-limit')).toBe('1');
    expect([a.status, b.status].sort()).toEqual([200, 429]);
    expect(fake.requests.slice(before).every((r) => r.pool === 'public')).toBe(true);
  });
});
