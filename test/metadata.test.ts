import { describe, expect, it } from 'vitest';
import { doiUrl, findDoi, familyName, normalizeDoi, normalizeMeta, shortAuthors, splitAuthors } from '../src/ingest/metadata/coerce.ts';
import { resolveMeta } from '../src/ingest/metadata/layers.ts';
import { parseSidecar } from '../src/ingest/metadata/sidecar.ts';

describe('normalizeMeta', () => {
  it('keeps well-formed values', () => {
    const { meta, warnings } = normalizeMeta({
      id: 'wb-protocol',
      title: 'Western blot',
      authors: ['Jane Smith', 'Kim Lee'],
      year: 2021,
      journal: 'Lab Methods',
      doi: '10.1234/abc.5',
      url: 'https://example.org/wb',
      kind: 'protocol',
      access: 'pi-only',
      updated: '2024-01-05',
      language: 'en',
    });
    expect(warnings).toEqual([]);
    expect(meta).toEqual({
      id: 'wb-protocol',
      title: 'Western blot',
      authors: ['Jane Smith', 'Kim Lee'],
      year: 2021,
      journal: 'Lab Methods',
      doi: '10.1234/abc.5',
      url: 'https://example.org/wb',
      kind: 'protocol',
      access: 'pi-only',
      updated: '2024-01-05',
      language: 'en',
    });
  });

  it('repairs wrong but clear types', () => {
    const { meta, warnings } = normalizeMeta({
      author: 'Jane Smith and Kim Lee',
      year: '2021',
      kind: 'Protocols',
      doi: 'https://doi.org/10.1234/ABC.5',
      updated: new Date(Date.UTC(2024, 0, 5)),
      id: 42,
      Access: 'Lab-Members',
    });
    expect(warnings).toEqual([]);
    expect(meta.authors).toEqual(['Jane Smith', 'Kim Lee']);
    expect(meta.year).toBe(2021);
    expect(meta.kind).toBe('protocol');
    expect(meta.doi).toBe('10.1234/ABC.5');
    expect(meta.updated).toBe('2024-01-05');
    expect(meta.id).toBe('42');
    expect(meta.access).toBe('lab-members');
  });

  it('takes the year from a YAML date and from a date field', () => {
    expect(normalizeMeta({ year: new Date(Date.UTC(2019, 5, 1)) }).meta.year).toBe(2019);
    expect(normalizeMeta({ date: new Date(Date.UTC(2018, 5, 1)) }).meta.year).toBe(2018);
    expect(normalizeMeta({ year: 'March 2020' }).meta.year).toBe(2020);
  });

  it('splits semicolon authors and turns "Last, First" items around', () => {
    expect(normalizeMeta({ authors: 'Smith, J.; Lee, K.' }).meta.authors).toEqual(['J. Smith', 'K. Lee']);
    expect(normalizeMeta({ authors: ['Smith, Jane', 'Kim Lee'] }).meta.authors).toEqual(['Jane Smith', 'Kim Lee']);
    expect(normalizeMeta({ authors: [{ given: 'Ada', family: 'Okafor' }] }).meta.authors).toEqual(['Ada Okafor']);
  });

  it('drops values it cannot understand, with a warning each', () => {
    const { meta, warnings } = normalizeMeta({
      kind: 'poster',
      year: 'soon',
      doi: 'not-a-doi',
      url: 'ftp://example.org/x',
      access: 'lab members',
      authors: 42,
      title: { nested: true },
    });
    // An unreadable access group is kept as a marker so ingest refuses the document (fail closed).
    expect(meta).toEqual({ invalidAccess: '"lab members"' });
    expect(warnings).toHaveLength(7);
    expect(warnings.join('\n')).toMatch(/unknown kind "poster"/);
    expect(warnings.join('\n')).toMatch(/"access": "lab members" is not a group name/);
    expect(warnings.join('\n')).toMatch(/"year": expected a year, got "soon"/);
  });

  it('ignores unrelated keys silently and uses "type" only when it names a kind', () => {
    expect(normalizeMeta({ layout: 'post', permalink: '/a/', type: 'post' })).toEqual({ meta: {}, warnings: [] });
    expect(normalizeMeta({ type: 'slides' }).meta.kind).toBe('slides');
  });

  it('reads subject terms from keywords, tags or MeSH, as a list or a separated string', () => {
    expect(normalizeMeta({ tags: ['western blot', 'p53', 'p53', ' '] }).meta.keywords).toEqual(['western blot', 'p53']);
    expect(normalizeMeta({ Keywords: 'CRISPR; HeLa, mitochondria' }).meta.keywords).toEqual(['CRISPR', 'HeLa', 'mitochondria']);
    expect(normalizeMeta({ mesh: ['Crohn Disease', 'Humans', 7] }).meta.keywords).toEqual(['Crohn Disease', 'Humans', '7']);
    const many = normalizeMeta({ tags: Array.from({ length: 500 }, (_, i) => `term number ${i}`) }).meta.keywords!;
    expect(many.join('; ').length).toBeLessThanOrEqual(1000);
    expect(many[0]).toBe('term number 0');
    const bad = normalizeMeta({ keywords: { a: 1 } });
    expect(bad.meta.keywords).toBeUndefined();
    expect(bad.warnings.join('\n')).toMatch(/"keywords": expected a list of terms/);
  });
});

describe('parseSidecar (.bib)', () => {
  const bib = `@string{jcb = "Journal of Cell Biology"}
% exported from Zotero
@article{smith2021,
  title = {{CRISPR} screens of {\\it mitochondrial} fission in {HeLa} cells},
  author = {Smith, Jane and M{\\"u}ller, Hans and van der Berg, Anna and {Imaging Core Facility}},
  year = 2021,
  journal = jcb,
  doi = {https://doi.org/10.1083/jcb.2021.0042},
  url = {https://example.org/smith2021},
}
@inproceedings{lee2019, title={Other}, author={Lee, Kim}, year={2019}, booktitle={Proc. Cell Imaging}}
`;

  it('reads the first entry with LaTeX and braces removed', () => {
    const { meta, warnings } = parseSidecar('paper.bib', bib);
    expect(meta.title).toBe('CRISPR screens of mitochondrial fission in HeLa cells');
    expect(meta.authors).toEqual(['Jane Smith', 'Hans Müller', 'Anna van der Berg', 'Imaging Core Facility']);
    expect(meta.year).toBe(2021);
    expect(meta.journal).toBe('Journal of Cell Biology');
    expect(meta.doi).toBe('10.1083/jcb.2021.0042');
    expect(meta.url).toBe('https://example.org/smith2021');
    expect(meta.kind).toBe('paper');
    expect(warnings).toEqual(['BibTeX file has 2 entries; using the first ("smith2021")']);
  });

  it('uses booktitle when there is no journal', () => {
    const { meta } = parseSidecar(
      'x.bib',
      '@inproceedings{k, title={T}, author={Lee, Kim and Wei, Li}, year={2019}, booktitle={Proc. {Cell} Imaging}}',
    );
    expect(meta).toMatchObject({ journal: 'Proc. Cell Imaging', authors: ['Kim Lee', 'Li Wei'], year: 2019 });
  });

  it('still reads the first entry when a later one is broken', () => {
    const { meta, warnings } = parseSidecar('x.bib', '@article{a, title={Good one}, year={2020}}\n@article{b, title={unclosed');
    expect(meta.title).toBe('Good one');
    expect(meta.year).toBe(2020);
    expect(warnings[0]).toMatch(/invalid BibTeX: entry "b"/);
  });

  it('reports a file that is not BibTeX instead of throwing', () => {
    const r = parseSidecar('x.bib', 'this is not bibtex {');
    expect(r.meta).toEqual({});
    expect(r.warnings.length).toBeGreaterThan(0);
  });
});

describe('parseSidecar (.yaml, other)', () => {
  it('reads YAML through normalizeMeta', () => {
    const { meta, warnings } = parseSidecar(
      'protocol.yaml',
      'title: Passaging HeLa\nauthors: "Ada Okafor and Min Lee"\nyear: 2022-04-01\nkind: protocol\naccess: cell-culture\n',
    );
    expect(warnings).toEqual([]);
    expect(meta).toEqual({
      title: 'Passaging HeLa',
      authors: ['Ada Okafor', 'Min Lee'],
      year: 2022,
      kind: 'protocol',
      access: 'cell-culture',
    });
  });

  it('warns about invalid YAML, non-mappings and unknown sidecar types', () => {
    const bad = parseSidecar('x.yml', 'title: [unclosed\n  : :');
    expect(bad.meta).toEqual({});
    expect(bad.warnings[0]).toMatch(/invalid YAML/);
    expect(parseSidecar('x.yaml', '- a\n- b\n').warnings[0]).toMatch(/not a mapping/);
    expect(parseSidecar('x.xml', '<x/>').warnings[0]).toMatch(/unsupported sidecar type "\.xml"/);
  });

  it('does not execute JavaScript hidden in YAML tags', () => {
    const r = parseSidecar('x.yaml', 'title: !!js/function "function () { globalThis.__pwned = true }"\n');
    expect((globalThis as Record<string, unknown>).__pwned).toBeUndefined();
    expect(r.meta.title).toBeUndefined();
  });
});

describe('resolveMeta', () => {
  it('takes each field from the first layer that has a value, and says which layer that was', () => {
    const frontMatter = { title: 'From front matter', authors: [] as string[], year: undefined };
    const sidecar = { title: 'From sidecar', authors: ['Jane Smith'], year: 2020, doi: '' };
    const embedded = { title: 'From PDF', year: 2019, doi: '10.1/x', journal: 'J' };
    const r = resolveMeta([
      { origin: 'front matter', meta: frontMatter },
      { origin: 'paper.bib', meta: sidecar },
      { origin: 'PDF info', meta: embedded },
    ]);
    expect(r.meta).toEqual({ title: 'From front matter', authors: ['Jane Smith'], year: 2020, doi: '10.1/x', journal: 'J' });
    expect(r.from).toEqual({ title: 'front matter', authors: 'paper.bib', year: 'paper.bib', doi: 'PDF info', journal: 'PDF info' });
  });

  it('takes nothing from inferred layers once a library record (a complete layer) has spoken', () => {
    const r = resolveMeta([
      { origin: 'Zotero', meta: { title: 'Loss of kcnk5b lengthens fins', authors: ['Ana Sharma'] }, complete: true },
      { origin: 'text', meta: { title: 'Wrong', year: 2026, journal: 'Guessed' }, inferred: true },
    ]);
    expect(r.meta).toEqual({ title: 'Loss of kcnk5b lengthens fins', authors: ['Ana Sharma'] });
    const guessed = resolveMeta([
      { origin: 'PDF info', meta: {} },
      { origin: 'text', meta: { year: 2022 }, inferred: true },
    ]);
    expect(guessed).toEqual({ meta: { year: 2022 }, from: { year: 'text' } });
  });

  it('leaves access to the access rule and does not share arrays with its inputs', () => {
    const a = { authors: ['Jane Smith'], access: 'pi-only' };
    const merged = resolveMeta([{ origin: 'x', meta: a }]).meta;
    expect(merged.access).toBeUndefined();
    merged.authors!.push('Someone Else');
    expect(a.authors).toEqual(['Jane Smith']);
  });
});

describe('DOIs', () => {
  it('finds a DOI and strips trailing punctuation', () => {
    expect(findDoi('Published online. DOI: 10.1038/s41586-021-03819-2.')).toBe('10.1038/s41586-021-03819-2');
    expect(findDoi('(see https://doi.org/10.1016/j.cell.2020.01.001), and')).toBe('10.1016/j.cell.2020.01.001');
    expect(findDoi('no identifier here')).toBeUndefined();
  });

  it('keeps balanced parentheses that belong to the DOI', () => {
    expect(findDoi('doi:10.1016/S0140-6736(20)30183-5.')).toBe('10.1016/S0140-6736(20)30183-5');
    expect(findDoi('[10.1234/abc(2)]')).toBe('10.1234/abc(2)');
  });

  it('prefers a DOI announced as such over one in a reference', () => {
    expect(findDoi('[1] Lee K. 10.1111/other.1\nThis article: doi:10.2222/this.2')).toBe('10.2222/this.2');
  });

  it('normalises and builds resolver URLs', () => {
    expect(normalizeDoi('doi: 10.1234/ABC')).toBe('10.1234/ABC');
    expect(normalizeDoi('https://dx.doi.org/10.1234%2Fabc')).toBe('10.1234/abc');
    expect(normalizeDoi('11.1234/abc')).toBeUndefined();
    expect(doiUrl('10.1234/abc.5')).toBe('https://doi.org/10.1234/abc.5');
    expect(doiUrl('doi:10.1002/x<1>#2')).toBe('https://doi.org/10.1002/x%3C1%3E%232');
  });
});

describe('authors', () => {
  it('splits the ways people write author lists', () => {
    expect(splitAuthors('Jane Smith; Rahul Patel; Li Wei')).toEqual(['Jane Smith', 'Rahul Patel', 'Li Wei']);
    expect(splitAuthors('Jane Smith, Rahul Patel and Li Wei')).toEqual(['Jane Smith', 'Rahul Patel', 'Li Wei']);
    expect(splitAuthors('Jane Smith, Rahul Patel, and Li Wei')).toEqual(['Jane Smith', 'Rahul Patel', 'Li Wei']);
    expect(splitAuthors('Smith, Jane and Lee, Kim')).toEqual(['Jane Smith', 'Kim Lee']);
    expect(splitAuthors('Smith J, Lee K, Wei L')).toEqual(['Smith J', 'Lee K', 'Wei L']);
    expect(splitAuthors('Smith, J., Lee, K.')).toEqual(['J. Smith', 'K. Lee']);
    expect(splitAuthors('Jane Smith & Kim Lee')).toEqual(['Jane Smith', 'Kim Lee']);
    expect(splitAuthors('Jane Smith et al.')).toEqual(['Jane Smith']);
    expect(splitAuthors('  ')).toEqual([]);
  });

  it('finds family names', () => {
    expect(familyName('Jane Smith')).toBe('Smith');
    expect(familyName('Smith, Jane')).toBe('Smith');
    expect(familyName('Anna van der Berg')).toBe('van der Berg');
    expect(familyName('Smith JK')).toBe('Smith');
    expect(familyName('John Smith Jr.')).toBe('Smith');
    expect(familyName('Imaging Core Facility')).toBe('Imaging Core Facility');
    expect(familyName('Madonna')).toBe('Madonna');
  });

  it('shortens author lists for citations', () => {
    expect(shortAuthors([])).toBe('');
    expect(shortAuthors(['Jane Smith'])).toBe('Smith');
    expect(shortAuthors(['Jane Smith', 'Kim Lee'])).toBe('Smith & Lee');
    expect(shortAuthors(['Jane Smith', 'Kim Lee', 'Li Wei'])).toBe('Smith et al.');
    expect(shortAuthors(['Anna van der Berg', 'Lee, Kim'])).toBe('van der Berg & Lee');
  });
});

describe('parseSidecar fails closed', () => {
  it('marks a sidecar that cannot be parsed as a whole unreadable, so its document is not indexed', () => {
    expect(parseSidecar('x.yaml', 'title: Grant\naccess: pi-only\nauthors: [Ada, Min\n').unreadable).toMatch(/invalid YAML/);
    expect(parseSidecar('x.yml', '- a\n- b\n').unreadable).toMatch(/not a mapping/);
    expect(parseSidecar('x.json', '{"access": "pi-only",}').unreadable).toMatch(/invalid JSON/);
    expect(parseSidecar('x.json', '["pi-only"]').unreadable).toMatch(/not CSL-JSON items/);
    expect(parseSidecar('x.bib', 'this is not bibtex {').unreadable).toBeDefined();
    expect(parseSidecar('x.bib', '@article{a, title={Good one}, year={2020}}\n@article{b, title={unclosed').unreadable).toMatch(
      /invalid BibTeX: entry "b"/,
    );
  });

  it('leaves readable sidecars readable (empty ones included)', () => {
    expect(parseSidecar('x.yaml', 'title: Grant\naccess: pi-only\n').unreadable).toBeUndefined();
    expect(parseSidecar('x.yaml', '').unreadable).toBeUndefined();
    expect(parseSidecar('x.json', '{"access": "pi-only"}').meta.access).toBe('pi-only');
    expect(parseSidecar('x.bib', '@article{a, title={Good one}, year={2020}}').unreadable).toBeUndefined();
    expect(parseSidecar('x.bib', '').unreadable).toBeUndefined();
  });
});
