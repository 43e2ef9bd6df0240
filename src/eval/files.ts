// Reads the question files of an evaluation (the disk edge of `labbot eval` and `npm run eval`):
// bad lines are reported through `warn` and skipped, then the split is applied.
import { readFileSync } from 'node:fs';
import { parseOffCorpus, parseQuestions, type EvalQuestion, type OffCorpusQuestion } from './score.ts';
import { inSplit, offCorpusInSplit, type Split } from './split.ts';

export function loadQuestionSets(
  files: { questions?: string; unanswerable?: string; split?: Split },
  warn: (message: string) => void,
): { questions: EvalQuestion[]; offCorpus: OffCorpusQuestion[] | undefined } {
  const read = <T>(file: string, parse: (text: string) => { questions: T[]; errors: string[] }): T[] => {
    const { questions, errors } = parse(readFileSync(file, 'utf8'));
    for (const e of errors) warn(`skipped ${file} ${e}`);
    return questions;
  };
  return {
    questions: files.questions ? inSplit(read(files.questions, parseQuestions), files.split, (q) => q.doc_id) : [],
    offCorpus: files.unanswerable ? offCorpusInSplit(read(files.unanswerable, parseOffCorpus), files.split) : undefined,
  };
}
