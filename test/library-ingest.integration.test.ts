// Library bibliographies in folder and git sources, through every way in: an in-process ingest
// (the CLI's path), serve's start-up indexing, the queue worker after a webhook that names only
// the library file, and a git push that changes only the library. One library describes many
// documents (matched by attached file name, DOI, citation key or title); a per-file sidecar still
// wins; editing one entry re-indexes only the document it describes; access claims of library
// entries go through the one access rule, and a library that cannot be read keeps the documents in
// its scope out. Real Chroma, Redis, BullMQ and git.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { libraryParseCount } from '../src/ingest/metadata/library.ts';
import { enqueueSync } from '../src/queue/jobs.ts';
import type { SyncResult } from '../src/queue/sync-source.ts';
import { startServe, type Running } from '../src/serve.ts';
import type { Labbot } from '../src/app.ts';
import { betterBibtex, zoteroCslJson, zoteroRis, type LibraryPaper } from './fixtures/libraries.ts';
import { renderPaperPdf, type GeneratedPaper, type PaperLayout } from './fixtures/papers.ts';
import { openTestApp, testEnv } from './helpers/app.ts';
import { createGitWiki, genericChange, githubPush } from './helpers/git-wiki.ts';
import { waitFor } from './helpers/wait.ts';

const SECRET = 'library-secret-0123';

const LAYOUT: PaperLayout = {
  columns: 1,
  font: 'times',
  titleSize: 18,
  titleBold: true,
  titleCentered: false,
  titleWidth: 0.8,
  above: [],
  journalLineAtFoot: false,
  authorStyle: 'full',
  affiliations: 'none',
  yearAt: [],
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

/** A PDF whose page 1 prints a title, authors and its DOI but no year; its CreationDate is 2026. */
async function pdf(p: LibraryPaper, marker: string): Promise<Uint8Array> {
  const truth: GeneratedPaper['truth'] = {
    title: `Printed title of ${marker}`,
    authors: p.authors.map(([given, family]) => ({ given, family })),
    year: p.year,
    journal: p.journal,
    doi: p.doi ?? '10.9999/none',
    topic: 'fin regeneration',
    findings: [`The ${marker} result is reported here.`, 'A second sentence.', 'A third sentence.'],
    abstract: `We report the ${marker} result in zebrafish fins.`,
  };
  return renderPaperPdf({ truth, layout: LAYOUT, fileName: 'x.pdf', key: 'k' });
}

const PAPERS: LibraryPaper[] = [
  {
    key: 'sharma2022',
    title: 'Loss of kcnk5b lengthens zebrafish fins',
    authors: [
      ['Ana', 'Sharma'],
      ['Ben', 'Lee'],
      ['Chen', 'Wu'],
    ],
    year: 2022,
    journal: 'Development',
    doi: '10.1242/dev.200123',
    file: 'Sharma et al. - 2022 - Loss of kcnk5b lengthens zebrafish fins.pdf',
  },
  {
    key: 'okafor2019',
    title: 'Potassium channels set fin size',
    authors: [['Min', 'Okafor']],
    year: 2019,
    journal: 'eLife',
    doi: '10.7554/eLife.61234',
  },
  {
    key: 'weber2020',
    title: 'Hypoxia and p53 in cultured cells',
    authors: [
      ['Lena', 'Weber'],
      ['Kofi', 'Mensah'],
    ],
    year: 2020,
    journal: 'J Cell Sci',
  },
  {
    key: 'novak2021',
    title: 'Fin rays in the sub folder',
    authors: [['Petra', 'Novak']],
    year: 2021,
    journal: 'Dev Biol',
    file: 'novak-fin-rays.pdf',
  },
];
// sharma: by attached file name; okafor: by the DOI its page 1 prints; weber: by citation key; novak: in papers/sub/.
const FILES: Record<string, [LibraryPaper, string]> = {
  'papers/Sharma et al. - 2022 - Loss of kcnk5b lengthens zebrafish fins.pdf': [PAPERS[0], 'SHARMAMARK'],
  'papers/download (3).pdf': [PAPERS[1], 'OKAFORMARK'],
  'papers/weber2020.pdf': [PAPERS[2], 'WEBERMARK'],
  'papers/sub/novak-fin-rays.pdf': [PAPERS[3], 'NOVAKMARK'],
};

async function writeLab(root: string): Promise<void> {
  mkdirSync(path.join(root, 'papers', 'sub'), { recursive: true });
  mkdirSync(path.join(root, 'protocols'), { recursive: true });
  for (const [rel, [p, marker]] of Object.entries(FILES)) writeFileSync(path.join(root, rel), await pdf(p, marker));
  writeFileSync(path.join(root, 'papers', 'library.bib'), betterBibtex(PAPERS));
  // Outside the library's folder: never described by it, even with a matching name.
  writeFileSync(path.join(root, 'protocols', 'weber2020.md'), '# Western blot\n\nThe PROTOCOLMARK protocol.\n');
}

const docAt = (app: Labbot, rel: string) => [...app.catalog.docs()].find((d) => d.path === rel);

describe('library bibliographies through an in-process ingest', () => {
  let app: Labbot;
  let root: string;
  const ingest = () => app.ingest({ sourceId: 'lab', root, kind: 'paper' });
  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'labbot-library-'));
    await writeLab(root);
    app = await openTestApp({ env: { LLM: 'none' } });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('one library.bib beside the PDFs describes them all (it used to be skipped: "metadata file with no document of the same name")', async () => {
    const s = await ingest();
    expect(s.failed).toEqual([]);
    expect(s.skipped.filter((o) => o.path.endsWith('library.bib'))).toEqual([]);
    const sharma = docAt(app, 'papers/Sharma et al. - 2022 - Loss of kcnk5b lengthens zebrafish fins.pdf')!;
    expect(sharma).toMatchObject({
      title: 'Loss of kcnk5b lengthens zebrafish fins',
      authors: ['Ana Sharma', 'Ben Lee', 'Chen Wu'],
      year: 2022,
      journal: 'Development',
    });
    expect(sharma.metaFrom).toMatchObject({ title: 'papers/library.bib (sharma2022)', year: 'papers/library.bib (sharma2022)' });
    // Matched by the DOI printed on page 1; its file name says nothing.
    expect(docAt(app, 'papers/download (3).pdf')).toMatchObject({
      title: 'Potassium channels set fin size',
      year: 2019,
      fileDoi: '10.7554/eLife.61234',
    });
    expect(docAt(app, 'papers/weber2020.pdf')).toMatchObject({ title: 'Hypoxia and p53 in cultured cells', year: 2020 });
    expect(docAt(app, 'papers/sub/novak-fin-rays.pdf')).toMatchObject({ title: 'Fin rays in the sub folder', year: 2021 });
    // A library describes the documents in its folder and below only.
    expect(docAt(app, 'protocols/weber2020.md')?.title).toBe('Western blot');
    // Not the CreationDate (2026) for anyone.
    expect([...app.catalog.docs()].map((d) => d.year)).not.toContain(2026);
  });

  it('re-ingesting is idempotent, and editing one entry re-indexes only the document it describes', async () => {
    expect((await ingest()).documents).toEqual({ indexed: 0, unchanged: 5, removed: 0 });
    const edited = PAPERS.map((p) => (p.key === 'weber2020' ? { ...p, title: 'Hypoxia and p53 in cultured cells, corrected' } : p));
    writeFileSync(path.join(root, 'papers', 'library.bib'), betterBibtex(edited));
    const s = await ingest();
    expect(s.documents).toEqual({ indexed: 1, unchanged: 4, removed: 0 });
    expect(s.outcomes.find((o) => o.status === 'indexed')?.path).toBe(path.join(root, 'papers', 'weber2020.pdf'));
    expect(docAt(app, 'papers/weber2020.pdf')?.title).toBe('Hypoxia and p53 in cultured cells, corrected');
  });

  it('a per-file sidecar wins over the library; the library fills what it lacks', async () => {
    writeFileSync(path.join(root, 'papers', 'weber2020.yaml'), 'title: The sidecar title\n');
    await ingest();
    const weber = docAt(app, 'papers/weber2020.pdf')!;
    expect(weber.title).toBe('The sidecar title');
    expect(weber.year).toBe(2020);
    expect(weber.metaFrom).toMatchObject({ title: 'weber2020.yaml', year: 'papers/library.bib (weber2020)' });
    rmSync(path.join(root, 'papers', 'weber2020.yaml'));
  });

  it('CSL-JSON (with issued.date-parts) and RIS libraries; a document matched twice says so', async () => {
    writeFileSync(path.join(root, 'library.json'), zoteroCslJson(PAPERS));
    await ingest();
    // The CSL library at the root also describes papers/: sharma is matched by file name there and by title here.
    const sharma = docAt(app, 'papers/Sharma et al. - 2022 - Loss of kcnk5b lengthens zebrafish fins.pdf')!;
    expect(sharma.metaFrom?.title).toBe('papers/library.bib (sharma2022)');
    expect(sharma.metaNotes?.[0]).toMatch(
      /^matched by 2 library entries: papers\/library\.bib \(sharma2022, by file name\); library\.json \(Loss of kcnk5b lengthens zebrafish fins, by DOI\)/,
    );
    rmSync(path.join(root, 'papers', 'library.bib'));
    await ingest();
    expect(docAt(app, 'papers/download (3).pdf')).toMatchObject({
      year: 2019,
      metaFrom: { year: 'library.json (Potassium channels set fin size)' },
    });
    rmSync(path.join(root, 'library.json'));
    writeFileSync(path.join(root, 'papers', 'refs.ris'), zoteroRis(PAPERS));
    await ingest();
    expect(docAt(app, 'papers/download (3).pdf')).toMatchObject({
      title: 'Potassium channels set fin size',
      year: 2019,
      metaFrom: { title: 'papers/refs.ris (Potassium channels set fin size)' },
    });
    rmSync(path.join(root, 'papers', 'refs.ris'));
    // Without any library the metadata falls back to what page 1 says, and never to CreationDate.
    await ingest();
    expect(docAt(app, 'papers/download (3).pdf')).toMatchObject({ title: 'Printed title of OKAFORMARK', metaFrom: { title: 'text' } });
    expect(docAt(app, 'papers/download (3).pdf')?.year).toBeUndefined();
    writeFileSync(path.join(root, 'papers', 'library.bib'), betterBibtex(PAPERS));
    await ingest();
  });

  it('a CSL-JSON array beside its PDF is its sidecar (the PDF used to fail: "JSON is not an object")', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-csl-sidecar-'));
    writeFileSync(path.join(dir, 'paper.pdf'), await pdf(PAPERS[2], 'CSLSIDE'));
    writeFileSync(path.join(dir, 'paper.json'), zoteroCslJson([PAPERS[2]]));
    const s = await app.ingest({ sourceId: 'csl', root: dir });
    expect(s.failed).toEqual([]);
    expect(docAt(app, 'paper.pdf')).toMatchObject({
      title: 'Hypoxia and p53 in cultured cells',
      year: 2020,
      authors: ['Lena Weber', 'Kofi Mensah'],
      metaFrom: { year: 'paper.json' },
    });
  });
});

describe('access from library entries, and libraries that cannot be read', () => {
  let app: Labbot;
  beforeAll(async () => {
    app = await openTestApp({ env: { LLM: 'none' } });
  });
  afterAll(async () => {
    await app?.close();
  });
  const folder = (files: Record<string, string>) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-libaccess-'));
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      writeFileSync(path.join(dir, rel), text);
    }
    return dir;
  };
  const doc = (n: number) => `The LIBACCESS${n} note.\n`;

  it("an entry's access field or Extra line puts its document in that group; nothing else in the folder moves", async () => {
    const dir = folder({
      'papers/a.md': doc(1),
      'papers/b.md': doc(2),
      'papers/c.md': doc(3),
      'papers/library.bib': `@article{a, title={A}, access={Pi-Only}}\n@article{b, title={B}, note={tex.access: grants}}\n`,
    });
    const s = await app.ingest({ sourceId: 'acc1', root: dir });
    expect(s.failed).toEqual([]);
    const byPath = (p: string) => [...app.catalog.docs()].find((d) => d.source === 'acc1' && d.path === p);
    expect(byPath('papers/a.md')?.access).toBe('pi-only');
    expect(byPath('papers/b.md')?.access).toBe('grants');
    expect(byPath('papers/c.md')?.access).toBe('public');
    expect(app.catalog.lexicalSearch(['public'], 'LIBACCESS1', 3)).toEqual([]);
  });

  it('refuses a document whose library entry disagrees with its sidecar, or which two entries place in different groups', async () => {
    const dir = folder({
      'p/a.md': doc(4),
      'p/a.yaml': 'access: public\n',
      'p/b.md': doc(5),
      'p/library.bib': '@article{a, title={A}, access={pi-only}}\n@article{b, title={B}, access={pi-only}}\n',
      'library.json': JSON.stringify([{ id: 'b', title: 'B again', access: 'grants' }]),
    });
    const s = await app.ingest({ sourceId: 'acc2', root: dir });
    const reason = (rel: string) => s.failed.find((f) => f.path === path.join(dir, rel))?.reason;
    expect(reason('p/a.md')).toMatch(/access disagrees: a\.yaml says "public", p\/library\.bib \(a\) says "pi-only"/);
    expect(reason('p/b.md')).toMatch(/access disagrees: p\/library\.bib \(b\) says "pi-only", library\.json \(b\) says "grants"/);
    expect(app.catalog.lexicalSearch(['public', 'pi-only', 'grants'], 'LIBACCESS4', 3)).toEqual([]);
    expect(app.catalog.lexicalSearch(['public', 'pi-only', 'grants'], 'LIBACCESS5', 3)).toEqual([]);
  });

  it('fails closed: a library that cannot be read where it could carry access keeps every document in its scope out, and only those', async () => {
    const outside = mkdtempSync(path.join(os.tmpdir(), 'labbot-libout-'));
    writeFileSync(path.join(outside, 'library.bib'), '@article{x, title={X}, access={pi-only}}\n');
    const dir = folder({
      'broken/x.md': doc(6),
      'broken/library.bib': '@article{x, title={X}, access={pi-only}\n@article{y, title={unclosed',
      'json/x.md': doc(7),
      'json/library.json': '[{"id": "x", "access": "pi-only"},]',
      'ris/x.md': doc(8),
      'ris/library.ris': 'TY  - JOUR\nID  - x\nM2  - access: pi-only\n',
      'link/x.md': doc(9),
      'harmless/x.md': doc(10),
      'harmless/library.bib': '@article{y, title={Open access to fins}\n',
      'harmless/package.json': '{"name": "not a library", "access": "whatever"}',
      'other/x.md': doc(11),
    });
    symlinkSync(path.join(outside, 'library.bib'), path.join(dir, 'link', 'library.bib'));
    const s = await app.ingest({ sourceId: 'acc3', root: dir });
    const reason = (rel: string) => s.failed.find((f) => f.path === path.join(dir, rel))?.reason;
    expect(reason('broken/x.md')).toMatch(/broken\/library\.bib cannot be read .*not indexed, since its access group cannot be known/);
    expect(reason('json/x.md')).toMatch(/json\/library\.json cannot be read \(invalid JSON/);
    expect(reason('ris/x.md')).toMatch(/ris\/library\.ris cannot be read \(record 1 has no "ER" line/);
    expect(reason('link/x.md')).toMatch(/link\/library\.bib cannot be read \(symbolic link; not followed\)/);
    for (const n of [6, 7, 8, 9]) expect(app.catalog.lexicalSearch(['public', 'pi-only'], `LIBACCESS${n}`, 3)).toEqual([]);
    // What could not be read there holds no access field: only its metadata is lost, with a note.
    const harmless = [...app.catalog.docs()].find((d) => d.source === 'acc3' && d.path === 'harmless/x.md');
    expect(harmless?.access).toBe('public');
    expect(harmless?.metaNotes?.[0]).toMatch(/harmless\/library\.bib: 1 part\(s\) could not be read/);
    expect([...app.catalog.docs()].find((d) => d.source === 'acc3' && d.path === 'other/x.md')?.access).toBe('public');
  });
});

describe('library changes through the queue: folder webhooks and git pushes', () => {
  let running: Running;
  let folder: string;
  let delivery = 0;
  let wiki: ReturnType<typeof createGitWiki>;
  const post = (source: string, req: { headers: Record<string, string>; body: string }) =>
    fetch(`${running.url}/hooks/wiki/${source}`, { method: 'POST', headers: req.headers, body: req.body });
  const settle = () =>
    waitFor(
      async () =>
        Object.values(await running.queue!.queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized')).every((n) => n === 0),
      60_000,
      'queue idle',
    );
  const hashes = async (source: string) =>
    Object.fromEntries((await running.app.records!.bySource(source)).map((d) => [d.path, d.contentHash]));
  const syncResult = async (source: string, data: { full?: boolean; changed?: string[] } = {}): Promise<SyncResult> => {
    const id = await enqueueSync(running.queue!.queue, { source, reason: 'test', ...data });
    await waitFor(async () => (await running.queue!.queue.getJob(id))?.finishedOn !== undefined, 30_000, 'sync done');
    return (await running.queue!.queue.getJob(id))!.returnvalue as SyncResult;
  };

  beforeAll(async () => {
    folder = mkdtempSync(path.join(os.tmpdir(), 'labbot-libqueue-'));
    await writeLab(folder);
    wiki = createGitWiki({ 'home.md': '# Home\n\nThe GITHOME page.\n' });
    mkdirSync(path.join(wiki.work, 'lit'));
    for (const [rel, [p, marker]] of Object.entries(FILES))
      writeFileSync(path.join(wiki.work, rel.replace(/^papers\//, 'lit/').replace(/\/sub\//, '/')), await pdf(p, `GIT${marker}`));
    wiki.write('lit/library.bib', betterBibtex(PAPERS));
    wiki.commitAndPush('papers and their library');
    const env = testEnv({
      env: { LLM: 'none', LABBOT_PORT: '0' },
      fileConfig: {
        sources: [
          { id: 'lab', type: 'folder', path: folder, secret: SECRET, kind: 'paper' },
          { id: 'git', type: 'git', url: wiki.remote, branch: 'main', secret: SECRET },
        ],
        queue: { attempts: 2, backoffMs: 200 },
        access: { default: 'public', channels: { CPI: ['pi-only'] } },
      },
    });
    running = await startServe(loadConfig(env), createLogger('silent'));
  }, 120_000);
  afterAll(async () => {
    await running?.close();
  });

  it("serve indexes the library's metadata at start, and a sync computes the same hashes (nothing to do, the DOI-matched PDF included)", async () => {
    const rec = await running.app.records!.atPath('lab', 'papers/download (3).pdf');
    expect(rec?.fileDoi).toBe('10.7554/eLife.61234');
    expect(docAt(running.app, 'papers/download (3).pdf')?.year).toBe(2019);
    const r = await syncResult('lab', { full: true });
    expect(r).toMatchObject({ index: 0, remove: 0, unchanged: 5 });
  });

  it('a webhook naming only library.bib re-indexes just the document whose entry changed', async () => {
    const before = await hashes('lab');
    const edited = PAPERS.map((p) =>
      p.key === 'okafor2019' ? { ...p, year: 2018, title: 'Potassium channels set fin size (2018 erratum)' } : p,
    );
    writeFileSync(path.join(folder, 'papers', 'library.bib'), betterBibtex(edited));
    const res = await post('lab', genericChange(SECRET, { changed: ['papers/library.bib'] }, `lib-${++delivery}`));
    expect(res.status).toBe(202);
    await waitFor(async () => docAt(running.app, 'papers/download (3).pdf')?.year === 2018, 30_000, 'okafor re-indexed');
    await settle();
    const after = await hashes('lab');
    const changed = Object.keys(after).filter((k) => after[k] !== before[k]);
    expect(changed).toEqual(['papers/download (3).pdf']);
    expect(docAt(running.app, 'papers/download (3).pdf')?.title).toBe('Potassium channels set fin size (2018 erratum)');
  });

  it('an access field added to one entry moves that document only, through the same webhook', async () => {
    const restricted = PAPERS.map((p) => (p.key === 'weber2020' ? { ...p, access: 'pi-only' } : p));
    writeFileSync(path.join(folder, 'papers', 'library.bib'), betterBibtex(restricted));
    expect((await post('lab', genericChange(SECRET, { changed: ['papers/library.bib'] }, `lib-${++delivery}`))).status).toBe(202);
    await waitFor(
      async () => (await running.app.records!.atPath('lab', 'papers/weber2020.pdf'))?.access === 'pi-only',
      30_000,
      'weber moved',
    );
    await settle();
    await waitFor(async () => running.app.catalog.lexicalSearch(['public'], 'WEBERMARK', 3).length === 0, 15_000, 'gone from public');
    expect(running.app.catalog.lexicalSearch(['pi-only'], 'WEBERMARK', 3).length).toBeGreaterThan(0);
    expect((await running.app.records!.atPath('lab', 'papers/weber2020.pdf'))?.access).toBe('pi-only');
    expect((await running.app.records!.atPath('lab', 'papers/download (3).pdf'))?.access).toBe('public');
  });

  it('a library broken where it could carry access stops the documents in its scope at the next sync, with the reason on the dashboard', async () => {
    writeFileSync(path.join(folder, 'papers', 'library.bib'), `${betterBibtex(PAPERS)}\n@article{late, title={Late}, access={pi-only}\n`);
    const r = await syncResult('lab', { changed: ['papers/library.bib'] });
    expect(r.index).toBe(4);
    await settle();
    const problems = await running.app.records!.problems('lab');
    expect(problems.find((p) => p.path === 'papers/weber2020.pdf')?.reason).toMatch(/papers\/library\.bib cannot be read/);
    expect(problems.find((p) => p.path === 'protocols/weber2020.md')).toBeUndefined();
    writeFileSync(path.join(folder, 'papers', 'library.bib'), betterBibtex(PAPERS));
    await syncResult('lab', { changed: ['papers/library.bib'] });
    await settle();
    expect((await running.app.records!.problems('lab')).filter((p) => p.path.startsWith('papers/'))).toEqual([]);
  });

  it('a 5,000-entry library is parsed once for a sync and all the document jobs it makes, not once per document', async () => {
    const big: LibraryPaper[] = Array.from({ length: 5000 }, (_, i) => ({
      key: `big${i}`,
      title: `Entry number ${i} of a large lab library`,
      authors: [['Ana', `Family${i}`]],
      year: 2000 + (i % 24),
      journal: 'J',
      file: `big-${i}.md`,
    }));
    mkdirSync(path.join(folder, 'big'));
    for (let i = 0; i < 12; i++) writeFileSync(path.join(folder, 'big', `big-${i * 400}.md`), `The BIGLIB${i} note.\n`);
    writeFileSync(path.join(folder, 'big', 'library.bib'), betterBibtex(big));
    const before = libraryParseCount();
    const r = await syncResult('lab', { changed: ['big/library.bib'] });
    expect(r.index).toBe(12);
    await settle();
    expect(libraryParseCount() - before).toBe(1);
    expect(docAt(running.app, 'big/big-400.md')).toMatchObject({
      title: 'Entry number 400 of a large lab library',
      authors: ['Ana Family400'],
    });
  });

  it('a git push that changes only the library re-indexes the document whose entry changed', async () => {
    await waitFor(
      async () => docAt(running.app, 'lit/weber2020.pdf')?.title === 'Hypoxia and p53 in cultured cells',
      30_000,
      'git source indexed',
    );
    const before = await hashes('git');
    const edited = PAPERS.map((p) => (p.key === 'sharma2022' ? { ...p, journal: 'Development (Cambridge)' } : p));
    wiki.write('lit/library.bib', betterBibtex(edited));
    const head = wiki.commitAndPush('fix a journal name');
    expect((await post('git', githubPush(SECRET, { ref: 'refs/heads/main' }, `git-${++delivery}`))).status).toBe(202);
    await waitFor(async () => (await running.app.records!.sourceState('git')).commit === head, 30_000, 'git synced');
    await waitFor(
      async () =>
        docAt(running.app, 'lit/Sharma et al. - 2022 - Loss of kcnk5b lengthens zebrafish fins.pdf')?.journal === 'Development (Cambridge)',
      30_000,
      'sharma re-indexed',
    );
    await settle();
    const after = await hashes('git');
    expect(Object.keys(after).filter((k) => after[k] !== before[k])).toEqual([
      'lit/Sharma et al. - 2022 - Loss of kcnk5b lengthens zebrafish fins.pdf',
    ]);
  });
});
