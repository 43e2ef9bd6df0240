// `npx tsx bench/pdf-metadata.ts [--n 120] [--seeds 5] [--half dev|test] [--failures] [--dev-seed 1000] [--baseline <tree>]`
// Metadata accuracy on generated PDFs with no title or author in their info dictionary (and a
// creation date years after publication): wrapped titles, several author-line styles, years in
// different places, Zotero/ZotFile/publisher file names (test/fixtures/papers.ts). A dev half and a
// test half come from different seeds and different mixes of layouts; rules are tuned on dev only.
// For each half and each of --seeds seeds, --n papers go through the ingest pipeline's own
// metadata steps (parseFile, then the document's layers resolved as ingest/pipeline.ts resolves
// them), and the share with the right title, first author and year is counted. Medians over the
// seeds with their range are written to bench/out/pdf-metadata.json and printed.
// --baseline <dir>: the same PDFs through another checkout's parser (e.g. `git archive 7cadb44 |
// tar -x -C /tmp/base`), scored the way that code resolved metadata (the PDF's own metadata, else
// its first heading, else the file name), for the figures before this change.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { familyName } from '../src/ingest/metadata/coerce.ts';
import { documentLayers } from '../src/ingest/metadata/document-layers.ts';
import { normKey, titleKey } from '../src/ingest/metadata/file-name.ts';
import { resolveMeta } from '../src/ingest/metadata/layers.ts';
import { parseFile } from '../src/ingest/parse/index.ts';
import type { DocMeta, ParsedFile } from '../src/types.ts';
import { DEV_MIX, TEST_MIX, generatePapers, renderPaperPdf, type GeneratedPaper, type LayoutMix } from '../test/fixtures/papers.ts';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '120' },
    seeds: { type: 'string', default: '5' },
    half: { type: 'string' },
    failures: { type: 'boolean' },
    baseline: { type: 'string' },
    // Other dev seeds, to look for failures on dev without touching the test half.
    'dev-seed': { type: 'string', default: '1000' },
  },
});
const N = Number(values.n);
const SEEDS = Number(values.seeds);
const HALVES: { name: 'dev' | 'test'; mix: LayoutMix; seed0: number }[] = [
  { name: 'dev', mix: DEV_MIX, seed0: Number(values['dev-seed']) },
  { name: 'test', mix: TEST_MIX, seed0: 9000 },
].filter((h) => !values.half || h.name === values.half) as { name: 'dev' | 'test'; mix: LayoutMix; seed0: number }[];

type Parse = (input: { name: string; bytes: Uint8Array }) => Promise<ParsedFile>;

interface Score {
  title: boolean;
  firstAuthor: boolean;
  year: boolean;
  got: DocMeta;
}

function score(p: GeneratedPaper, meta: DocMeta): Score {
  const first = meta.authors?.[0];
  return {
    title: !!meta.title && titleKey(meta.title) === titleKey(p.truth.title),
    firstAuthor: !!first && normKey(familyName(first)) === normKey(p.truth.authors[0].family),
    year: meta.year === p.truth.year,
    got: meta,
  };
}

/** The metadata labbot now resolves for a PDF with no sidecar or library (ingest/pipeline.ts). */
function resolveNow(parsed: ParsedFile, fileName: string): DocMeta {
  return resolveMeta(documentLayers(parsed, [], [], fileName)).meta;
}

/** What the code before this change resolved: the PDF's own metadata (its guessed title included). */
function resolveBefore(parsed: ParsedFile, fileName: string): DocMeta {
  const meta = { ...parsed.meta };
  if (!meta.title) meta.title = fileName.replace(/\.pdf$/i, '');
  return meta;
}

async function runHalf(half: (typeof HALVES)[number], parse: Parse, resolve: (p: ParsedFile, f: string) => DocMeta) {
  const perSeed: { title: number; firstAuthor: number; year: number }[] = [];
  const failures: string[] = [];
  for (let s = 0; s < SEEDS; s++) {
    const papers = generatePapers(half.seed0 + s, N, half.mix);
    let t = 0;
    let a = 0;
    let y = 0;
    for (const p of papers) {
      const bytes = await renderPaperPdf(p, half.seed0 + s);
      const parsed = await parse({ name: p.fileName, bytes });
      const r = score(p, resolve(parsed, p.fileName));
      t += Number(r.title);
      a += Number(r.firstAuthor);
      y += Number(r.year);
      if (values.failures && (!r.title || !r.firstAuthor || !r.year)) {
        failures.push(
          `${p.fileName}\n  layout ${JSON.stringify(p.layout)}\n  ` +
            `want ${JSON.stringify({ title: p.truth.title, first: p.truth.authors[0].family, year: p.truth.year })}\n  ` +
            `got  ${JSON.stringify({ title: r.got.title, authors: r.got.authors, year: r.got.year })}\n  ` +
            `wrong: ${[!r.title && 'title', !r.firstAuthor && 'first author', !r.year && 'year'].filter(Boolean).join(', ')}`,
        );
      }
    }
    perSeed.push({ title: t / papers.length, firstAuthor: a / papers.length, year: y / papers.length });
  }
  return { perSeed, failures };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const summary = (rows: { title: number; firstAuthor: number; year: number }[]) =>
  Object.fromEntries(
    (['title', 'firstAuthor', 'year'] as const).map((k) => [
      k,
      { median: median(rows.map((r) => r[k])), min: Math.min(...rows.map((r) => r[k])), max: Math.max(...rows.map((r) => r[k])) },
    ]),
  );

const ours: Parse = (input) => parseFile(input);
let before: Parse | undefined;
if (values.baseline) {
  // Checkouts from before the move to src/ingest/ keep ingest/ at the top.
  const at = existsSync(path.resolve(values.baseline, 'src/ingest')) ? 'src/ingest' : 'ingest';
  const mod = (await import(path.resolve(values.baseline, at, 'parse/index.ts'))) as { parseFile: Parse };
  before = (input) => mod.parseFile(input);
}

const out: Record<string, unknown> = { papersPerSeed: N, seeds: SEEDS, mixes: Object.fromEntries(HALVES.map((h) => [h.name, h.mix])) };
for (const half of HALVES) {
  const now = await runHalf(half, ours, resolveNow);
  const s = summary(now.perSeed);
  const row: Record<string, unknown> = { now: s, perSeed: now.perSeed };
  const line = (label: string, x: ReturnType<typeof summary>) =>
    `${half.name} ${label}: title ${pct(x.title.median)} (${pct(x.title.min)}–${pct(x.title.max)}), ` +
    `first author ${pct(x.firstAuthor.median)} (${pct(x.firstAuthor.min)}–${pct(x.firstAuthor.max)}), ` +
    `year ${pct(x.year.median)} (${pct(x.year.min)}–${pct(x.year.max)})`;
  console.log(line('now', s));
  if (before) {
    const b = await runHalf(half, before, resolveBefore);
    row.before = summary(b.perSeed);
    console.log(line('before', row.before as ReturnType<typeof summary>));
  }
  out[half.name] = row;
  if (values.failures) for (const f of now.failures) console.log(f);
}
mkdirSync('bench/out', { recursive: true });
writeFileSync('bench/out/pdf-metadata.json', JSON.stringify(out, null, 1));
