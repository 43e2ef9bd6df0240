// The dashboard's document view on a real `serve`: every bibliographic field with the layer it
// came from (a library entry, the first page's text, a Zotero file name), the notes the ingest
// made (a document matched by two library entries), values from documents escaped.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdminServer, TOKEN, type AdminServer } from './admin-server.ts';
import { betterBibtex, zoteroCslJson, type LibraryPaper } from './fixtures/libraries.ts';
import { renderPaperPdf, type PaperLayout } from './fixtures/papers.ts';

const bearer = { authorization: `Bearer ${TOKEN}` };
const LAYOUT: PaperLayout = {
  columns: 1,
  font: 'helvetica',
  titleSize: 18,
  titleBold: true,
  titleCentered: false,
  titleWidth: 0.8,
  above: [],
  journalLineAtFoot: false,
  authorStyle: 'full',
  affiliations: 'none',
  yearAt: ['copyright'],
  receivedYearBefore: false,
  citations: false,
  naming: 'publisher',
  creationYear: 2026,
  wordItems: false,
  markers: 'digits',
  commaInMarker: false,
  ampersand: false,
  citationBlock: false,
};
const TRUTH = {
  title: 'Printed on page one: potassium channels and fin size',
  authors: [
    { given: 'Min', family: 'Okafor' },
    { given: 'Ben', family: 'Lee' },
  ],
  year: 2019,
  journal: 'eLife',
  doi: '10.7554/eLife.61234',
  topic: 'fin regeneration',
  findings: ['One.', 'Two.', 'Three.'],
  abstract: 'We report the DOCVIEW result.',
};
const SHARMA: LibraryPaper = {
  key: 'sharma2022',
  title: 'Loss of kcnk5b <script>alert(1)</script> lengthens fins',
  authors: [['Ana', 'Sharma']],
  year: 2022,
  journal: 'Development',
  file: 'sharma.pdf',
};

describe('the document view', () => {
  let s: AdminServer;
  const get = (p: string, headers: Record<string, string> = bearer) =>
    fetch(`${s.url}${p}`, { headers: { ...headers, accept: 'text/html' } });
  beforeAll(async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-docview-'));
    mkdirSync(path.join(dir, 'papers'));
    writeFileSync(
      path.join(dir, 'papers', 'sharma.pdf'),
      await renderPaperPdf({
        truth: { ...TRUTH, title: 'Sharma printed title here', doi: '10.1242/dev.200123' },
        layout: LAYOUT,
        fileName: 'sharma.pdf',
        key: 'k',
      }),
    );
    writeFileSync(
      path.join(dir, 'papers', 'download.pdf'),
      await renderPaperPdf({ truth: TRUTH, layout: LAYOUT, fileName: 'download.pdf', key: 'k' }),
    );
    writeFileSync(path.join(dir, 'papers', 'library.bib'), betterBibtex([SHARMA]));
    writeFileSync(
      path.join(dir, 'library.json'),
      zoteroCslJson([{ ...SHARMA, title: 'The same paper, exported again' }]).replace('"title"', '"citation-key": "sharma",\n\t\t"title"'),
    );
    s = await startAdminServer({ env: { LABBOT_WORKER: 'off' }, sources: [{ id: 'lab', type: 'folder', path: dir, kind: 'paper' }] });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('links each document from the index and marks documents with metadata notes', async () => {
    const page = await (await get('/admin')).text();
    expect(page).toContain('href="/admin/doc?id=lab%3Apapers%2Fsharma.pdf"');
    expect(page).toMatch(
      /href="\/admin\/doc\?id=lab%3Apapers%2Fsharma\.pdf">[^<]*&lt;script&gt;[^<]*<\/a> <span class="pill error"[^>]*>1 note<\/span>/,
    );
    expect(page).not.toContain('<script>alert(1)</script>');
  });

  it('shows each field with where it came from, and the notes', async () => {
    const res = await get(`/admin/doc?id=${encodeURIComponent('lab:papers/sharma.pdf')}`);
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toMatch(/<th scope="row">Year<\/th><td>2022<\/td><td><span class="pill">papers\/library\.bib \(sharma2022\)<\/span>/);
    expect(page).toMatch(/<th scope="row">DOI<\/th><td>10\.1242\/dev\.200123<\/td><td><span class="pill">text<\/span>/);
    expect(page).toMatch(
      new RegExp(
        String.raw`id="meta-notes"><li class="error">matched by 2 library entries: ` +
          String.raw`papers\/library\.bib \(sharma2022, by file name\); library\.json \(sharma, by citation key\)`,
      ),
    );
    expect(page).toContain('Loss of kcnk5b &lt;script&gt;alert(1)&lt;/script&gt; lengthens fins');
    expect(page).not.toContain('<script>alert(1)</script>');

    const other = await (await get(`/admin/doc?id=${encodeURIComponent('lab:papers/download.pdf')}`)).text();
    expect(other).toMatch(
      /<th scope="row">Title<\/th><td>Printed on page one: potassium channels and fin size<\/td><td><span class="pill">text<\/span>/,
    );
    expect(other).toMatch(/<th scope="row">Year<\/th><td>2019<\/td><td><span class="pill">text<\/span>/);
    expect(other).toMatch(/<th scope="row">Journal<\/th><td><span class="muted">none<\/span><\/td><td><\/td>/);
    expect(other).not.toContain('id="meta-notes"');
  });

  it('answers 404 for an unknown id and 401 without the token', async () => {
    expect((await get('/admin/doc?id=nope')).status).toBe(404);
    expect((await get('/admin/doc?id=lab%3Apapers%2Fsharma.pdf', {})).status).toBe(401);
  });
});
