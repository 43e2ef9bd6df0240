// `npx tsx bench/baselines.ts <dataset dir> [--split dev|test] [--json]`
// Retrieval quality of labbot against naive pipelines on one dataset, in one run, every row
// scored by the same code as `labbot eval` (same k and context budget as the product):
// - "LangChain tutorial": RecursiveCharacterTextSplitter 1000/150 + BM25Retriever, what many
//   LangChain tutorials do. That retriever is not standard BM25 (it lowercases the query but not
//   the documents, keeps punctuation and matches substrings), so it is kept, named, but not the
//   fair baseline;
// - "splitter 1000/150 + BM25" and "splitter 500/50 + BM25": the same splitter with a standard
//   BM25 (labbot's own index: Okapi BM25, k1 1.2, b 0.75, stemming and stop words) on the naive
//   chunks: the fair naive baseline;
// - every naive chunk carries what labbot's own chunks carry beyond the body: the document's title
//   before it and its subject terms (keywords, tags, MeSH) after it, so the margins measure the
//   chunking and ranking, not metadata only one side was given;
// - "labbot lexical only" (labbot's chunking, BM25, exact-match boost, rerank, no vectors) and
//   "labbot hybrid" (the product as configured).
import { readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BM25Retriever } from '@langchain/community/retrievers/bm25';
import { RecursiveCharacterTextSplitter } from '@langchain/textsplitters';
import matter from 'gray-matter';
import { openLabbot } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { inSplit, SPLITS, type Split } from '../src/eval/split.ts';
import { createLogger } from '../src/log.ts';
import { createLexicalIndex } from '../src/search/bm25.ts';
import { parseQuestions, scoreQuestion, summarize, type EvalMetrics, type EvalPassage, type EvalQuestion } from '../src/eval/score.ts';
import { retrieve } from '../src/search/retrieve.ts';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { split: { type: 'string' }, json: { type: 'boolean' } } });
const dir = path.resolve(positionals[0] ?? '');
const split = values.split as Split | undefined;
if (!positionals[0] || (split && !SPLITS.includes(split))) {
  console.error('usage: npx tsx bench/baselines.ts <dataset dir with docs/ and questions.jsonl> [--split dev|test] [--json]');
  process.exit(2);
}
const base = loadConfig();
const { k, contextChars } = base.retrieval;
const { questions: all } = parseQuestions(readFileSync(path.join(dir, 'questions.jsonl'), 'utf8'));
const questions = inSplit(all, split, (q) => q.doc_id);

interface Row {
  name: string;
  chunks: number;
  metrics: EvalMetrics;
}
const rows: Row[] = [];
const score = (name: string, chunks: number, results: EvalPassage[][]) => {
  const scores = questions.map((q, i) => scoreQuestion(q, results[i], { k, contextChars }));
  rows.push({ name, chunks, metrics: summarize(scores, k) });
};

// The same fields labbot's metadata reader takes subject terms from (src/ingest/metadata/coerce.ts).
const SUBJECT_FIELDS = ['keywords', 'keyword', 'tags', 'mesh', 'subjects', 'subject'];
const sources = readdirSync(path.join(dir, 'docs')).map((f) => {
  const parsed = matter(readFileSync(path.join(dir, 'docs', f), 'utf8'));
  const field = SUBJECT_FIELDS.map((k) => parsed.data[k]).find((v) => v !== undefined);
  const subjects = Array.isArray(field) ? field.map(String) : typeof field === 'string' ? field.split(/[;,]/) : [];
  const title = typeof parsed.data.title === 'string' ? parsed.data.title : path.basename(f, path.extname(f));
  return { id: String(parsed.data.id ?? f), title, subjects: subjects.map((t) => t.trim()).filter(Boolean), text: parsed.content };
});
async function naiveChunks(size: number, overlap: number) {
  const splitter = new RecursiveCharacterTextSplitter({ chunkSize: size, chunkOverlap: overlap });
  const out = [];
  for (const s of sources)
    for (const d of await splitter.createDocuments([s.text], [{ doc_id: s.id }])) {
      d.pageContent = [s.title, d.pageContent, s.subjects.join('; ')].filter(Boolean).join('\n');
      out.push(d);
    }
  return out;
}
const run = async (qs: EvalQuestion[], search: (q: string) => Promise<EvalPassage[]> | EvalPassage[]) => {
  const out: EvalPassage[][] = [];
  for (const q of qs) out.push(await search(q.question));
  return out;
};

{
  const docs = await naiveChunks(1000, 150);
  const tutorial = BM25Retriever.fromDocuments(docs, { k });
  score(
    'LangChain tutorial: splitter 1000/150 + BM25Retriever',
    docs.length,
    await run(questions, async (q) =>
      (await tutorial.invoke(q)).map((d, i) => ({
        doc_id: String(d.metadata.doc_id),
        chunk_id: String(i),
        section: '',
        text: d.pageContent,
        score: 0,
      })),
    ),
  );
}
for (const [size, overlap] of [
  [1000, 150],
  [500, 50],
]) {
  const docs = await naiveChunks(size, overlap);
  const index = createLexicalIndex();
  docs.forEach((d, i) => index.add(String(i), d.pageContent));
  score(
    `splitter ${size}/${overlap} + BM25`,
    docs.length,
    await run(questions, (q) =>
      index.search(q, k).map((h) => ({
        doc_id: String(docs[Number(h.id)].metadata.doc_id),
        chunk_id: h.id,
        section: '',
        text: docs[Number(h.id)].pageContent,
        score: h.score,
      })),
    ),
  );
}

const app = await openLabbot(
  {
    ...base,
    collection: `baselines-${Date.now().toString(36)}`,
    sources: [],
    dataDir: base.chromaUrl ? base.dataDir : path.join(os.tmpdir(), `labbot-baselines-${process.pid}`),
  },
  createLogger('warn'),
  { loadCatalog: false },
);
try {
  await app.ingest({ sourceId: path.basename(dir), root: path.join(dir, 'docs') });
  const chunks = app.catalog.stats().chunks;
  const asEval = (ps: Awaited<ReturnType<typeof retrieve>>['passages']) =>
    ps.map((p) => ({ doc_id: p.docId, chunk_id: p.chunkId, section: p.section, text: p.text, score: p.score }));
  const group = [app.config.access.default];
  score(
    'labbot lexical only',
    chunks,
    await run(questions, async (q) =>
      asEval(
        (
          await retrieve(
            q,
            group,
            { ...app.config.retrieval, denseWeight: 0 },
            {
              catalog: app.catalog,
              dense: async () => [],
              embedQuery: () => Promise.reject(new Error('lexical only')),
              reranker: app.reranker,
            },
            k,
          )
        ).passages,
      ),
    ),
  );
  score(
    `labbot hybrid (${app.versionDescription})`,
    chunks,
    await run(questions, async (q) => asEval((await app.retrieve(q, group, k)).passages)),
  );
} finally {
  await app.reset();
  await app.close();
}

if (values.json)
  console.log(
    JSON.stringify({ dataset: path.basename(dir), split: split ?? 'all', k, contextChars, questions: questions.length, rows }, null, 2),
  );
else {
  const pct = (v: number | undefined) => (v === undefined ? 'n/a' : `${(v * 100).toFixed(1)}%`);
  console.log(`${path.basename(dir)}, ${questions.length} questions (split ${split ?? 'all'}), k ${k}, context ${contextChars} chars`);
  console.log(`| pipeline | chunks | doc R@1 | R@5 | R@${k} | MRR@${k} | doc in context | answer-in-context |`);
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const m = r.metrics;
    console.log(
      `| ${r.name} | ${r.chunks} | ${pct(m.doc_recall_at_1)} | ${pct(m.doc_recall_at_5)} ` +
        `| ${pct(m.doc_recall_at_k)} | ${m.mrr_at_k.toFixed(3)} | ${pct(m.doc_in_context)} ` +
        `| ${m.with_answers ? pct(m.answer_in_context) : 'n/a'} |`,
    );
  }
}
