// Generates the shapes in which people really write a document's access group: front matter in
// Markdown and plain text, YAML/JSON/BibTeX sidecars, library bibliographies (BibTeX, CSL-JSON,
// RIS; an access field or an Extra line, matched by file, key, title or DOI), written with every
// spelling, delimiter, quoting and line ending seen in the wild. Each variant says which group it declares, so a test
// can check that the document lands there (or is refused), never in the default group.
import { mulberry32 } from '../../bench/prng.ts';

export interface AccessVariant {
  /** A short description of the shape, for failure messages. */
  shape: string;
  /** Files to write: the document (first) and its sidecar or library when there is one. */
  files: { name: string; text: string }[];
  /** The group the variant declares. */
  group: string;
  /** A word that appears only in this document's text. */
  marker: string;
}

const pick = <T>(rnd: () => number, xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];

const KEYS = ['access', 'Access', 'ACCESS', 'access_group', 'access-group'];
const GROUPS = ['pi-only', 'grants', 'cell_culture', 'core-2'];

function yamlValue(rnd: () => number, group: string): string {
  const cased = pick(rnd, [group, group.toUpperCase(), group[0].toUpperCase() + group.slice(1)]);
  return pick(rnd, [cased, `"${cased}"`, `'${cased}'`, `${cased}   # who may read it`]);
}

function yamlBody(rnd: () => number, group: string): string[] {
  const lines = [`title: Restricted note ${Math.floor(rnd() * 1000)}`, `${pick(rnd, KEYS)}: ${yamlValue(rnd, group)}`];
  if (rnd() < 0.5) lines.push('authors: [Ada Okafor, Min Lee]');
  if (rnd() < 0.3) lines.unshift('# written by hand');
  return rnd() < 0.5 ? lines : lines.reverse();
}

function frame(rnd: () => number, lines: string[], sidecar: boolean): string[] {
  const open = sidecar ? pick(rnd, ['', '---', '---', '--- # meta']) : pick(rnd, ['---', '---', '\n---', '\n\n---']);
  const close = sidecar ? pick(rnd, ['', '---', '...']) : pick(rnd, ['---', '...']);
  return [...(open === '' ? [] : [open]), ...lines, ...(close === '' ? [] : [close])];
}

function text(lines: string[], rnd: () => number): string {
  const eol = pick(rnd, ['\n', '\n', '\r\n']);
  const bom = rnd() < 0.15 ? '\uFEFF' : '';
  return bom + lines.join(eol) + eol;
}

function bibEntry(rnd: () => number, group: string, key: string): string {
  const field = pick(rnd, ['access', 'Access', 'ACCESS', 'access_group']);
  const value = pick(rnd, [`{${group}}`, `"${group}"`, `{${group.toUpperCase()}}`]);
  const fields = [`  title = {A restricted paper}`, `  author = {Okafor, Ada and Lee, Min}`, `  year = {2022}`, `  ${field} = ${value}`];
  const ordered = rnd() < 0.5 ? fields : [fields[0], fields[3], fields[1], fields[2]];
  return `@${pick(rnd, ['article', 'Article', 'misc'])}{${key},\n${ordered.join(',\n')}${rnd() < 0.5 ? ',' : ''}\n}\n`;
}

const cased = (rnd: () => number, group: string) => pick(rnd, [group, group.toUpperCase(), group[0].toUpperCase() + group.slice(1)]);

/**
 * A library file naming the group of document `stem` (`doc` is its file name). It matches the
 * document by an attached file, its citation key, its title (the document is named after it) or
 * the DOI its front matter gives; the access is a field or a line of the Extra field.
 */
function libraryFile(rnd: () => number, way: 'bib' | 'json' | 'ris', group: string, stem: string, docName: string, i: number): { name: string; text: string; docFront?: string } {
  const by = pick(rnd, ['file', 'key', 'doi'] as const);
  const doi = `10.5555/acc.${stem}`;
  const inExtra = rnd() < 0.5;
  const key = by === 'key' ? stem : `okafor2022x${i}`;
  if (way === 'bib') {
    const field = inExtra ? `  note = {${pick(rnd, ['access', 'tex.access', 'Access'])}: ${cased(rnd, group)}}` : `  ${pick(rnd, KEYS.filter((k) => !k.includes('-')))} = {${cased(rnd, group)}}`;
    const fields = [`  title = {A restricted paper}`, `  author = {Okafor, Ada and Lee, Min}`, `  year = {2022}`, field];
    if (by === 'file') fields.push(`  file = {${pick(rnd, [`/home/ada/Zotero/storage/K${i}/${docName}`, `Full Text PDF:C\\:\\\\Users\\\\ada\\\\${docName}:text/plain`])}}`);
    if (by === 'doi') fields.push(`  doi = {${doi}}`);
    const other = `@article{other${i}, title = {Someone else's paper}, author = {Wu, Chen}, year = {2019}}\n`;
    return { name: `lib-${i}.bib`, text: text([other, `@article{${key},\n${fields.join(',\n')}\n}`], rnd), docFront: by === 'doi' ? doi : undefined };
  }
  if (way === 'json') {
    const item: Record<string, unknown> = { id: by === 'key' ? stem : `http://zotero.org/users/1/items/K${i}`, type: 'article-journal', title: 'A restricted paper', author: [{ family: 'Okafor', given: 'Ada' }], issued: { 'date-parts': [['2022']] } };
    // CSL-JSON lists no attachments: Better CSL JSON's citation key stands in.
    if (by === 'file') item['citation-key'] = stem;
    if (by === 'doi') item.DOI = doi;
    if (inExtra) item.note = `${pick(rnd, ['access', 'tex.access'])}: ${cased(rnd, group)}`;
    else item[pick(rnd, KEYS)] = cased(rnd, group);
    const items = [{ id: 'x', type: 'book', title: 'Unrelated book' }, item];
    return { name: `lib-${i}.json`, text: text([JSON.stringify(items, null, rnd() < 0.5 ? 2 : 0)], rnd), docFront: by === 'doi' ? doi : undefined };
  }
  const lines = ['TY  - JOUR', 'TI  - A restricted paper', 'AU  - Okafor, Ada', 'PY  - 2022', `M2  - ${pick(rnd, ['access', 'tex.access', 'Access'])}: ${cased(rnd, group)}`];
  if (by === 'key') lines.push(`ID  - ${stem}`);
  if (by === 'file') lines.push(`L1  - file:///home/ada/Zotero/storage/K${i}/${encodeURIComponent(docName)}`);
  if (by === 'doi') lines.push(`DO  - ${doi}`);
  return { name: `lib-${i}.ris`, text: text(['TY  - BOOK', 'TI  - Unrelated book', 'ER  - ', ...lines, 'ER  - '], rnd), docFront: by === 'doi' ? doi : undefined };
}

/** `n` variants from a seed; every way in appears (documents with front matter, each sidecar type, each library type). */
export function accessVariants(seed: number, n: number): AccessVariant[] {
  const rnd = mulberry32(seed);
  const out: AccessVariant[] = [];
  const ways = ['front matter .md', 'front matter .txt', 'sidecar .yaml', 'sidecar .yml', 'sidecar .json', 'sidecar .bib', 'library .bib', 'library .json', 'library .ris'] as const;
  for (let i = 0; i < n; i++) {
    const way = ways[i % ways.length];
    const group = pick(rnd, GROUPS);
    const marker = `ACCESSMARK${seed}X${i}`;
    const stem = `doc-${i}`;
    const bodyText = `The ${marker} passage is only for those who may read ${group}.`;
    const files: AccessVariant['files'] = [];
    if (way.startsWith('library')) {
      const docName = `${stem}.${pick(rnd, ['md', 'txt'])}`;
      const lib = libraryFile(rnd, way.slice(-4).replace('.', '') as 'bib' | 'json' | 'ris', group, stem, docName, i);
      // A DOI match needs the document to carry its DOI itself (front matter, no access there).
      files.push({ name: docName, text: lib.docFront ? `---\ndoi: ${lib.docFront}\n---\n\n${bodyText}\n` : `${bodyText}\n` });
      files.push({ name: lib.name, text: lib.text });
    } else if (way.startsWith('front matter')) {
      const ext = way.endsWith('.md') ? 'md' : 'txt';
      files.push({ name: `${stem}.${ext}`, text: text([...frame(rnd, yamlBody(rnd, group), false), '', bodyText], rnd) });
    } else {
      const docExt = pick(rnd, ['md', 'txt']);
      files.push({ name: `${stem}.${docExt}`, text: `${bodyText}\n` });
      if (way === 'sidecar .json') {
        const key = pick(rnd, KEYS);
        const value = pick(rnd, [group, group.toUpperCase()]);
        files.push({ name: `${stem}.json`, text: text([JSON.stringify({ title: 'Restricted', [key]: value }, null, rnd() < 0.5 ? 2 : 0)], rnd) });
      } else if (way === 'sidecar .bib') {
        files.push({ name: `${stem}.bib`, text: text([bibEntry(rnd, group, `okafor2022x${i}`)], rnd) });
      } else {
        files.push({ name: `${stem}.${way.endsWith('.yaml') ? 'yaml' : 'yml'}`, text: text(frame(rnd, yamlBody(rnd, group), true), rnd) });
      }
    }
    out.push({ shape: `${way}: ${JSON.stringify(files.map((f) => f.text))}`, files, group, marker });
  }
  return out;
}
