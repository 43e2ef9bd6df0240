// Issue 24, item 10: the first dashboard view after a 30 MB document held the event loop for 5 s
// (/healthz stalled 4.8 s; Slack acks would too): /admin read every chunk text in one go to list
// planted instructions, and the member document view (GET /doc) rendered the whole document as one
// page. Now no request handler does O(corpus) or O(document) work on the event loop: the check for
// planted instructions runs in slices that yield between them (once per document version), and
// the document view serves one bounded part at a time. bench/dashboard-first-view.ts has figures.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docViewUrl, VIEW_PART_CHUNKS, withViewLinks } from '../../src/answer/doc-links.ts';
import { createInjectionScanner } from '../../src/admin/injection-scan.ts';
import { createCatalog, chunkOrdinal } from '../../src/search/catalog.ts';
import type { Citation } from '../../src/answer/cite.ts';
import type { Chunk, LabDocument } from '../../src/types.ts';
import { startAdminServer, TOKEN, type AdminServer } from '../admin-server.ts';
import { BIG_DOC_ID, BIG_DOC_LAST_LINE, BIG_DOC_PLANTED, bigDocument } from '../helpers/big-document.ts';
import { waitFor } from '../helpers/wait.ts';

const LINK_SECRET = 'event-loop-test-link-secret-0123456789abcdef';
const PUBLIC_URL = 'https://labbot.test';
const MB = 4;

const injectionsOf = (page: string) => /<section id="injections">([\s\S]*?)<\/section>/.exec(page)?.[1] ?? '';

describe('no dashboard view holds the event loop for a large document', () => {
  let s: AdminServer;
  const bearer = { authorization: `Bearer ${TOKEN}`, accept: 'text/html' };

  beforeAll(async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-big-'));
    writeFileSync(path.join(dir, 'manual.md'), bigDocument(MB * 1024 * 1024));
    s = await startAdminServer({
      env: { LABBOT_WORKER: 'off', LABBOT_PUBLIC_URL: PUBLIC_URL, LABBOT_LINK_SECRET: LINK_SECRET },
      sources: [{ id: 'big', type: 'folder', path: dir }],
    });
  }, 240_000);
  afterAll(async () => {
    await s?.close();
  });

  it('the first dashboard view after a large document keeps /healthz answering while it checks the document for planted instructions', async () => {
    expect(s.running.app.catalog.doc(BIG_DOC_ID)?.chunkIds.length).toBeGreaterThan(5000);
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const t0 = performance.now();
    let done = false;
    const view = fetch(`${s.url}/admin`, { headers: bearer }).then(async (r) => {
      const body = await r.text();
      done = true;
      return { status: r.status, body, ms: performance.now() - t0 };
    });
    let healthz = 0;
    while (!done) {
      const h = await fetch(`${s.url}/healthz`);
      expect(h.status).toBe(200);
      await h.text();
      if (!done) healthz += 1;
    }
    const first = await view;
    delay.disable();
    expect(first.status).toBe(200);
    // The view waited for the check (or says it is still running): never a silently partial list.
    const section = injectionsOf(first.body);
    expect(section.includes(BIG_DOC_PLANTED) || section.includes('id="injections-pending"'), section.slice(0, 300)).toBe(true);
    // Relative, not a wall-clock limit: the loop never stalled for most of the view (it did for
    // all of it when the check ran in one go), and /healthz was answered while the view waited.
    expect(delay.max / 1e6).toBeLessThan(first.ms / 2);
    expect(healthz).toBeGreaterThan(0);
    // The check finishes, and the planted line from the end of the document is listed.
    const listed = await waitFor(
      async () => {
        const page = await (await fetch(`${s.url}/admin`, { headers: bearer })).text();
        return injectionsOf(page).includes(BIG_DOC_PLANTED) ? page : undefined;
      },
      60_000,
      'the planted line listed',
    );
    expect(injectionsOf(listed)).not.toContain('id="injections-pending"');
    expect(injectionsOf(listed)).toContain('Big lab manual');
  });

  it('the member document view of a large document serves one bounded part, with links to the others', async () => {
    const expires = Math.floor(Date.now() / 1000) + 3600;
    const grant = { docId: BIG_DOC_ID, who: 'public', groups: ['public'], expires };
    const local = (url: string) => url.replace(PUBLIC_URL, s.url);
    const doc = s.running.app.catalog.doc(BIG_DOC_ID)!;
    const parts = Math.ceil(doc.chunkIds.length / VIEW_PART_CHUNKS);
    expect(parts).toBeGreaterThan(10);

    const first = await fetch(local(docViewUrl({ baseUrl: PUBLIC_URL, secret: LINK_SECRET }, grant)));
    const page = await first.text();
    expect(first.status).toBe(200);
    // What one request reads and renders is bounded by the part, not by the document.
    expect(page.match(/class="part"/g)?.length ?? 0).toBeLessThanOrEqual(VIEW_PART_CHUNKS);
    expect(page.length).toBeLessThan((MB * 1024 * 1024) / 4);
    expect(page).toContain(`Part 1 of ${parts}`);
    expect(page).not.toContain(BIG_DOC_LAST_LINE);
    const next = /<a href="([^"]+)" rel="next">/.exec(page)?.[1]?.replace(/&amp;/g, '&');
    expect(next).toContain('part=2');
    const second = await (await fetch(`${s.url}${next}`)).text();
    expect(second).toContain(`Part 2 of ${parts}`);

    // A citation of the document's last chunk links to the part that holds it, at its anchor.
    const lastId = doc.chunkIds[doc.chunkIds.length - 1];
    const citation: Citation = {
      label: '[Big lab manual]',
      doc_id: BIG_DOC_ID,
      title: doc.title,
      authors: [],
      year: null,
      section: '',
      url: null,
      link: null,
      refs: ['S1'],
      quotes: [],
    };
    const [cited] = withViewLinks([citation], {
      settings: { baseUrl: PUBLIC_URL, secret: LINK_SECRET, ttlMs: 3_600_000 },
      who: 'public',
      groups: ['public'],
      nowMs: Date.now(),
      chunkOf: () => lastId,
      chunkInfo: (id) => s.running.app.catalog.chunkInfo(id),
      kindOf: () => doc.kind,
      ordinalOf: chunkOrdinal,
    });
    const [url, anchor] = (cited.link ?? '').split('#');
    expect(url).toContain(`part=${parts}`);
    const last = await (await fetch(local(url))).text();
    expect(last).toContain(`id="${anchor}"`);
    expect(last).toContain(BIG_DOC_LAST_LINE);
    expect(last).not.toContain('rel="next"');
  });
});

describe('the check for planted instructions', () => {
  const doc = (id: string, text: string, hash: string): [LabDocument, Chunk[]] => [
    { id, source: 'lab', path: `${id}.md`, title: id, kind: 'wiki', authors: [], access: 'public', contentHash: hash },
    text.split('\n\n').map((t, i): Chunk => ({ id: `${id}#${i}`, docId: id, section: '', text: t, hash: `${hash}-${i}` })),
  ];

  it('a view that cannot wait says how many documents are still being checked, and never lists a stale version', async () => {
    const catalog = createCatalog();
    const filler = Array.from({ length: 3000 }, (_, i) => `Step ${i}: spin the tube for ${i % 9} minutes at 4 degrees.`).join('\n\n');
    catalog.putDocument(...doc('long', `${filler}\n\n${BIG_DOC_PLANTED}`, 'h1'));
    const scanner = createInjectionScanner({ sliceMs: 1 });

    const now = await scanner.scan(catalog, 0);
    expect(now.pending).toBe(1);
    expect(now.found).toEqual([]);
    // A second view while that document is being read waits for it too (nothing new to queue).
    const later = await scanner.scan(catalog, 60_000);
    expect(later.pending).toBe(0);
    expect(later.found.map((f) => [f.docId, f.lines])).toEqual([['long', [BIG_DOC_PLANTED]]]);
    catalog.putDocument(...doc('clean', 'The cryostat blade is replaced after every 40 sections.', 'h2'));
    expect(await scanner.scan(catalog, 60_000)).toMatchObject({ pending: 0, found: [{ docId: 'long' }] });

    // A new version of the document is checked again; until then it is pending, not listed.
    catalog.putDocument(...doc('long', filler, 'h3'));
    const changed = await scanner.scan(catalog, 0);
    expect(changed.pending).toBe(1);
    expect(changed.found).toEqual([]);
    expect((await scanner.scan(catalog, 60_000)).found).toEqual([]);
  });
});
