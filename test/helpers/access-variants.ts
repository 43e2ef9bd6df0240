// Generates the shapes in which people really write a document's access group: front matter in
// Markdown and plain text, YAML/JSON/BibTeX sidecars, written with every spelling, delimiter,
// quoting and line ending seen in the wild. Each variant says which group it declares, so a test
// can check that the document lands there (or is refused), never in the default group.
import { mulberry32 } from '../../bench/prng.ts';

export interface AccessVariant {
  /** A short description of the shape, for failure messages. */
  shape: string;
  /** Files to write: the document (first) and its sidecar when there is one. */
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

/** `n` variants from a seed; every way in appears (documents with front matter, each sidecar type). */
export function accessVariants(seed: number, n: number): AccessVariant[] {
  const rnd = mulberry32(seed);
  const out: AccessVariant[] = [];
  const ways = ['front matter .md', 'front matter .txt', 'sidecar .yaml', 'sidecar .yml', 'sidecar .json', 'sidecar .bib'] as const;
  for (let i = 0; i < n; i++) {
    const way = ways[i % ways.length];
    const group = pick(rnd, GROUPS);
    const marker = `ACCESSMARK${seed}X${i}`;
    const stem = `doc-${i}`;
    const bodyText = `The ${marker} passage is only for those who may read ${group}.`;
    const files: AccessVariant['files'] = [];
    if (way.startsWith('front matter')) {
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
