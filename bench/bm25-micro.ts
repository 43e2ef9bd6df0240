// Micro-benchmark of the lexical index at a realistic scale.
//   npx tsx bench/bm25-micro.ts [N=100000] [queries=1000]
// Chunks (~900 characters) are synthesised from sentences of the 1000 PubMedQA abstracts, with
// catalogue numbers and numbers sprinkled in so the vocabulary has a realistic long tail;
// queries are the PubMedQA questions as asked ("natural") and lengthened with a sentence of
// their long answer to 8-20 analysed terms ("long"), like a question with thread context.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { createLexicalIndex } from '../src/search/bm25.ts';
import { tokenize } from '../src/search/tokenize.ts';
import { mulberry32 } from './prng.ts';

const N = Number(process.argv[2] ?? 100_000);
const Q = Number(process.argv[3] ?? 1000);
const K = 50;
const DATA = path.resolve('datasets/pubmedqa');

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const rnd = mulberry32(42);
const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)];

const sentences: string[] = [];
for (const f of readdirSync(path.join(DATA, 'docs'))) {
  const body = readFileSync(path.join(DATA, 'docs', f), 'utf8').replace(/^---[\s\S]*?---/, '');
  for (const para of body.split(/\n+/)) {
    if (para.startsWith('#') || !para.trim()) continue;
    for (const s of para.split(/(?<=[.!?])\s+(?=[A-Z])/)) if (s.length > 20) sentences.push(s.trim());
  }
}

function synthChunk(): string {
  const parts: string[] = [];
  let len = 0;
  while (len < 850) {
    const s = pick(sentences);
    if (len + s.length > 1000 && len > 500) break;
    parts.push(s);
    len += s.length + 1;
  }
  if (rnd() < 0.3) parts.push(`Antibody ab${Math.floor(10000 + rnd() * 900000)} was used.`);
  if (rnd() < 0.3) parts.push(`Batch ${Math.floor(rnd() * 1e6)}.`);
  return parts.join(' ');
}

interface Question {
  question: string;
  long_answer: string;
}
const questions: Question[] = readFileSync(path.join(DATA, 'questions.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as Question)
  .slice(0, Q);
const natural = questions.map((q) => q.question);
const long = questions.map((q) => {
  const words = `${q.question} ${q.long_answer.split(/(?<=\.)\s+/)[0]}`.split(/\s+/);
  // Trim to at most 20 analysed terms.
  let text = '';
  for (const w of words) {
    const next = text ? `${text} ${w}` : w;
    if (tokenize(next).length > 20) break;
    text = next;
  }
  return text;
});

const mb = (x: number) => `${(x / 1048576).toFixed(0)} MB`;
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const stats = (xs: number[]) =>
  `p50 ${pct(xs, 50).toFixed(2)} ms  p95 ${pct(xs, 95).toFixed(2)} ms  p99 ${pct(xs, 99).toFixed(2)} ms  max ${Math.max(...xs).toFixed(2)} ms`;

console.log(`corpus: ${sentences.length} sentences from ${DATA}/docs; building ${N} chunks`);
const avgTerms = Array.from({ length: 1000 }, () => tokenize(synthChunk()).length).reduce((a, x) => a + x, 0) / 1000;

// Chunks are synthesised as they are added and not kept, so the memory delta is the index's.
gc();
const before = process.memoryUsage();
const index = createLexicalIndex();
let buildMs = 0;
let chars = 0;
for (let i = 0; i < N; i++) {
  const text = synthChunk();
  chars += text.length;
  const t0 = performance.now();
  index.add(`doc${Math.floor(i / 20)}#${i % 20}`, text);
  buildMs += performance.now() - t0;
}
gc();
const after = process.memoryUsage();
const ms = index.memoryStats();
console.log(`chunks: ${N}, avg ${(chars / N).toFixed(0)} chars, ~${avgTerms.toFixed(0)} analysed terms (stop words removed)`);
console.log(`build: ${(buildMs / 1000).toFixed(1)} s in add() (${((N / buildMs) * 1000).toFixed(0)} chunks/s, tokenising included)`);
console.log(
  `index: ${ms.docs} docs, ${ms.terms} terms, ${ms.postings} postings; typed arrays ${mb(
    ms.bytes.postings + ms.bytes.docs + ms.bytes.forward + ms.bytes.terms,
  )} (postings ${mb(ms.bytes.postings)}, forward ${mb(ms.bytes.forward)}), approx total ${mb(ms.approxBytes)}`,
);
console.log(
  `memory delta from build (after gc): heapUsed +${mb(after.heapUsed - before.heapUsed)}, arrayBuffers +${mb(
    after.arrayBuffers - before.arrayBuffers,
  )}, rss +${mb(after.rss - before.rss)}; now rss ${mb(after.rss)}, peak rss ${mb(process.resourceUsage().maxRSS * 1024)}`,
);

function run(label: string, qs: string[], exhaustive = false) {
  for (const q of qs.slice(0, 50)) index.search(q, K, { exhaustive }); // warm-up
  const times: number[] = [];
  let terms = 0;
  for (const q of qs) {
    terms += new Set(tokenize(q)).size;
    const s = performance.now();
    index.search(q, K, { exhaustive });
    times.push(performance.now() - s);
  }
  console.log(`${label.padEnd(28)} ${qs.length} queries, ~${(terms / qs.length).toFixed(1)} distinct terms: ${stats(times)}`);
}
run('search k=50, natural', natural);
run('search k=50, long', long);
run('exhaustive k=50, natural', natural.slice(0, 200), true);
run('exhaustive k=50, long', long.slice(0, 200), true);

// Pruned and exhaustive scoring must agree exactly: ids, order and scores.
let same = 0;
let checked = 0;
for (const q of [...natural.slice(0, 200), ...long.slice(0, 200)]) {
  const a = index.search(q, K);
  const b = index.search(q, K, { exhaustive: true });
  checked++;
  if (a.length === b.length && a.every((h, i) => h.id === b[i].id && h.score === b[i].score)) same++;
  else console.log(`MISMATCH for query: ${q}`);
}
console.log(`pruned == exhaustive (ids, order, scores) on ${same}/${checked} queries`);
