// Generates the shapes in which people really write a document's access group: front matter in
// Markdown, plain text and HTML (YAML between "---" lines, TOML between "+++", "---toml",
// "---json"), YAML/TOML/JSON/CSL-JSON/BibTeX/RIS sidecars, library bibliographies (BibTeX,
// CSL-JSON, RIS; an access field or an Extra line, matched by file, key, title or DOI), written
// with every spelling, delimiter, quoting, blank line, byte-order mark and line ending seen in the
// wild. Each variant says which group it declares, so a test can check that the document lands
// there, never in the default group. `brokenAccessVariants` writes the same intent in shapes that
// cannot be read as metadata (an unclosed block, YAML that is not a mapping, a key under another
// key, two documents, two values): each must be refused.
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

const cased = (rnd: () => number, group: string) => pick(rnd, [group, group.toUpperCase(), group[0].toUpperCase() + group.slice(1)]);

function yamlValue(rnd: () => number, group: string): string {
  const c = cased(rnd, group);
  return pick(rnd, [c, `"${c}"`, `'${c}'`, `${c}   # who may read it`]);
}

function yamlBody(rnd: () => number, group: string): string[] {
  const lines = [`title: Restricted note ${Math.floor(rnd() * 1000)}`, `${pick(rnd, KEYS)}: ${yamlValue(rnd, group)}`];
  if (rnd() < 0.5) lines.push('authors: [Ada Okafor, Min Lee]');
  if (rnd() < 0.3) lines.unshift('# written by hand');
  return rnd() < 0.5 ? lines : lines.reverse();
}

// Lines before the opening "---": none, blank ones, whitespace-only ones, an invisible one.
const BEFORE_FRONT = ['', '', '\n', '\n\n', ' \n\t\n', '\u200b\n'];

function frame(rnd: () => number, lines: string[], sidecar: boolean): string[] {
  if (sidecar) {
    // YAML's own markers: a directive or a comment may come before "---".
    const open = pick(rnd, ['', '---', '---', '--- # meta', '%YAML 1.1\n---', '# metadata\n---', '\n---']);
    const close = pick(rnd, ['', '---', '...']);
    return [...(open === '' ? [] : [open]), ...lines, ...(close === '' ? [] : [close])];
  }
  const named = rnd() < 0.2;
  const open = `${pick(rnd, BEFORE_FRONT)}${named ? pick(rnd, ['---yaml', '---yml']) : '---'}`;
  const close = named ? '---' : pick(rnd, ['---', '...']);
  return [open, ...lines, close];
}

function tomlBody(rnd: () => number, group: string): string[] {
  const key = pick(rnd, KEYS);
  const value = pick(rnd, [`"${cased(rnd, group)}"`, `'${cased(rnd, group)}'`, `"${cased(rnd, group)}"   # who may read it`]);
  const lines = [`title = "Restricted note ${Math.floor(rnd() * 1000)}"`, `${rnd() < 0.2 ? `"${key}"` : key} = ${value}`];
  if (rnd() < 0.5) lines.push('authors = ["Ada Okafor", "Min Lee"]');
  if (rnd() < 0.3) lines.push('date = 2022-03-04');
  if (rnd() < 0.3) lines.unshift('# written by hand');
  return rnd() < 0.5 ? lines : lines.reverse();
}

function tomlFrame(rnd: () => number, lines: string[]): string[] {
  const hugo = rnd() < 0.7;
  return [`${pick(rnd, BEFORE_FRONT)}${hugo ? '+++' : '---toml'}`, ...lines, hugo ? '+++' : '---'];
}

function text(lines: string[], rnd: () => number): string {
  const eol = pick(rnd, ['\n', '\n', '\r\n']);
  const bom = rnd() < 0.15 ? '\uFEFF' : '';
  return bom + lines.join(eol) + eol;
}

function bibEntry(rnd: () => number, group: string, key: string): string {
  const field = pick(rnd, ['access', 'Access', 'ACCESS', 'access_group', 'ACCESS_GROUP', 'Access-Group', 'accessgroup']);
  const value = pick(rnd, [`{${group}}`, `"${group}"`, `{${group.toUpperCase()}}`, `{{${group}}}`, `{ ${group} }`]);
  const fields = [`  title = {A restricted paper}`, `  author = {Okafor, Ada and Lee, Min}`, `  year = {2022}`, `  ${field} = ${value}`];
  const ordered = rnd() < 0.5 ? fields : [fields[0], fields[3], fields[1], fields[2]];
  return `@${pick(rnd, ['article', 'Article', 'ARTICLE', 'misc'])}{${key},\n${ordered.join(',\n')}${rnd() < 0.5 ? ',' : ''}\n}\n`;
}

/**
 * A library file naming the group of document `stem` (`doc` is its file name). It matches the
 * document by an attached file, its citation key, its title (the document is named after it) or
 * the DOI its front matter gives; the access is a field or a line of the Extra field.
 */
function libraryFile(
  rnd: () => number,
  way: 'bib' | 'json' | 'ris',
  group: string,
  stem: string,
  docName: string,
  i: number,
): { name: string; text: string; docFront?: string } {
  const by = pick(rnd, ['file', 'key', 'doi'] as const);
  const doi = `10.5555/acc.${stem}`;
  const inExtra = rnd() < 0.5;
  const key = by === 'key' ? stem : `okafor2022x${i}`;
  if (way === 'bib') {
    const field = inExtra
      ? `  note = {${pick(rnd, ['access', 'tex.access', 'Access'])}: ${cased(rnd, group)}}`
      : `  ${pick(
          rnd,
          KEYS.filter((k) => !k.includes('-')),
        )} = {${cased(rnd, group)}}`;
    const fields = [`  title = {A restricted paper}`, `  author = {Okafor, Ada and Lee, Min}`, `  year = {2022}`, field];
    if (by === 'file')
      fields.push(
        `  file = {${pick(rnd, [`/home/ada/Zotero/storage/K${i}/${docName}`, `Full Text PDF:C\\:\\\\Users\\\\ada\\\\${docName}:text/plain`])}}`,
      );
    if (by === 'doi') fields.push(`  doi = {${doi}}`);
    const other = `@article{other${i}, title = {Someone else's paper}, author = {Wu, Chen}, year = {2019}}\n`;
    return {
      name: `lib-${i}.bib`,
      text: text([other, `@article{${key},\n${fields.join(',\n')}\n}`], rnd),
      docFront: by === 'doi' ? doi : undefined,
    };
  }
  if (way === 'json') {
    const item: Record<string, unknown> = {
      id: by === 'key' ? stem : `http://zotero.org/users/1/items/K${i}`,
      type: 'article-journal',
      title: 'A restricted paper',
      author: [{ family: 'Okafor', given: 'Ada' }],
      issued: { 'date-parts': [['2022']] },
    };
    // CSL-JSON lists no attachments: Better CSL JSON's citation key stands in.
    if (by === 'file') item['citation-key'] = stem;
    if (by === 'doi') item.DOI = doi;
    if (inExtra) item.note = `${pick(rnd, ['access', 'tex.access'])}: ${cased(rnd, group)}`;
    else item[pick(rnd, KEYS)] = cased(rnd, group);
    const items = [{ id: 'x', type: 'book', title: 'Unrelated book' }, item];
    return {
      name: `lib-${i}.json`,
      text: text([JSON.stringify(items, null, rnd() < 0.5 ? 2 : 0)], rnd),
      docFront: by === 'doi' ? doi : undefined,
    };
  }
  const lines = [
    'TY  - JOUR',
    'TI  - A restricted paper',
    'AU  - Okafor, Ada',
    'PY  - 2022',
    `M2  - ${pick(rnd, ['access', 'tex.access', 'Access'])}: ${cased(rnd, group)}`,
  ];
  if (by === 'key') lines.push(`ID  - ${stem}`);
  if (by === 'file') lines.push(`L1  - file:///home/ada/Zotero/storage/K${i}/${encodeURIComponent(docName)}`);
  if (by === 'doi') lines.push(`DO  - ${doi}`);
  return {
    name: `lib-${i}.ris`,
    text: text(['TY  - BOOK', 'TI  - Unrelated book', 'ER  - ', ...lines, 'ER  - '], rnd),
    docFront: by === 'doi' ? doi : undefined,
  };
}

const WAYS = [
  'front matter .md',
  'front matter .txt',
  'toml front matter .md',
  'toml front matter .txt',
  'json front matter .md',
  'front matter .html',
  'sidecar .yaml',
  'sidecar .yml',
  'sidecar .toml',
  'sidecar .json',
  'sidecar .json csl',
  'sidecar .bib',
  'sidecar .ris',
  'library .bib',
  'library .json',
  'library .ris',
] as const;
type Way = (typeof WAYS)[number];

/** The document and its sidecar for a way that is front matter or a sidecar. */
function ownFiles(rnd: () => number, way: Way, group: string, stem: string, i: number, bodyText: string): AccessVariant['files'] {
  const docExt = pick(rnd, ['md', 'txt']);
  const plain = { name: `${stem}.${docExt}`, text: `${bodyText}\n` };
  switch (way) {
    case 'front matter .md':
    case 'front matter .txt':
      return [
        {
          name: `${stem}.${way.slice(-2) === 'md' ? 'md' : 'txt'}`,
          text: text([...frame(rnd, yamlBody(rnd, group), false), '', bodyText], rnd),
        },
      ];
    case 'toml front matter .md':
    case 'toml front matter .txt':
      return [
        {
          name: `${stem}.${way.slice(-2) === 'md' ? 'md' : 'txt'}`,
          text: text([...tomlFrame(rnd, tomlBody(rnd, group)), '', bodyText], rnd),
        },
      ];
    case 'json front matter .md': {
      const fields = { title: 'Restricted', [pick(rnd, KEYS)]: cased(rnd, group) };
      return [
        {
          name: `${stem}.md`,
          text: text([`${pick(rnd, BEFORE_FRONT)}---json`, JSON.stringify(fields, null, 2), '---', '', bodyText], rnd),
        },
      ];
    }
    case 'front matter .html': {
      const head = rnd() < 0.5 ? frame(rnd, yamlBody(rnd, group), false) : tomlFrame(rnd, tomlBody(rnd, group));
      return [
        {
          name: `${stem}.html`,
          text: text([...head, '<!doctype html>', '<html><head><title>Note</title></head>', `<body><p>${bodyText}</p></body></html>`], rnd),
        },
      ];
    }
    case 'sidecar .yaml':
    case 'sidecar .yml':
      return [
        plain,
        { name: `${stem}.${way.slice(-4) === 'yaml' ? 'yaml' : 'yml'}`, text: text(frame(rnd, yamlBody(rnd, group), true), rnd) },
      ];
    case 'sidecar .toml':
      return [plain, { name: `${stem}.toml`, text: text(tomlBody(rnd, group), rnd) }];
    case 'sidecar .json': {
      const value = pick(rnd, [group, group.toUpperCase()]);
      return [
        plain,
        {
          name: `${stem}.json`,
          text: text([JSON.stringify({ title: 'Restricted', [pick(rnd, KEYS)]: value }, null, rnd() < 0.5 ? 2 : 0)], rnd),
        },
      ];
    }
    case 'sidecar .json csl': {
      // Zotero's "Export Item… → CSL JSON" of one item: an array; the group in a field or in Extra (note).
      const item: Record<string, unknown> = {
        id: `http://zotero.org/users/1/items/S${i}`,
        type: 'article-journal',
        title: 'A restricted paper',
        author: [{ family: 'Okafor', given: 'Ada' }],
      };
      if (rnd() < 0.5) item.note = `${pick(rnd, ['access', 'tex.access'])}: ${cased(rnd, group)}`;
      else item[pick(rnd, KEYS)] = cased(rnd, group);
      return [plain, { name: `${stem}.json`, text: text([JSON.stringify([item], null, rnd() < 0.5 ? 2 : 0)], rnd) }];
    }
    case 'sidecar .bib':
      return [plain, { name: `${stem}.bib`, text: text([bibEntry(rnd, group, `okafor2022x${i}`)], rnd) }];
    case 'sidecar .ris':
      return [
        plain,
        {
          name: `${stem}.ris`,
          text: text(
            [
              'TY  - JOUR',
              'TI  - A restricted paper',
              'AU  - Okafor, Ada',
              `M2  - ${pick(rnd, ['access', 'tex.access', 'Access'])}: ${cased(rnd, group)}`,
              'ER  - ',
            ],
            rnd,
          ),
        },
      ];
    default:
      throw new Error(`not a front matter or sidecar way: ${way}`);
  }
}

/** `n` variants from a seed; every way in appears (documents with front matter, each sidecar type, each library type). */
export function accessVariants(seed: number, n: number): AccessVariant[] {
  const rnd = mulberry32(seed);
  const out: AccessVariant[] = [];
  for (let i = 0; i < n; i++) {
    const way = WAYS[i % WAYS.length];
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
    } else {
      files.push(...ownFiles(rnd, way, group, stem, i, bodyText));
    }
    out.push({ shape: `${way}: ${JSON.stringify(files.map((f) => f.text))}`, files, group, marker });
  }
  return out;
}

/**
 * Ways of writing a restricted group that cannot be read as metadata, each as the document (and
 * its sidecar): a document written so must not be indexed at all. `g` is the group, `body` the text.
 */
const BROKEN: { way: string; files: (stem: string, g: string, body: string) => Record<string, string> }[] = [
  {
    way: 'YAML front matter "access:g" (no space: a scalar, not a field)',
    files: (s, g, b) => ({ [`${s}.md`]: `---\naccess:${g}\n---\n${b}\n` }),
  },
  {
    way: 'YAML front matter "title: x" then "access:g"',
    files: (s, g, b) => ({ [`${s}.txt`]: `---\ntitle: Restricted\naccess:${g}\n---\n${b}\n` }),
  },
  { way: 'YAML front matter never closed', files: (s, g, b) => ({ [`${s}.md`]: `\n---\ntitle: Restricted\naccess: ${g}\n\n${b}\n` }) },
  {
    way: 'YAML front matter with access written twice',
    files: (s, g, b) => ({ [`${s}.md`]: `---\naccess: ${g}\naccess: public\n---\n${b}\n` }),
  },
  {
    way: 'YAML front matter whose folded title swallows the access line',
    files: (s, g, b) => ({ [`${s}.md`]: `---\ntitle: >\n  Restricted\n  access: ${g}\n---\n${b}\n` }),
  },
  {
    way: 'YAML front matter with access under another key',
    files: (s, g, b) => ({ [`${s}.txt`]: `---\nmeta:\n  access: ${g}\n---\n${b}\n` }),
  },
  { way: 'front matter in JavaScript', files: (s, g, b) => ({ [`${s}.md`]: `---js\nmodule.exports = { access: '${g}' }\n---\n${b}\n` }) },
  { way: 'TOML front matter with an unquoted value', files: (s, g, b) => ({ [`${s}.md`]: `+++\naccess = ${g}\n+++\n${b}\n` }) },
  { way: 'TOML front matter written as YAML', files: (s, g, b) => ({ [`${s}.txt`]: `+++\naccess: ${g}\n+++\n${b}\n` }) },
  {
    way: 'TOML front matter with access in a table',
    files: (s, g, b) => ({ [`${s}.md`]: `+++\ntitle = "Restricted"\n[meta]\naccess = "${g}"\n+++\n${b}\n` }),
  },
  { way: 'TOML front matter never closed', files: (s, g, b) => ({ [`${s}.md`]: `+++\naccess = "${g}"\n\n${b}\n` }) },
  {
    way: 'HTML page with YAML front matter that is not a mapping',
    files: (s, g, b) => ({ [`${s}.html`]: `---\naccess:${g}\n---\n<p>${b}</p>\n` }),
  },
  {
    way: 'YAML sidecar holding two documents',
    files: (s, g, b) => ({ [`${s}.txt`]: `${b}\n`, [`${s}.yaml`]: `title: Restricted\n---\naccess: ${g}\n` }),
  },
  { way: 'YAML sidecar "access:g"', files: (s, g, b) => ({ [`${s}.txt`]: `${b}\n`, [`${s}.yml`]: `access:${g}\n` }) },
  {
    way: 'YAML sidecar with an unclosed quote before the access line',
    files: (s, g, b) => ({ [`${s}.md`]: `${b}\n`, [`${s}.yaml`]: `title: "Restricted\naccess: ${g}\n` }),
  },
  {
    way: 'YAML sidecar with access under another key',
    files: (s, g, b) => ({ [`${s}.md`]: `${b}\n`, [`${s}.yaml`]: `---\nlab:\n  access: ${g}\n...\n` }),
  },
  { way: 'YAML sidecar with an unknown tag', files: (s, g, b) => ({ [`${s}.txt`]: `${b}\n`, [`${s}.yaml`]: `access: !group ${g}\n` }) },
  { way: 'YAML sidecar naming two groups', files: (s, g, b) => ({ [`${s}.txt`]: `${b}\n`, [`${s}.yaml`]: `access: [${g}, public]\n` }) },
  {
    way: 'TOML sidecar written as YAML',
    files: (s, g, b) => ({ [`${s}.txt`]: `${b}\n`, [`${s}.toml`]: `title = "Restricted"\naccess: ${g}\n` }),
  },
  {
    way: 'TOML sidecar with access in a table',
    files: (s, g, b) => ({ [`${s}.md`]: `${b}\n`, [`${s}.toml`]: `[lab]\naccess = "${g}"\n` }),
  },
  {
    way: 'JSON sidecar with access written twice',
    files: (s, g, b) => ({ [`${s}.txt`]: `${b}\n`, [`${s}.json`]: `{"access": "${g}", "title": "Restricted", "access": "public"}` }),
  },
  {
    way: 'JSON sidecar with a trailing comma',
    files: (s, g, b) => ({ [`${s}.txt`]: `${b}\n`, [`${s}.json`]: `{"title": "Restricted", "access": "${g}",}` }),
  },
  {
    way: 'JSON sidecar with access in a nested object',
    files: (s, g, b) => ({ [`${s}.md`]: `${b}\n`, [`${s}.json`]: `{"title": "Restricted", "lab": {"access": "${g}"}}` }),
  },
  {
    way: 'BibTeX sidecar cut off',
    files: (s, g, b) => ({ [`${s}.txt`]: `${b}\n`, [`${s}.bib`]: `@article{x,\n  title = {Restricted},\n  access = {${g}\n` }),
  },
  {
    way: 'BibTeX sidecar whose second entry restricts it',
    files: (s, g, b) => ({
      [`${s}.txt`]: `${b}\n`,
      [`${s}.bib`]: `@misc{one, title = {Restricted}}\n@misc{two, title = {Restricted too}, access = {${g}}}\n`,
    }),
  },
];

/** `n` variants from a seed in shapes that must be refused; every broken way appears. */
export function brokenAccessVariants(seed: number, n: number): AccessVariant[] {
  const rnd = mulberry32(seed);
  const out: AccessVariant[] = [];
  for (let i = 0; i < n; i++) {
    const broken = BROKEN[i % BROKEN.length];
    const group = pick(rnd, GROUPS);
    const marker = `BROKENMARK${seed}X${i}`;
    const written = broken.files(`bad-${i}`, cased(rnd, group), `The ${marker} passage is only for those who may read ${group}.`);
    // The line endings and byte-order marks that editors add do not make a broken shape readable.
    const files = Object.entries(written).map(([name, t]) => ({ name, text: text(t.replace(/\n$/, '').split('\n'), rnd) }));
    out.push({ shape: `${broken.way}: ${JSON.stringify(files.map((f) => f.text))}`, files, group, marker });
  }
  return out;
}
