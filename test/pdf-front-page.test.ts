// PDFs with no metadata in their info dictionary: title from page 1's largest lines (joined across
// line breaks), authors from the lines under it, year from the text or a Zotero file name, never
// from CreationDate; each field says where it came from, through a real ingest and ask.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileContentHash } from '../src/ingest/file-hash.ts';
import { parseFile } from '../src/ingest/parse/index.ts';
import { frontPageMeta, parseAuthorLine } from '../src/ingest/parse/pdf-front-page.ts';
import { itemsToLines, joinAccents, type LayoutLine } from '../src/ingest/parse/pdf-layout.ts';
import type { Labbot } from '../src/app.ts';
import { DEV_MIX, generatePapers, renderPaperPdf, type AuthorStyle, type GeneratedPaper, type PaperLayout } from './fixtures/papers.ts';
import { openTestApp } from './helpers/app.ts';

const BASE: PaperLayout = {
  columns: 1,
  font: 'times',
  titleSize: 18,
  titleBold: true,
  titleCentered: false,
  titleWidth: 0.7,
  above: [],
  journalLineAtFoot: false,
  authorStyle: 'full',
  affiliations: 'none',
  yearAt: [],
  receivedYearBefore: false,
  citations: true,
  naming: 'publisher',
  creationYear: 2026,
  wordItems: false,
  markers: 'digits',
  commaInMarker: false,
  ampersand: false,
  citationBlock: false,
};

const SHARMA: GeneratedPaper['truth'] = {
  title: 'Loss of kcnk5b lengthens zebrafish fins through altered bioelectric signalling in the regenerating blastema',
  authors: [
    { given: 'Ana', family: 'Sharma' },
    { given: 'Ben', family: 'Lee' },
    { given: 'Chen', family: 'Wu' },
  ],
  year: 2022,
  journal: 'Development',
  doi: '10.1242/dev.200123',
  topic: 'fin regeneration',
  findings: [
    'In kcnk5b mutants, fin length increased by 42 percent.',
    'The effect required bioelectric signalling.',
    'Potassium channels set fin size.',
  ],
  abstract:
    'We studied fin regeneration in zebrafish. In kcnk5b mutants, fin length increased by 42 percent. The effect required bioelectric signalling.',
};

const paper = (layout: Partial<PaperLayout>, fileName = 'dev200123.pdf', truth = SHARMA): GeneratedPaper => ({
  truth,
  layout: { ...BASE, ...layout },
  fileName,
  key: 'sharma2022loss',
});
const inferred = async (p: GeneratedPaper) =>
  (await parseFile({ name: p.fileName, bytes: await renderPaperPdf(p) })).textLayers?.find((l) => l.inferred)?.meta ?? {};

describe('reading a first page', () => {
  it('joins a title wrapped over several lines (the old guess stopped at the first line)', async () => {
    const meta = await inferred(paper({ titleWidth: 0.55, yearAt: ['copyright'] }));
    expect(meta.title).toBe(SHARMA.title);
  });

  it('never takes the year from CreationDate: a 2022 paper saved in 2026 is from 2022, and without a printed year there is none', async () => {
    expect((await inferred(paper({ yearAt: ['journal-line'], above: ['journal-line'] }))).year).toBe(2022);
    expect((await inferred(paper({ yearAt: ['dates'], receivedYearBefore: true }))).year).toBe(2022);
    expect((await inferred(paper({ yearAt: ['copyright'] }))).year).toBe(2022);
    const doiDated = { ...SHARMA, doi: '10.1101/2022.03.01.482911' };
    expect((await inferred(paper({ yearAt: ['doi-date'] }, 'x.pdf', doiDated))).year).toBe(2022);
    const none = await parseFile({ name: 'x.pdf', bytes: await renderPaperPdf(paper({ yearAt: [], citations: false })) });
    expect(none.meta.year).toBeUndefined();
    expect(none.textLayers?.find((l) => l.inferred)?.meta.year).toBeUndefined();
  });

  it('reads the first author in every author-line style, with markers and capitals undone', async () => {
    const styles: [AuthorStyle, Partial<PaperLayout>][] = [
      ['full', {}],
      ['initials', {}],
      ['superscript', { affiliations: 'superscript' }],
      ['superscript', { affiliations: 'superscript', commaInMarker: true, markers: 'letters' }],
      ['inline-digits', { affiliations: 'inline' }],
      ['spaced-digits', { affiliations: 'inline' }],
      ['vancouver', {}],
      ['caps', { affiliations: 'superscript' }],
      ['oxford', { ampersand: true }],
      ['degrees', {}],
      ['full', { wordItems: true, affiliations: 'superscript' }],
    ];
    for (const [authorStyle, extra] of styles) {
      const meta = await inferred(paper({ authorStyle, yearAt: ['copyright'], ...extra }));
      expect(meta.authors?.length, `${authorStyle} ${JSON.stringify(extra)}: ${JSON.stringify(meta.authors)}`).toBe(3);
      expect(meta.authors?.[0], authorStyle).toMatch(/Sharma$/);
      expect(meta.authors?.[2], authorStyle).toMatch(/Wu$/);
    }
    expect(parseAuthorLine('Ana Sharma1,2*, Ben Lee2 and Chen Wu1')).toEqual(['Ana Sharma', 'Ben Lee', 'Chen Wu']);
    expect(parseAuthorLine('A. Sharma, B. Lee and C. Wu')).toEqual(['A. Sharma', 'B. Lee', 'C. Wu']);
    expect(parseAuthorLine('Sharma A, Lee B, Wu C')).toEqual(['A Sharma', 'B Lee', 'C Wu']);
    expect(parseAuthorLine("ANA DA SILVA, KOFI O'BRIEN AND JEAN-PIERRE LEE")).toEqual(['Ana da Silva', "Kofi O'Brien", 'Jean-Pierre Lee']);
    expect(parseAuthorLine('Department of Cell Biology, University of Lisbon')).toBeUndefined();
    expect(parseAuthorLine('Received 3 January 2022; Accepted 1 March 2022')).toBeUndefined();
  });

  it('passes over a journal masthead, a running head and an article-type label above the title', async () => {
    const meta = await inferred(
      paper({ above: ['masthead', 'running-head', 'label', 'journal-line'], yearAt: ['journal-line'], titleSize: 16 }),
    );
    expect(meta.title).toBe(SHARMA.title);
    expect(meta.authors?.[0]).toBe('Ana Sharma');
    expect(meta.year).toBe(2022);
  });

  it('reads layouts seen in real papers: a big masthead, a byline cut mid-name, glued initials, capital family names, a citation line mid-page', () => {
    const line = (text: string, size: number, top: number, x0 = 72): LayoutLine => ({
      text,
      size,
      top,
      x0,
      x1: x0 + text.length * size * 0.45,
      superscripts: [],
      marked: text,
    });
    const page = (lines: LayoutLine[]) => ({
      width: 595,
      height: 842,
      lines: [
        ...lines,
        ...Array.from({ length: 30 }, (_, i) =>
          line(`Body text line ${i} of the paper, long enough to be body text in a column.`, 10, 360 + i * 12),
        ),
      ],
    });
    expect(
      frontPageMeta(
        page([
          line('Journal of Statistical Software', 28, 115, 200),
          line('January 2007, Volume 18, Issue 3.', 10, 137),
          line('TIMP: An R Package for Modeling Multi-way', 17, 234),
          line('Spectroscopic Measurements', 17, 256),
          line('Katharine M. Mullen', 12, 287),
        ]),
      ),
    ).toEqual({
      title: 'TIMP: An R Package for Modeling Multi-way Spectroscopic Measurements',
      authors: ['Katharine M. Mullen'],
      year: 2007,
    });
    const cut = frontPageMeta(
      page([
        line('Interference of single photons from dissimilar sources', 14, 84),
        line('Andreas Muller, Edward B. Flagg, Edward Van', 10, 125),
        line('Keuren, Alan Migdall, and Glenn S. Solomon', 10, 137),
        line('Z. Naturforsch. 54 a, 272-273 (1999); received December 15, 1998', 9, 300),
      ]),
    );
    expect(cut.authors).toEqual(['Andreas Muller', 'Edward B. Flagg', 'Edward Van Keuren', 'Alan Migdall', 'Glenn S. Solomon']);
    expect(cut.year).toBe(1999);
    expect(parseAuthorLine('Yu.A.Pusep, L.Fernandes dos Santos, and A.I.Toropov')).toEqual([
      'Yu. A. Pusep',
      'L. Fernandes dos Santos',
      'A. I. Toropov',
    ]);
    expect(parseAuthorLine('Ross G. DOUGLAS, Rajni K. SHARMA and Edward D. STURROCK')).toEqual([
      'Ross G. Douglas',
      'Rajni K. Sharma',
      'Edward D. Sturrock',
    ]);
    expect(parseAuthorLine('Dr. Saeed Murtaza, Prof. Ana Sharma')).toEqual(['Saeed Murtaza', 'Ana Sharma']);
    expect(joinAccents('Gr \u00B4egory Mouni \u00B4e, Franc\u00B8ois')).toBe('Grégory Mounié, François');
  });

  it('keeps a superscript raised half a size above a large title line in that line', () => {
    const lines = itemsToLines([
      { str: 'Bi-criteria Algorithm for Scheduling', x: 83, y: 85, size: 17.9, width: 300 },
      { str: '*', x: 344, y: 96, size: 9, width: 4 },
      { str: 'Platforms', x: 256, y: 105, size: 17.9, width: 85 },
    ]);
    expect(lines.map((l) => l.text)).toEqual(['Bi-criteria Algorithm for Scheduling', 'Platforms']);
    expect(lines[1].superscripts).toEqual(['*']);
  });

  it('keeps two columns apart and superscripts out of the text', () => {
    const lines = itemsToLines([
      { str: 'Ana Sharma', x: 72, y: 100, size: 12, width: 60 },
      { str: '1,2', x: 132.5, y: 96, size: 7, width: 8 },
      { str: ', Ben Lee', x: 141, y: 100, size: 12, width: 45 },
      { str: 'left column', x: 72, y: 300, size: 10, width: 200 },
      { str: 'right column', x: 300, y: 300, size: 10, width: 200 },
    ]);
    expect(lines.map((l) => l.text)).toEqual(['Ana Sharma, Ben Lee', 'left column', 'right column']);
    expect(lines[0].superscripts).toEqual(['1,2']);
  });
});

describe('an index built before PDFs were read this way', () => {
  it("reads its PDFs again at the next sync: a PDF's content hash includes how PDFs are read (other files' do not change)", () => {
    const bytes = new TextEncoder().encode('%PDF-1.7 same bytes');
    const before = fileContentHash(bytes, [], {}, 'public');
    expect(fileContentHash(bytes, [], {}, 'public', { fileName: 'papers/x.pdf' })).not.toBe(before);
    expect(fileContentHash(bytes, [], {}, 'public', { fileName: 'notes/x.md' })).toBe(before);
  });
});

describe('PDFs without metadata, through ingest and ask', () => {
  let app: Labbot;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-nometa-'));
    // Page 1 prints title, authors and a © year; the CreationDate says 2026.
    writeFileSync(path.join(dir, 'dev200123.pdf'), await renderPaperPdf(paper({ yearAt: ['copyright'], titleWidth: 0.55 })));
    // Nothing printed about the year: only the Zotero file name has it.
    const other = {
      ...SHARMA,
      title: 'Potassium channels set fin size in adult zebrafish',
      authors: [
        { given: 'Min', family: 'Okafor' },
        { given: 'Ben', family: 'Lee' },
      ],
      year: 2019,
    };
    writeFileSync(
      path.join(dir, 'Okafor and Lee - 2019 - Potassium channels set fin size in adult zebrafish.pdf'),
      await renderPaperPdf(paper({ yearAt: [], citations: false, creationYear: 2025 }, 'x.pdf', other)),
    );
    app = await openTestApp({ env: { LLM: 'none' } });
    const summary = await app.ingest({ sourceId: 'papers', root: dir, kind: 'paper' });
    expect(summary.failed).toEqual([]);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('cites a 2022 paper with a 2026 CreationDate as 2022, and says each field came from the text', () => {
    const doc = [...app.catalog.docs()].find((d) => d.path === 'dev200123.pdf')!;
    expect(doc.year).toBe(2022);
    expect(doc.title).toBe(SHARMA.title);
    expect(doc.authors).toEqual(['Ana Sharma', 'Ben Lee', 'Chen Wu']);
    expect(doc.metaFrom).toMatchObject({ title: 'text', authors: 'text', year: 'text', doi: 'text' });
  });

  it('takes year and first author from a Zotero file name when page 1 prints no year', () => {
    const doc = [...app.catalog.docs()].find((d) => d.path.startsWith('Okafor'))!;
    expect(doc.year).toBe(2019);
    expect(doc.authors[0]).toBe('Min Okafor');
    expect(doc.metaFrom).toMatchObject({ year: 'file name', authors: 'text', title: 'text' });
  });

  it('answers "What did Sharma et al. 2022 find about fin length?" from that paper (it was refused: no Sharma 2022)', async () => {
    const r = await app.ask('What did Sharma et al. 2022 find about fin length?');
    expect(r.refused).toBe(false);
    expect(r.citations[0]?.title).toBe(SHARMA.title);
    expect(JSON.stringify(r.citations[0])).toMatch(/2022/);
    expect(JSON.stringify(r.citations[0])).not.toMatch(/2026/);
  });

  it('a generated shelf of dev-mix papers is read with the right first author and year', async () => {
    const shelf = generatePapers(4242, 12, DEV_MIX);
    let ok = 0;
    for (const p of shelf) {
      const meta = await inferred(p);
      if (meta.year === p.truth.year || p.layout.naming === 'zotero' || p.layout.naming === 'zotfile') ok += 1;
    }
    expect(ok).toBeGreaterThanOrEqual(11);
  });
});
