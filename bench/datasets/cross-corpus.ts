// `npx tsx bench/datasets/cross-corpus.ts <out.jsonl> <kind>=<questions.jsonl> ...`
// Builds an out-of-corpus question file for `--unanswerable` from other evaluation sets: each
// line of each file becomes {id, kind, question, doc_id}, so asked against a different corpus it
// should be refused, the false-answer rate is reported per source set (`kind`), and `--split`
// keeps each question on its own document's side. Lines that already carry a `kind` (the
// general-knowledge and on-topic questions of bench/datasets/off-corpus.jsonl) keep it. Example,
// the set PubMedQA's figures in the README use:
//   npx tsx bench/datasets/cross-corpus.ts /tmp/unans-pubmedqa.jsonl \
//     covidqa=<covidqa dir>/questions.jsonl lab=examples/questions.jsonl off=bench/datasets/off-corpus.jsonl
import { readFileSync, writeFileSync } from 'node:fs';
import { parseOffCorpus } from '../../src/eval/score.ts';

const [out, ...inputs] = process.argv.slice(2);
if (!out || inputs.length === 0 || inputs.some((i) => !/^[\w-]+=./.test(i))) {
  console.error('usage: npx tsx bench/datasets/cross-corpus.ts <out.jsonl> <kind>=<questions.jsonl> ...');
  process.exit(2);
}
const lines: string[] = [];
for (const input of inputs) {
  const at = input.indexOf('=');
  const kind = input.slice(0, at);
  const file = input.slice(at + 1);
  const { questions, errors } = parseOffCorpus(readFileSync(file, 'utf8'));
  for (const e of errors) console.error(`skipped ${file} ${e}`);
  for (const q of questions) {
    // Ids are prefixed so two sets' "q1" stay apart in the report.
    lines.push(
      JSON.stringify({ id: `${kind}-${q.id}`, kind: q.kind ?? kind, question: q.question, ...(q.doc_id ? { doc_id: q.doc_id } : {}) }),
    );
  }
}
writeFileSync(out, lines.length ? `${lines.join('\n')}\n` : '');
console.log(`${lines.length} questions written to ${out}`);
