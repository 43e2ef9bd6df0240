// Builds datasets/pubmedqa/ from PubMedQA's public source file, so the committed dev dataset can
// be rebuilt from the source and checked:
//
//   git clone https://github.com/pubmedqa/pubmedqa          (commit 1cbae8e9 was used)
//   npx tsx bench/datasets/pubmedqa.ts pubmedqa/data/ori_pqal.json [out dir, default datasets/pubmedqa]
//
// Writes <out>/docs/pubmedqa-<PMID>.md (one abstract each), <out>/questions.jsonl (all questions)
// and the split by document: questions.dev.jsonl (tune settings here) and questions.test.jsonl
// (report here; never tuned on). Output is deterministic: rerunning it on the same source gives
// the same bytes. Files of a previous run that the source no longer has are removed from docs/.

import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { splitOf } from '../../src/eval/split.ts';

const SOURCE_NOTE = 'PubMedQA PQA-L (github.com/pubmedqa/pubmedqa, data/ori_pqal.json)';

const Entry = z.object({
  QUESTION: z.string(),
  CONTEXTS: z.array(z.string()),
  LABELS: z.array(z.string()),
  MESHES: z.array(z.string()).default([]),
  YEAR: z.string().nullable().optional(),
  final_decision: z.enum(['yes', 'no', 'maybe']),
  LONG_ANSWER: z.string(),
});
type Entry = z.infer<typeof Entry>;

// The split is the one every evaluation uses (by document, by hash): src/eval/split.ts.
export { splitOf, type Split } from '../../src/eval/split.ts';

export function docMarkdown(pmid: string, e: Entry): string {
  if (e.LABELS.length !== e.CONTEXTS.length) {
    throw new Error(`PMID ${pmid}: ${e.LABELS.length} labels for ${e.CONTEXTS.length} contexts`);
  }
  const year = e.YEAR ? Number(e.YEAR) : null;
  if (year !== null && !Number.isInteger(year)) throw new Error(`PMID ${pmid}: YEAR ${e.YEAR} is not a year`);
  // Values written as JSON, which is valid YAML and needs no quoting rules of its own.
  const front = [
    ['id', `pubmedqa-${pmid}`],
    // The dataset has no titles, and its question is the article's own title: using it would hand
    // retrieval the answer, so the title is a display placeholder.
    ['title', `PMID ${pmid}`],
    ['authors', []],
    ['year', year],
    ['doi', null],
    ['url', `https://pubmed.ncbi.nlm.nih.gov/${pmid}/`],
    ['pmid', pmid],
    ['mesh', e.MESHES],
    ['source', SOURCE_NOTE],
    ['license', 'MIT'],
  ].map(([k, v]) => `${k}: ${JSON.stringify(v)}`);
  const body = e.LABELS.map((label, i) => `## ${label}\n\n${e.CONTEXTS[i]}`).join('\n\n');
  return `---\n${front.join('\n')}\n---\n\n${body}\n`;
}

export function questionLine(pmid: string, e: Entry): string {
  return JSON.stringify({
    id: `pubmedqa-q${pmid}`,
    question: e.QUESTION,
    doc_id: `pubmedqa-${pmid}`,
    answers: [],
    final_decision: e.final_decision,
    long_answer: e.LONG_ANSWER,
  });
}

export interface Converted {
  docs: Map<string, string>;
  questions: string[];
  dev: string[];
  test: string[];
}

/** The whole conversion as values: source JSON text in, file contents out. */
export function convert(sourceJson: string): Converted {
  const parsed = z.record(z.string().regex(/^\d+$/), Entry).parse(JSON.parse(sourceJson));
  const out: Converted = { docs: new Map(), questions: [], dev: [], test: [] };
  // Numeric PMID order, whatever order the source object happens to list them in.
  for (const pmid of Object.keys(parsed).sort((a, b) => Number(a) - Number(b))) {
    const e = parsed[pmid]!;
    out.docs.set(`pubmedqa-${pmid}.md`, docMarkdown(pmid, e));
    const line = questionLine(pmid, e);
    out.questions.push(line);
    out[splitOf(`pubmedqa-${pmid}`)].push(line);
  }
  return out;
}

function writeDataset(outDir: string, c: Converted): void {
  const docsDir = path.join(outDir, 'docs');
  mkdirSync(docsDir, { recursive: true });
  for (const f of readdirSync(docsDir)) if (f.endsWith('.md') && !c.docs.has(f)) rmSync(path.join(docsDir, f));
  for (const [name, text] of c.docs) writeFileSync(path.join(docsDir, name), text);
  const jsonl = (lines: string[]) => lines.map((l) => `${l}\n`).join('');
  writeFileSync(path.join(outDir, 'questions.jsonl'), jsonl(c.questions));
  writeFileSync(path.join(outDir, 'questions.dev.jsonl'), jsonl(c.dev));
  writeFileSync(path.join(outDir, 'questions.test.jsonl'), jsonl(c.test));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [source, outDir = 'datasets/pubmedqa'] = process.argv.slice(2);
  if (!source) {
    console.error('usage: npx tsx bench/datasets/pubmedqa.ts <ori_pqal.json> [out dir, default datasets/pubmedqa]');
    process.exit(2);
  }
  const c = convert(readFileSync(source, 'utf8'));
  writeDataset(outDir, c);
  console.log(`${c.docs.size} documents, ${c.questions.length} questions (dev ${c.dev.length}, test ${c.test.length}) -> ${outDir}`);
}
