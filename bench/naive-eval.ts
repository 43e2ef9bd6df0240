// `npx tsx bench/naive-eval.ts <dataset dir>`: the naive LangChain baseline the issue compares
// against (RecursiveCharacterTextSplitter 1000/150 + BM25Retriever), scored with the same metrics
// as `labbot eval`, so a dataset's numbers can be read next to labbot's.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { BM25Retriever } from '@langchain/community/retrievers/bm25';
import { RecursiveCharacterTextSplitter } from '@langchain/textsplitters';
import matter from 'gray-matter';
import { parseQuestions, scoreQuestion, summarize } from '../src/search/evaluate.ts';

const dir = path.resolve(process.argv[2] ?? '');
const splitter = new RecursiveCharacterTextSplitter({ chunkSize: 1000, chunkOverlap: 150 });
const docs = [];
for (const f of readdirSync(path.join(dir, 'docs'))) {
  const parsed = matter(readFileSync(path.join(dir, 'docs', f), 'utf8'));
  const id = String(parsed.data.id ?? f);
  docs.push(...(await splitter.createDocuments([parsed.content], [{ doc_id: id }])));
}
const retriever = BM25Retriever.fromDocuments(docs, { k: 10 });
const { questions } = parseQuestions(readFileSync(path.join(dir, 'questions.jsonl'), 'utf8'));
const scores = [];
for (const q of questions) {
  const hits = await retriever.invoke(q.question);
  const passages = hits.map((d, i) => ({ doc_id: String(d.metadata.doc_id), chunk_id: String(i), section: '', text: d.pageContent, score: 0 }));
  scores.push(scoreQuestion(q, passages, 6000));
}
const m = summarize(scores);
const pct = (v: number | undefined) => (v === undefined ? '-' : `${(v * 100).toFixed(1)}%`);
console.log(`naive 1000/150 + BM25Retriever on ${path.basename(dir)}: ${docs.length} chunks, ${m.questions} questions`);
console.log(`doc recall@1 ${pct(m.doc_recall_at_1)}  @5 ${pct(m.doc_recall_at_5)}  @10 ${pct(m.doc_recall_at_10)}  answer-in-context ${pct(m.answer_in_context)}`);
