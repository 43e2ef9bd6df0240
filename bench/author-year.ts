// `npx tsx bench/author-year.ts [--papers 48] [--seeds 3] [--answers] [--keep-dirs] [--baseline <tree>]`
// "In <first author> <year>, …" questions on corpora whose metadata arrives in different ways,
// built from the same generated papers (test/fixtures/papers.ts): papers on shared topics state
// the same kind of result with different numbers, so only the named author and year tell the right
// paper from its neighbours. Each corpus is ingested into a fresh collection of the real app and
// asked through the same retrieval `labbot eval` runs (src/eval/run.ts):
//   front matter  Markdown papers with YAML front matter (title, authors, year, journal)
//   library .bib  the same Markdown, no front matter, one Better BibTeX library.bib (by citation key)
//   CSL-JSON      the same Markdown under Zotero-style names, one Zotero CSL-JSON export (by title)
//   PDF + .bib    PDFs with no info dictionary under Zotero names, library.bib with `file` fields
//   PDF only      the same PDFs under the generator's mix of names, nothing else (read from page 1)
//   Zotero        a Zotero group library over the Web API (the strict fake, test/helpers/fake-zotero.ts):
//                 each paper an item with its metadata and an attachment whose text is Zotero's
//                 full-text index of the Markdown body; nothing else carries authors or years
//   no metadata   the Markdown alone: the floor, where the names match nothing
// Figures: doc recall@1 and @5 (medians over --seeds seeds, with their range), written to
// bench/out/author-year.json. --baseline <dir> runs the same corpora through another checkout's app
// (e.g. `git archive 7cadb44 | tar -x -C /tmp/base`, with node_modules linked), for the figures
// before libraries were read and PDF years stopped coming from CreationDate.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import * as appModule from '../src/app.ts';
import * as configModule from '../src/config.ts';
import * as runModule from '../src/eval/run.ts';
import * as prepareModule from '../src/ingest/sources/prepare.ts';
import { createLogger } from '../src/log.ts';
import type { EvalQuestion } from '../src/eval/score.ts';
import { betterBibtex, zoteroCslJson, type LibraryPaper } from '../test/fixtures/libraries.ts';
import { articleItem, pdfAttachment, startFakeZotero, zoteroKey, type FakeZotero } from '../test/helpers/fake-zotero.ts';
import { TEST_MIX, firstCreator, generatePapers, renderPaperPdf, type GeneratedPaper } from '../test/fixtures/papers.ts';
import { mulberry32 } from './prng.ts';

const { values } = parseArgs({
  options: {
    papers: { type: 'string', default: '48' },
    seeds: { type: 'string', default: '3' },
    answers: { type: 'boolean' },
    'keep-dirs': { type: 'boolean' },
    baseline: { type: 'string' },
  },
});
// The app under test: this tree's, or another checkout's for the figures before a change.
// Checkouts from before the move to src/ingest/ keep ingest/ at the top.
const baselinePath = (rel: string) => {
  const p = path.resolve(values.baseline ?? '.', rel);
  return rel.startsWith('src/ingest/') && !existsSync(p) ? path.resolve(values.baseline ?? '.', rel.slice(4)) : p;
};
const from = async <T>(rel: string, own: T): Promise<T> => (values.baseline ? ((await import(baselinePath(rel))) as T) : own);
// Checkouts from before the rename call it openApp.
const appApi = (await from('src/app.ts', appModule)) as typeof appModule & { openApp?: typeof appModule.openLabbot };
const openLabbot = appApi.openLabbot ?? appApi.openApp!;
const { loadConfig } = await from('src/config.ts', configModule);
const { runEval } = await from('src/eval/run.ts', runModule);
const N = Number(values.papers);
const SEEDS = Number(values.seeds);

const CORPORA = ['front matter', 'library .bib', 'CSL-JSON', 'Zotero', 'PDF + .bib', 'PDF only', 'no metadata'] as const;
type Corpus = (typeof CORPORA)[number];

const yaml = (s: string) => JSON.stringify(s);
const zoteroName = (p: GeneratedPaper, ext: string) =>
  `${firstCreator(p.truth.authors)} - ${p.truth.year} - ${p.truth.title
    .replace(/[\\/?*:|"<>]/g, '')
    .slice(0, 100)
    .trim()}.${ext}`;

/** The paper's text as Markdown: title, abstract, results. No author or year in the body. */
function body(p: GeneratedPaper): string {
  const t = p.truth;
  return (
    `# ${t.title}\n\n## Abstract\n\n${t.abstract}\n\n## Results\n\n${t.findings.join(' ')} ` +
    `We measured ${t.topic} in three independent clutches, blind to genotype.\n`
  );
}

const asLibrary = (p: GeneratedPaper, file?: string): LibraryPaper => ({
  key: p.key,
  title: p.truth.title,
  authors: p.truth.authors.map((a) => [a.given, a.family] as [string, string]),
  year: p.truth.year,
  journal: p.truth.journal,
  doi: p.truth.doi,
  ...(file ? { file } : {}),
});

/** Writes one corpus; returns the document id of each paper. */
async function writeCorpus(corpus: Corpus, papers: GeneratedPaper[], dir: string, seed: number): Promise<string[]> {
  const docs = path.join(dir, 'papers');
  mkdirSync(docs, { recursive: true });
  const ids: string[] = [];
  for (const p of papers) {
    let name: string;
    if (corpus === 'front matter') {
      name = `${p.key}.md`;
      const t = p.truth;
      writeFileSync(
        path.join(docs, name),
        `---\ntitle: ${yaml(t.title)}\n` +
          `authors: [${t.authors.map((a) => yaml(`${a.given} ${a.family}`)).join(', ')}]\n` +
          `year: ${t.year}\njournal: ${yaml(t.journal)}\n---\n\n${body(p)}`,
      );
    } else if (corpus === 'library .bib' || corpus === 'no metadata') {
      name = `${p.key}.md`;
      writeFileSync(path.join(docs, name), body(p));
    } else if (corpus === 'CSL-JSON') {
      name = zoteroName(p, 'md');
      writeFileSync(path.join(docs, name), body(p));
    } else {
      name = corpus === 'PDF + .bib' ? zoteroName(p, 'pdf') : p.fileName;
      writeFileSync(path.join(docs, name), await renderPaperPdf(p, seed));
    }
    ids.push(`bench:papers/${name}`);
  }
  if (corpus === 'library .bib') writeFileSync(path.join(docs, 'library.bib'), betterBibtex(papers.map((p) => asLibrary(p))));
  if (corpus === 'PDF + .bib')
    writeFileSync(path.join(docs, 'library.bib'), betterBibtex(papers.map((p) => asLibrary(p, zoteroName(p, 'pdf')))));
  if (corpus === 'CSL-JSON') writeFileSync(path.join(docs, 'library.json'), zoteroCslJson(papers.map((p) => asLibrary(p))));
  return ids;
}

const ZOTERO_KEY = 'bench-zotero-key-0123456789';
const itemKey = zoteroKey;

/** The papers as a Zotero library: metadata in the items, text in Zotero's full-text index only. */
async function zoteroLibrary(papers: GeneratedPaper[]): Promise<FakeZotero> {
  const z = await startFakeZotero({ library: 'groups/4242', apiKey: ZOTERO_KEY });
  z.put(
    papers.flatMap((p, i) => [
      articleItem(itemKey(i, 'P'), {
        title: p.truth.title,
        authors: p.truth.authors.map((a) => [a.given, a.family] as [string, string]),
        date: String(p.truth.year),
        journal: p.truth.journal,
        doi: p.truth.doi,
      }),
      pdfAttachment(itemKey(i, 'A'), itemKey(i, 'P')),
    ]),
  );
  papers.forEach((p, i) => z.setFulltext(itemKey(i, 'A'), body(p)));
  return z;
}

/** A config whose one source is the fake Zotero library. */
function zoteroConfig(z: FakeZotero, dir: string) {
  const file = path.join(dir, 'labbot.config.json');
  writeFileSync(
    file,
    JSON.stringify({ sources: [{ id: 'bench', type: 'zotero', library: 'groups/4242', apiKeyEnv: 'BENCH_ZOTERO_KEY' }] }),
  );
  return loadConfig({ ...process.env, LABBOT_CONFIG: file, ZOTERO_API_URL: z.url, BENCH_ZOTERO_KEY: ZOTERO_KEY });
}

/** One question per paper, naming its first author and year the ways people write them. */
function questions(papers: GeneratedPaper[], ids: string[], seed: number): EvalQuestion[] {
  const rnd = mulberry32(seed);
  return papers.map((p, i) => {
    const family = p.truth.authors[0].family;
    const y = p.truth.year;
    const who = p.truth.authors.length > 2 && rnd() < 0.5 ? `${family} et al.` : family;
    const named = rnd() < 0.5 ? `In ${who} ${y},` : `In ${who} (${y}),`;
    const ask =
      rnd() < 0.5
        ? `how much faster did ${p.truth.topic} proceed in mutant animals?`
        : `by how much did ${p.truth.topic} speed up in the mutants?`;
    return { id: `q${i}`, question: `${named} ${ask}`, doc_id: ids[i] };
  });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const base = loadConfig();
const dataDir = base.chromaUrl ? base.dataDir : mkdtempSync(path.join(os.tmpdir(), 'labbot-ay-data-'));
const results: Record<Corpus, { r1: number[]; r5: number[]; refused: number[]; failed: number[] }> = Object.fromEntries(
  CORPORA.map((c) => [c, { r1: [], r5: [], refused: [], failed: [] }]),
) as never;
for (let s = 0; s < SEEDS; s++) {
  const seed = 500 + s;
  // The test mix of layouts: the PDF rules were tuned on the dev mix only.
  const papers = generatePapers(seed, N, TEST_MIX);
  for (const corpus of CORPORA) {
    // A checkout from before Zotero sources has no Zotero corpus.
    if (corpus === 'Zotero' && values.baseline && !(await import(baselinePath('src/ingest/sources/prepare.ts')).catch(() => undefined)))
      continue;
    const dir = mkdtempSync(path.join(os.tmpdir(), `labbot-ay-${corpus.replace(/\W+/g, '')}-`));
    const zotero = corpus === 'Zotero' ? await zoteroLibrary(papers) : undefined;
    const ids = zotero ? [] : await writeCorpus(corpus, papers, dir, seed);
    const sources = zotero ? zoteroConfig(zotero, dir).sources : [];
    const config = { ...base, collection: `ay-${corpus.replace(/\W+/g, '').toLowerCase()}-${Date.now().toString(36)}`, dataDir, sources };
    const app = await openLabbot(config, createLogger('warn'), zotero ? {} : { loadCatalog: false });
    try {
      let summary: { failed: unknown[] };
      if (zotero) {
        const { prepareSource } = await from('src/ingest/sources/prepare.ts', prepareModule);
        // ingestSource prepares its source itself now; an older checkout's Labbot does not.
        const old = app as unknown as { indexer?: unknown; ingestSettings: { maxFileBytes: number } };
        if (!old.indexer) await prepareSource(sources[0], { maxFileBytes: old.ingestSettings.maxFileBytes });
        summary = await app.ingestSource(sources[0]);
        // Zotero names each document by its item key (a paper with only Zotero's text is "<key>.txt").
        ids.push(
          ...papers.map((_, i) => [...app.catalog.docs()].find((d) => d.path.startsWith(`${itemKey(i, 'P')}.`))?.id ?? `missing:${i}`),
        );
      } else summary = await app.ingest({ sourceId: 'bench', root: dir, kind: 'paper' });
      const report = await runEval(app, questions(papers, ids, seed), {
        k: app.config.retrieval.k,
        groups: [app.config.access.default],
        answers: Boolean(values.answers),
      });
      const r = results[corpus];
      r.r1.push(report.metrics.doc_recall_at_1);
      r.r5.push(report.metrics.doc_recall_at_5);
      r.failed.push(summary.failed.length);
      if (report.answers) r.refused.push(report.answers.refusal_rate);
      console.error(
        `seed ${seed} ${corpus}: R@1 ${(report.metrics.doc_recall_at_1 * 100).toFixed(1)}% ` +
          `R@5 ${(report.metrics.doc_recall_at_5 * 100).toFixed(1)}%${summary.failed.length ? ` (${summary.failed.length} failed)` : ''}`,
      );
    } finally {
      await app.reset();
      await app.close();
      await zotero?.close();
      if (!values['keep-dirs']) rmSync(dir, { recursive: true, force: true });
    }
  }
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const spread = (xs: number[]) => `${pct(median(xs))} (${pct(Math.min(...xs))}–${pct(Math.max(...xs))})`;
console.log(`${N} papers × ${SEEDS} seeds, one "In <first author> <year>, …" question per paper (${base.embeddings.provider} embeddings)`);
console.log(`| corpus | doc recall@1 | doc recall@5 |${values.answers ? ' refusals |' : ''}`);
console.log(`|---|---|---|${values.answers ? '---|' : ''}`);
for (const c of CORPORA) {
  const r = results[c];
  if (r.r1.length === 0) continue;
  console.log(`| ${c} | ${spread(r.r1)} | ${spread(r.r5)} |${values.answers ? ` ${spread(r.refused)} |` : ''}`);
}
mkdirSync('bench/out', { recursive: true });
writeFileSync(
  `bench/out/author-year${values.baseline ? '-baseline' : ''}.json`,
  JSON.stringify({ papers: N, seeds: SEEDS, embeddings: base.embeddings, baseline: values.baseline ?? null, results }, null, 1),
);
