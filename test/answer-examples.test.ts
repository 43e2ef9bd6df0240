// The sample lab corpus (examples/lab) and its evaluation questions: what integration tests and
// the demo rely on. Checks the documents are well-formed, the gold answers are really in the
// documents, the restricted fact stays in its restricted document, and the generated binaries
// are exactly what scripts/make-examples.ts produces.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import matter from 'gray-matter';
import JSZip from 'jszip';
import mammoth from 'mammoth';
import { PDFDocument } from 'pdf-lib';
import { PDFParse } from 'pdf-parse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectLanguage } from '../src/search/tokenize.ts';
import { KINDS } from '../src/types.ts';

const LAB = path.resolve('examples/lab');
const QUESTIONS = path.resolve('examples/questions.jsonl');

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? walk(full) : [full];
  });
}

const rel = (file: string) => path.relative(LAB, file).split(path.sep).join('/');
const files = walk(LAB);
const markdown = files.filter((f) => f.endsWith('.md'));

async function pptxText(file: string): Promise<{ slides: string[]; notes: string[] }> {
  const zip = await JSZip.loadAsync(readFileSync(file));
  const texts = async (prefix: string) => {
    const names = Object.keys(zip.files)
      .filter((n) => new RegExp(`^${prefix}\\d+\\.xml$`).test(n))
      .sort((a, b) => Number(a.match(/(\d+)\.xml$/)![1]) - Number(b.match(/(\d+)\.xml$/)![1]));
    return Promise.all(
      names.map(async (n) => [...(await zip.file(n)!.async('string')).matchAll(/<a:t>([^<]*)<\/a:t>/g)].map((m) => m[1]).join(' ')),
    );
  };
  return { slides: await texts('ppt/slides/slide'), notes: await texts('ppt/notesSlides/notesSlide') };
}

async function pdfPages(file: string): Promise<string[]> {
  const parser = new PDFParse({ data: new Uint8Array(readFileSync(file)) });
  try {
    return (await parser.getText()).pages.map((p) => p.text);
  } finally {
    await parser.destroy();
  }
}

/** Every document's id and its full text, as far as these tests need it. */
const docs = new Map<string, { file: string; text: string }>();

beforeAll(async () => {
  for (const file of files) {
    const r = rel(file);
    if (file.endsWith('.md')) {
      const fm = matter(readFileSync(file, 'utf8'));
      docs.set(String(fm.data.id), { file, text: fm.content });
    } else if (file.endsWith('.html')) {
      docs.set(`lab:${r}`, { file, text: readFileSync(file, 'utf8') });
    } else if (file.endsWith('.pdf')) {
      docs.set(`lab:${r}`, { file, text: (await pdfPages(file)).join('\n') });
    } else if (file.endsWith('.pptx')) {
      const { slides, notes } = await pptxText(file);
      docs.set(`lab:${r}`, { file, text: [...slides, ...notes].join('\n') });
    } else if (file.endsWith('.docx')) {
      docs.set(`lab:${r}`, { file, text: (await mammoth.extractRawText({ buffer: readFileSync(file) })).value });
    }
  }
});

describe('example corpus', () => {
  it('has papers, protocols, slides and wiki pages in the expected formats', () => {
    const byDir = (d: string) => files.filter((f) => rel(f).startsWith(`${d}/`)).map((f) => path.extname(f));
    expect(byDir('papers')).toEqual(expect.arrayContaining(['.md', '.pdf', '.bib']));
    expect(byDir('protocols').length).toBeGreaterThanOrEqual(3);
    expect(byDir('protocols')).toContain('.docx');
    expect(byDir('slides')).toEqual(['.pptx']);
    expect(byDir('wiki')).toEqual(expect.arrayContaining(['.md', '.html']));
    expect(files.some((f) => path.basename(f).toLowerCase() === 'readme.md')).toBe(false);
  });

  it('gives every Markdown file a unique id, a title and a valid kind', () => {
    const ids = markdown.map((f) => matter(readFileSync(f, 'utf8')).data.id);
    expect(new Set(ids).size).toBe(markdown.length);
    for (const f of markdown) {
      const { data } = matter(readFileSync(f, 'utf8'));
      expect(typeof data.id, rel(f)).toBe('string');
      expect(typeof data.title, rel(f)).toBe('string');
      expect(KINDS, rel(f)).toContain(data.kind);
    }
  });

  it('gives the Markdown paper full bibliographic front matter and the usual sections', () => {
    const { data, content } = matter(readFileSync(path.join(LAB, 'papers/okafor2023-usp7-hypoxia.md'), 'utf8'));
    expect(data).toMatchObject({ id: 'okafor2023-usp7', kind: 'paper', year: 2023, doi: '10.5555/jcsr.2023.0417' });
    expect(data.authors).toHaveLength(4);
    for (const h of ['Abstract', 'Introduction', 'Methods', 'Results', 'Discussion', 'References']) {
      expect(content).toMatch(new RegExp(`^## ${h}$`, 'm'));
    }
    expect(content).toMatch(/^### /m);
    expect(content.length).toBeGreaterThan(6000);
    expect(content.length).toBeLessThan(10000);
  });

  it('keeps the restricted fact in the pi-only document only', () => {
    const restricted = markdown.filter((f) => matter(readFileSync(f, 'utf8')).data.access === 'pi-only');
    expect(restricted.map(rel)).toEqual(['wiki/pi-only/grant-budget.md']);
    for (const [id, d] of docs) {
      if (id === 'pi-grant-budget') expect(d.text).toContain('NIGHTJAR');
      else expect(d.text, id).not.toMatch(/nightjar/i);
    }
    expect(readFileSync(QUESTIONS, 'utf8')).not.toMatch(/nightjar/i);
  });

  it('has a multi-page PDF paper with metadata and its DOI on page 1, and a .bib sidecar', async () => {
    const file = path.join(LAB, 'papers/weber2020-hypoxia-p53.pdf');
    const pdf = await PDFDocument.load(readFileSync(file));
    expect(pdf.getPageCount()).toBeGreaterThanOrEqual(2);
    expect(pdf.getTitle()).toBe('Hypoxia does not alter p53 turnover in HEK293T cells');
    expect(pdf.getAuthor()).toBe('Jonas Weber; Adaeze Okafor');
    expect(pdf.getCreationDate()?.toISOString()).toBe('2020-06-15T09:00:00.000Z');
    const pages = await pdfPages(file);
    expect(pages[0]).toContain('doi:10.5555/jcsr.2020.0112');
    expect(pages.at(-1)).toContain('Discussion');
    const bib = readFileSync(file.replace(/\.pdf$/, '.bib'), 'utf8');
    expect(bib).toMatch(/doi\s*=\s*\{10\.5555\/jcsr\.2020\.0112\}/);
    expect(bib).toMatch(/year\s*=\s*\{2020\}/);
    expect(bib).toMatch(/author\s*=\s*\{Weber, Jonas and Okafor, Adaeze\}/);
  });

  it('has a 6-8 slide deck where every slide has speaker notes', async () => {
    const { slides, notes } = await pptxText(path.join(LAB, 'slides/lab-meeting-2024-03-14.pptx'));
    expect(slides.length).toBeGreaterThanOrEqual(6);
    expect(slides.length).toBeLessThanOrEqual(8);
    expect(notes).toHaveLength(slides.length);
    for (const n of notes) expect(n.replace(/\b\d+\b/g, '').trim().length).toBeGreaterThan(20);
    expect(notes.join(' ')).toContain('MycoAlert before 28 March');
  });

  it('has a DOCX protocol with numbered steps and a materials table', async () => {
    const buffer = readFileSync(path.join(LAB, 'protocols/hek293t-passaging.docx'));
    const text = (await mammoth.extractRawText({ buffer })).value;
    for (let i = 1; i <= 8; i++) expect(text).toMatch(new RegExp(`^${i}\\. `, 'm'));
    const html = (await mammoth.convertToHtml({ buffer })).value;
    expect(html).toContain('<table>');
    expect(html).toContain('25300054');
  });

  it('keeps every generated file small', () => {
    for (const f of files.filter((x) => /\.(pdf|pptx|docx)$/.test(x))) expect(statSync(f).size, rel(f)).toBeLessThan(200_000);
  });
});

describe('example questions', () => {
  const questions = readFileSync(QUESTIONS, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { id: string; question: string; doc_id: string; answers: string[] });

  it('are about 15, with unique ids and the eval fields', () => {
    expect(questions.length).toBeGreaterThanOrEqual(15);
    expect(new Set(questions.map((q) => q.id)).size).toBe(questions.length);
    for (const q of questions) {
      expect(Object.keys(q).sort()).toEqual(['answers', 'doc_id', 'id', 'question']);
      expect(q.answers.length).toBeGreaterThan(0);
    }
  });

  it('point at documents that exist and whose text holds every gold answer', () => {
    for (const q of questions) {
      const doc = docs.get(q.doc_id);
      expect(doc, `${q.id}: ${q.doc_id}`).toBeDefined();
      // PDF text extraction writes the micro sign as Greek mu.
      const text = doc!.text.replace(/μ/g, 'µ');
      for (const a of q.answers) expect(text, `${q.id}: ${a}`).toContain(a);
    }
  });

  it('include a catalogue-number question, a Spanish question, a step question and every document format', () => {
    expect(questions.some((q) => /catalogue/i.test(q.question) && q.answers.includes('ab32389'))).toBe(true);
    expect(questions.filter((q) => detectLanguage(q.question) === 'es').length).toBeGreaterThanOrEqual(1);
    expect(questions.some((q) => /protocol/i.test(q.question) && q.doc_id === 'protocol-western-blot')).toBe(true);
    for (const ext of ['.pdf', '.pptx', '.docx', '.html'])
      expect(
        questions.some((q) => q.doc_id.endsWith(ext)),
        ext,
      ).toBe(true);
  });
});

describe('cross-lingual questions over the sample lab (bench/datasets/cross-lingual)', () => {
  type Line = { id: string; question: string; doc_id: string; answers: string[]; lang: string };
  const read = (name: string): Line[] =>
    readFileSync(path.resolve('bench/datasets/cross-lingual', name), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Line);
  const cross = read('lab.cross.jsonl');
  const same = read('lab.same.jsonl');
  const squash = (t: string) => t.replace(/μ/g, 'µ').replace(/\s+/g, ' ').toLowerCase();

  it('hold a gold span of their document, and ask in the other language than the document is written in', () => {
    expect(cross.filter((q) => q.lang === 'es').length).toBeGreaterThanOrEqual(40);
    expect(cross.filter((q) => q.lang === 'en').length).toBeGreaterThanOrEqual(30);
    for (const q of [...cross, ...same]) {
      const doc = docs.get(q.doc_id);
      expect(doc, `${q.id}: ${q.doc_id}`).toBeDefined();
      for (const a of q.answers) expect(squash(doc!.text), `${q.id}: ${a}`).toContain(squash(a));
      expect(detectLanguage(q.question), q.id).toBe(q.lang);
    }
    for (const q of cross) expect(detectLanguage(docs.get(q.doc_id)!.text), q.id).not.toBe(q.lang);
  });

  it('pair every cross-lingual question with a same-language twin on the same document and span', () => {
    const twins = new Map(same.map((q) => [q.id.replace(/^same-/, ''), q]));
    expect(same).toHaveLength(cross.length);
    for (const q of cross) {
      const twin = twins.get(q.id.replace(/^cross-/, ''));
      expect(twin, q.id).toBeDefined();
      expect({ doc: twin!.doc_id, answers: twin!.answers }).toEqual({ doc: q.doc_id, answers: q.answers });
      expect(twin!.lang).not.toBe(q.lang);
    }
  });
});

describe('scripts/make-examples.ts', () => {
  let out: string;
  beforeAll(() => {
    out = mkdtempSync(path.join(os.tmpdir(), 'labbot-examples-'));
    execFileSync('npx', ['tsx', 'scripts/make-examples.ts', out], { stdio: 'pipe' });
  });
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('regenerates the committed binaries byte for byte', () => {
    const generated = walk(out).map((f) => path.relative(out, f).split(path.sep).join('/'));
    expect(generated.sort()).toEqual([
      'papers/weber2020-hypoxia-p53.bib',
      'papers/weber2020-hypoxia-p53.pdf',
      'protocols/hek293t-passaging.docx',
      'slides/lab-meeting-2024-03-14.pptx',
    ]);
    for (const r of generated) expect(readFileSync(path.join(out, r)).equals(readFileSync(path.join(LAB, r))), r).toBe(true);
  });
});
