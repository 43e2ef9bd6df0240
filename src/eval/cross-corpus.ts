// Out-of-corpus questions for one corpus from the other evaluation sets (pure): asked against a
// different corpus, each should be refused. Ids are prefixed with their set's name so two sets'
// "q1" stay apart in the report; a question keeps its own kind ("general", "on-topic") or takes
// its set's name, and keeps its document and split so `--split` puts it on one side.
import type { OffCorpusQuestion } from './score.ts';

export interface QuestionSet {
  name: string;
  questions: readonly (OffCorpusQuestion & { lang?: string })[];
}

export function crossCorpusQuestions(sets: readonly QuestionSet[]): OffCorpusQuestion[] {
  return sets.flatMap((set) =>
    set.questions.map((q) => ({
      id: `${set.name}-${q.id}`,
      kind: q.kind ?? set.name,
      question: q.question,
      ...(q.doc_id ? { doc_id: q.doc_id } : {}),
      ...(q.split ? { split: q.split } : {}),
    })),
  );
}
