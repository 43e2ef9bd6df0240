// `npx tsx bench/datasets/cross-corpus.ts <out.jsonl> <kind>=<questions.jsonl> ...`
// Builds an out-of-corpus question file for `--unanswerable` from other evaluation sets: each
// line of each file becomes {id, kind, question, doc_id}, so asked against a different corpus it
// should be refused, the false-answer rate is reported per source set (`kind`), and `--split`
// keeps each question on its own document's side (or the side its line names). Lines that already carry a `kind` (the
// general-knowledge and on-topic questions of bench/datasets/off-corpus.jsonl) keep it. Example,
// the set PubMedQA's figures in the README use:
//   npx tsx bench/datasets/cross-corpus.ts /tmp/unans-pubmedqa.jsonl \
//     covidqa=<covidqa dir>/questions.jsonl lab=examples/questions.jsonl off=bench/datasets/off-corpus.jsonl
import { readFileSync, writeFileSync } from 'node:fs';
import { crossCorpusQuestions } from '../../src/eval/cross-corpus.ts';
import { parseOffCorpus } from '../../src/eval/score.ts';

const [out, ...inputs] = process.argv.slice(2);
if (!out || inputs.length === 0 || inputs.some((i) => !/^[\w-]+=./.test(i))) {
  console.error('usage: npx tsx bench/datasets/cross-corpus.ts <out.jsonl> <kind>=<questions.jsonl> ...');
  process.exit(2);
}
const sets = inputs.map((input) => {
  const at = input.indexOf('=');
  const file = input.slice(at + 1);
  const { questions, errors } = parseOffCorpus(readFileSync(file, 'utf8'));
  for (const e of errors) console.error(`skipped ${file} ${e}`);
  return { name: input.slice(0, at), questions };
});
const lines = crossCorpusQuestions(sets).map((q) => JSON.stringify(q));
writeFileSync(out, lines.length ? `${lines.join('\n')}\n` : '');
console.log(`${lines.length} questions written to ${out}`);
