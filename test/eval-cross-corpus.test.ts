import { describe, expect, it } from 'vitest';
import { crossCorpusQuestions } from '../src/eval/cross-corpus.ts';
import { offCorpusInSplit } from '../src/eval/split.ts';

describe('out-of-corpus sets from other corpora', () => {
  const sets = [
    { name: 'covidqa', questions: [{ id: 'q1', question: 'How many cases?', doc_id: 'covidqa-1' }] },
    { name: 'lab', questions: [{ id: 'q1', question: 'Which antibody?', doc_id: 'protocol-western-blot' }] },
    {
      name: 'off',
      questions: [
        { id: 'gk01', question: 'Capital of Mongolia?', kind: 'general', split: 'dev' as const },
        { id: 'ot01', question: 'GAPDH dilution?', kind: 'on-topic', split: 'test' as const },
      ],
    },
  ];

  it("keeps two sets' equal ids apart, each question's kind, document and split", () => {
    const out = crossCorpusQuestions(sets);
    expect(out.map((q) => q.id)).toEqual(['covidqa-q1', 'lab-q1', 'off-gk01', 'off-ot01']);
    expect(out.map((q) => q.kind)).toEqual(['covidqa', 'lab', 'general', 'on-topic']);
    expect(out[0].doc_id).toBe('covidqa-1');
    expect(offCorpusInSplit(out, 'dev').map((q) => q.id)).toContain('off-gk01');
    expect(offCorpusInSplit(out, 'test').map((q) => q.id)).toContain('off-ot01');
    expect(offCorpusInSplit(out, 'dev').map((q) => q.id)).not.toContain('off-ot01');
  });
});
