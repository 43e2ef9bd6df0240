// Library bibliographies as Zotero, Better BibTeX and other reference managers export them, read
// into entries with the keys documents are matched by, and matched against documents.
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { libraryLoader } from '../src/ingest/sources/libraries.ts';
import { readBibLibrary } from '../src/ingest/metadata/bibtex.ts';
import { cslYear, readCslLibrary } from '../src/ingest/metadata/csl.ts';
import { metaFromFileName } from '../src/ingest/metadata/file-name.ts';
import { bibFileNames } from '../src/ingest/metadata/library-entry.ts';
import { libraryFormat, libraryParseCount, mayCarryAccess, parseLibrary } from '../src/ingest/metadata/library.ts';
import { matchLibraries, type ScopedLibrary } from '../src/ingest/metadata/library-match.ts';
import { readRisLibrary } from '../src/ingest/metadata/ris.ts';
import { parseSidecar } from '../src/ingest/metadata/sidecar.ts';
import { betterBibtex, zoteroCslJson, zoteroRis, type LibraryPaper } from './fixtures/libraries.ts';

const PAPERS: LibraryPaper[] = [
  {
    key: 'sharma2022',
    title: 'Loss of kcnk5b lengthens zebrafish fins through bioelectric signalling',
    authors: [
      ['Ana', 'Sharma'],
      ['Ben', 'Lee'],
      ['Chen', 'Wu'],
    ],
    year: 2022,
    journal: 'Development',
    doi: '10.1242/dev.200123',
    file: 'Sharma et al. - 2022 - Loss of kcnk5b lengthens zebrafish fins through bioelectric signalling.pdf',
    keywords: ['zebrafish', 'fin regeneration'],
  },
  {
    key: 'okafor2023',
    title: 'USP7 stabilises p53 under hypoxia',
    authors: [
      ['Ada', 'Okafor'],
      ['Min', 'Lee'],
    ],
    year: 2023,
    journal: 'Cell Reports',
    doi: '10.1016/j.celrep.2023.112001',
    extra: 'access: pi-only',
  },
  {
    key: 'weber2020',
    title: 'Hypoxia and p53 in cultured cells',
    authors: [['Lena', 'Weber']],
    year: 2020,
    journal: 'J Cell Sci',
  },
];

describe('library formats', () => {
  it('reads a Better BibTeX export: entries, file names from absolute paths, Extra lines in note', () => {
    const lib = readBibLibrary(betterBibtex(PAPERS));
    expect(lib.broken).toEqual([]);
    expect(lib.entries.map((e) => e.key)).toEqual(['sharma2022', 'okafor2023', 'weber2020']);
    const [sharma, okafor] = lib.entries;
    expect(sharma.meta).toMatchObject({
      title: PAPERS[0].title,
      authors: ['Ana Sharma', 'Ben Lee', 'Chen Wu'],
      year: 2022,
      journal: 'Development',
      doi: '10.1242/dev.200123',
      keywords: ['zebrafish', 'fin regeneration'],
      kind: 'paper',
    });
    expect(sharma.files).toEqual([PAPERS[0].file!.toLowerCase()]);
    expect(okafor.meta.access).toBe('pi-only');
    expect(lib.entries[2].meta.access).toBeUndefined();
  });

  it('reads the file field in the forms Zotero, Better BibTeX and JabRef write it', () => {
    expect(
      bibFileNames(
        'Full Text PDF:/home/ana/Zotero/storage/AB12/Sharma - 2022 - Loss.pdf:application/pdf;Snapshot:/home/ana/Zotero/storage/AB12/index.html:text/html',
      ),
    ).toEqual(['sharma - 2022 - loss.pdf', 'index.html']);
    expect(bibFileNames('Full Text PDF:C\\:\\\\Users\\\\ana\\\\Zotero\\\\storage\\\\AB12\\\\Sharma.pdf:application/pdf')).toEqual([
      'sharma.pdf',
    ]);
    expect(bibFileNames('/Users/ana/Zotero/storage/AB12/Sharma.pdf;/Users/ana/Zotero/storage/AB12/Supp.pdf')).toEqual([
      'sharma.pdf',
      'supp.pdf',
    ]);
    expect(bibFileNames(':Sharma2022.pdf:PDF')).toEqual(['sharma2022.pdf']);
    // Windows paths written by Zotero on Windows, from a .bib parsed for real.
    const lib = readBibLibrary(betterBibtex([PAPERS[0]], { windows: true }));
    expect(lib.entries[0].files).toEqual([PAPERS[0].file!.toLowerCase()]);
  });

  it('reads a Zotero CSL-JSON export: issued.date-parts (string years too), {family, given}, container-title, keyword, Extra in note', () => {
    const lib = readCslLibrary(zoteroCslJson(PAPERS));
    expect(lib.broken).toEqual([]);
    expect(lib.entries).toHaveLength(3);
    const [sharma, okafor] = lib.entries;
    expect(sharma.meta).toMatchObject({
      title: PAPERS[0].title,
      authors: ['Ana Sharma', 'Ben Lee', 'Chen Wu'],
      year: 2022,
      journal: 'Development',
      doi: '10.1242/dev.200123',
      keywords: ['zebrafish', 'fin regeneration'],
      kind: 'paper',
    });
    // Zotero's ids are item URIs, not citation keys.
    expect(sharma.key).toBeUndefined();
    expect(okafor.meta.access).toBe('pi-only');
    expect(cslYear({ 'date-parts': [[2021, 3]] })).toBe(2021);
    expect(cslYear({ raw: 'March 2019' })).toBe(2019);
    expect(cslYear({ literal: 'Spring 2018' })).toBe(2018);
    expect(cslYear({ 'date-parts': [[]] })).toBeUndefined();
  });

  it('reads a Zotero RIS export: AU lines, DA/PY dates, L1 file URLs, KW, Extra in M2, CRLF', () => {
    const lib = readRisLibrary(zoteroRis(PAPERS));
    expect(lib.broken).toEqual([]);
    expect(lib.entries).toHaveLength(3);
    expect(lib.entries[0].meta).toMatchObject({
      title: PAPERS[0].title,
      authors: ['Ana Sharma', 'Ben Lee', 'Chen Wu'],
      year: 2022,
      journal: 'Development',
      doi: '10.1242/dev.200123',
      keywords: ['zebrafish', 'fin regeneration'],
    });
    expect(lib.entries[0].files).toEqual([PAPERS[0].file!.toLowerCase()]);
    expect(lib.entries[1].meta.access).toBe('pi-only');
    expect(readRisLibrary('TY  - JOUR\nTI  - Cut off\nM2  - access: pi-only\n').broken[0].reason).toMatch(/no "ER"/);
    // A record starts with its type line: tags before any TY belong to no record.
    expect(readRisLibrary('TI  - A title\nAU  - Lee, Kim\n').unreadable).toMatch(/no records/);
    expect(readRisLibrary('not a ris file').unreadable).toMatch(/no records/);
  });

  it("tells a CSL-JSON library from another program's JSON, and says when unreadable text could carry access", () => {
    expect(libraryFormat('library.json', '[{"title": "x"}]')).toBe('csl-json');
    expect(libraryFormat('package.json', '{"name": "wiki"}')).toBeUndefined();
    expect(libraryFormat('refs.bib')).toBe('bibtex');
    expect(libraryFormat('refs.RIS')).toBe('ris');
    expect(mayCarryAccess('bibtex', '@article{x, title={A}, access={pi-only}')).toBe(true);
    expect(mayCarryAccess('bibtex', '@article{x, note={tex.access: pi-only}')).toBe(true);
    expect(mayCarryAccess('bibtex', '@article{x, title={Open access to care}')).toBe(false);
    expect(mayCarryAccess('csl-json', '[{"title": "x", "access": "pi-only",]')).toBe(true);
    expect(mayCarryAccess('csl-json', '[{"note": "access: pi-only"},]')).toBe(true);
    expect(mayCarryAccess('csl-json', '[{"note": "x\\naccess: pi-only"},]')).toBe(true);
    expect(mayCarryAccess('csl-json', '[{"title": "Open access publishing"},]')).toBe(false);
    expect(mayCarryAccess('ris', 'TY  - JOUR\nM2  - access: pi-only')).toBe(true);
    expect(mayCarryAccess('ris', 'TY  - JOUR\nTI  - Open access')).toBe(false);
  });

  it('parses a library once per content, however many documents ask', () => {
    const text = `${betterBibtex(PAPERS)}\n% once\n`;
    const before = libraryParseCount();
    const a = parseLibrary('bibtex', text);
    for (let i = 0; i < 50; i++) expect(parseLibrary('bibtex', text)).toBe(a);
    expect(libraryParseCount() - before).toBe(1);
    parseLibrary('bibtex', `${text}% edited\n`);
    expect(libraryParseCount() - before).toBe(2);
  });

  it('reads Zotero file names: "et al.", "and", one author, ZotFile underscores; not other names', () => {
    expect(metaFromFileName('Sharma et al. - 2022 - Loss of kcnk5b lengthens….pdf')).toEqual({
      authors: ['Sharma'],
      etAl: true,
      year: 2022,
      title: 'Loss of kcnk5b lengthens',
    });
    expect(metaFromFileName('Sharma and Lee - 2022 - Fin length.pdf')).toEqual({
      authors: ['Sharma', 'Lee'],
      etAl: false,
      year: 2022,
      title: 'Fin length',
    });
    expect(metaFromFileName('Sharma - 2022 - Fin length.pdf')).toMatchObject({ authors: ['Sharma'], year: 2022 });
    expect(metaFromFileName('van der Berg et al. - 2019 - Title.pdf')).toMatchObject({ authors: ['van der Berg'], year: 2019 });
    expect(metaFromFileName('Sharma_2022_Fin length.pdf')).toMatchObject({ authors: ['Sharma'], year: 2022, title: 'Fin length' });
    expect(metaFromFileName('weber2020-hypoxia-p53.pdf')).toBeUndefined();
    expect(metaFromFileName('Lab meeting notes - 2023 - March.pdf')).toBeUndefined();
    expect(metaFromFileName('2022 - Annual report.pdf')).toBeUndefined();
  });
});

describe('matching library entries to documents', () => {
  const lib = (text: string, origin = 'papers/library.bib'): ScopedLibrary => ({
    origin,
    library: parseLibrary(libraryFormat(origin, text)!, text),
  });
  const bib = lib(betterBibtex(PAPERS));

  it("matches by attached file name, DOI, citation key and title (with the Zotero name's year and author agreeing)", () => {
    const byFile = matchLibraries({ rel: `papers/${PAPERS[0].file}` }, [bib]);
    expect(byFile.layers[0]).toMatchObject({ origin: 'papers/library.bib (sharma2022)', complete: true, meta: { year: 2022 } });
    const byDoi = matchLibraries({ rel: 'papers/download (3).pdf', fileDoi: '10.1016/J.CELREP.2023.112001' }, [bib]);
    expect(byDoi.layers[0].origin).toBe('papers/library.bib (okafor2023)');
    expect(matchLibraries({ rel: 'papers/weber2020.pdf' }, [bib]).layers[0].origin).toBe('papers/library.bib (weber2020)');
    expect(matchLibraries({ rel: 'papers/weber2020-hypoxia-p53.pdf' }, [bib]).layers[0].origin).toBe('papers/library.bib (weber2020)');
    expect(matchLibraries({ rel: 'papers/Hypoxia and p53 in cultured cells.pdf' }, [bib]).layers[0].origin).toBe(
      'papers/library.bib (weber2020)',
    );
    // A Zotero name cut at 100 characters matches by prefix, if its year agrees.
    const csl = lib(zoteroCslJson(PAPERS), 'papers/library.json');
    expect(
      matchLibraries({ rel: 'papers/Sharma et al. - 2022 - Loss of kcnk5b lengthens zebrafish fins.pdf' }, [csl]).layers[0].origin,
    ).toMatch(/^papers\/library\.json \(Loss of kcnk5b/);
    expect(matchLibraries({ rel: 'papers/Sharma et al. - 2019 - Loss of kcnk5b lengthens zebrafish fins.pdf' }, [csl]).layers).toEqual([]);
    expect(matchLibraries({ rel: 'papers/Okafor et al. - 2022 - Loss of kcnk5b lengthens zebrafish fins.pdf' }, [csl]).layers).toEqual([]);
    expect(matchLibraries({ rel: 'papers/unrelated.pdf' }, [bib])).toEqual({ layers: [], notes: [], signature: '' });
  });

  it("a document matched twice takes the strongest match, keeps the others' access claims, and says so", () => {
    const csl = lib(zoteroCslJson(PAPERS), 'library.json');
    const m = matchLibraries({ rel: 'papers/okafor2023.pdf', fileDoi: '10.1016/j.celrep.2023.112001' }, [bib, csl]);
    expect(m.layers.map((l) => l.origin)).toEqual(['papers/library.bib (okafor2023)', 'library.json (USP7 stabilises p53 under hypoxia)']);
    expect(m.layers[1].meta).toEqual({ access: 'pi-only' });
    expect(m.notes[0]).toMatch(
      /^matched by 2 library entries: papers\/library\.bib \(okafor2023, by DOI\); library\.json \(USP7 stabilises p53 under hypoxia, by DOI\)/,
    );
  });

  it('the signature holds only the matched entries: editing another entry leaves it alone', () => {
    const before = matchLibraries({ rel: 'papers/weber2020.pdf' }, [bib]).signature;
    const edited = PAPERS.map((p) => (p.key === 'sharma2022' ? { ...p, title: `${p.title} (corrected)` } : p));
    expect(matchLibraries({ rel: 'papers/weber2020.pdf' }, [lib(betterBibtex(edited))]).signature).toBe(before);
    const own = PAPERS.map((p) => (p.key === 'weber2020' ? { ...p, year: 2021 } : p));
    expect(matchLibraries({ rel: 'papers/weber2020.pdf' }, [lib(betterBibtex(own))]).signature).not.toBe(before);
  });

  it('fails closed: a library that cannot be read, where what is unreadable could carry access, keeps every document in scope out', () => {
    const cases: [string, string][] = [
      ['papers/library.bib', `${betterBibtex(PAPERS)}\n@article{broken, title={Secret}, access={pi-only}\n`],
      ['papers/library.bib', '@article{broken, title={Secret}, note={access: pi-only}\n'],
      ['papers/library.json', '[{"title": "Secret", "access": "pi-only"},]'],
      ['papers/library.ris', 'TY  - JOUR\r\nTI  - Secret\r\nM2  - access: pi-only\r\n'],
    ];
    for (const [origin, text] of cases) {
      const m = matchLibraries({ rel: 'papers/anything.pdf' }, [lib(text, origin)]);
      expect(
        m.layers.find((l) => l.unreadable),
        origin,
      ).toMatchObject({ origin });
      expect(m.signature).toMatch(/^u:/m);
    }
    // Not readable at all (a link, too big): nothing is known of it.
    expect(
      matchLibraries({ rel: 'papers/x.pdf' }, [{ origin: 'papers/library.bib', error: 'symbolic link; not followed' }]).layers,
    ).toEqual([{ origin: 'papers/library.bib', meta: {}, unreadable: 'symbolic link; not followed' }]);
  });

  it('an unreadable part that cannot carry access costs only metadata, with a note on the documents it could describe', () => {
    const text = `${betterBibtex(PAPERS)}\n@article{broken, title={Open access to fins}\n`;
    const unmatched = matchLibraries({ rel: 'papers/other.pdf' }, [lib(text)]);
    expect(unmatched.layers).toEqual([]);
    expect(unmatched.notes[0]).toMatch(/papers\/library\.bib: 1 part\(s\) could not be read .*its metadata is missing/);
    const matched = matchLibraries({ rel: 'papers/weber2020.pdf' }, [lib(text)]);
    expect(matched.layers[0].origin).toBe('papers/library.bib (weber2020)');
    expect(matched.notes).toEqual([]);
    const json = matchLibraries({ rel: 'papers/other.pdf' }, [lib('[{"title": "x"},', 'refs.json')]);
    expect(json.layers).toEqual([]);
    expect(json.notes[0]).toMatch(/refs\.json: invalid JSON/);
  });
});

describe('CSL-JSON and RIS sidecars', () => {
  it('a CSL-JSON array beside its document is read (it used to make the document fail: "JSON is not an object")', () => {
    const one = zoteroCslJson([PAPERS[0]]);
    const r = parseSidecar('sharma.json', one, 'sharma.pdf');
    expect(r.unreadable).toBeUndefined();
    expect(r.meta).toMatchObject({ title: PAPERS[0].title, year: 2022, authors: ['Ana Sharma', 'Ben Lee', 'Chen Wu'] });
  });

  it('a sidecar with several entries gives the one that matches its document', () => {
    const r = parseSidecar('weber2020.bib', betterBibtex(PAPERS), 'weber2020.pdf');
    expect(r.meta.title).toBe('Hypoxia and p53 in cultured cells');
    expect(r.warnings).toEqual([]);
    const ris = parseSidecar('USP7 stabilises p53 under hypoxia.ris', zoteroRis(PAPERS), 'USP7 stabilises p53 under hypoxia.pdf');
    expect(ris.meta.title).toBe('USP7 stabilises p53 under hypoxia');
    expect(ris.meta.access).toBe('pi-only');
    expect(parseSidecar('x.ris', 'TY  - JOUR\nTI  - Cut\nM2  - access: pi-only\n').unreadable).toMatch(/invalid RIS/);
  });
});

describe('reading library files from a source', () => {
  it("reads each file once per run; a link or a file over the size limit comes back unreadable, another program's JSON as no library", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-libread-'));
    writeFileSync(path.join(dir, 'library.bib'), betterBibtex(PAPERS));
    writeFileSync(path.join(dir, 'package.json'), '{"name": "wiki"}');
    writeFileSync(path.join(dir, 'huge.ris'), 'TY  - JOUR\n'.repeat(50));
    symlinkSync(path.join(dir, 'library.bib'), path.join(dir, 'linked.bib'));
    const load = libraryLoader(dir, 400);
    expect(await load(path.join(dir, 'package.json'))).toBeUndefined();
    expect(await load(path.join(dir, 'gone.bib'))).toBeUndefined();
    expect(await load(path.join(dir, 'huge.ris'))).toMatchObject({
      origin: 'huge.ris',
      error: expect.stringMatching(/over the size limit/),
    });
    expect(await load(path.join(dir, 'linked.bib'))).toEqual({ origin: 'linked.bib', error: 'symbolic link; not followed' });
    const big = libraryLoader(dir, 1024 * 1024);
    const a = await big(path.join(dir, 'library.bib'));
    expect(a?.library?.entries).toHaveLength(3);
    expect(await big(path.join(dir, 'library.bib'))).toBe(a);
  });
});
