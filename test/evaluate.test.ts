import { describe, expect, it } from 'vitest';
import { parseOffCorpus, parseQuestions, scoreQuestion, summarize } from '../src/eval/score.ts';

const p = (doc: string, text: string) => ({ doc_id: doc, chunk_id: `${doc}#0`, section: '', text, score: 1 });

const at = { k: 8, contextChars: 6000 };

describe('evaluation metrics', () => {
  it('computes doc recall@k and MRR from the first passage of the gold document', () => {
    const s1 = scoreQuestion({ id: 'q1', question: '?', doc_id: 'a' }, [p('a', 'x'), p('b', 'y')], at);
    const s2 = scoreQuestion({ id: 'q2', question: '?', doc_id: 'b' }, [p('a', 'x'), p('c', 'z'), p('b', 'y')], at);
    const s3 = scoreQuestion({ id: 'q3', question: '?', doc_id: 'z' }, [p('a', 'x')], at);
    expect([s1.docRank, s2.docRank, s3.docRank]).toEqual([1, 3, undefined]);
    const m = summarize([s1, s2, s3], 8);
    expect(m.doc_recall_at_1).toBeCloseTo(1 / 3);
    expect(m.doc_recall_at_5).toBeCloseTo(2 / 3);
    expect(m.mrr_at_k).toBeCloseTo((1 + 1 / 3) / 3);
    expect(m.answer_in_context).toBeUndefined();
  });

  it('answer metrics collapse whitespace and case; context stops at the budget', () => {
    const passages = [p('a', 'a'.repeat(50)), p('a', 'The dose was 5  MG per kg'), p('b', 'late answer 42 units')];
    const s = scoreQuestion({ id: 'q', question: '?', doc_id: 'a', answers: ['5 mg per KG', 'never'] }, passages, {
      k: 8,
      contextChars: 100,
    });
    expect(s.answerAt5).toBe(true);
    expect(s.answerInContext).toBe(true);
    const late = scoreQuestion({ id: 'q', question: '?', doc_id: 'b', answers: ['42 units'] }, passages, { k: 8, contextChars: 80 });
    expect(late.answerAt5).toBe(true);
    expect(late.answerInContext).toBe(false);
    expect(late.docRank).toBe(3);
    expect(late.docInContext).toBe(false);
    expect(summarize([s, late], 8).answer_in_context).toBe(0.5);
    expect(summarize([s, late], 8).doc_in_context).toBe(0.5);
    // Within the document ranked first: s's doc is first and its span fits; late's doc is third.
    expect(summarize([s, late], 8).answer_in_context_at_doc_1).toBe(1);
    const missed = scoreQuestion({ id: 'q', question: '?', doc_id: 'a', answers: ['42 units'] }, passages, { k: 8, contextChars: 80 });
    expect(summarize([s, missed], 8).answer_in_context_at_doc_1).toBe(0.5);
  });

  it('cuts recall and MRR at k: a gold document below k counts as not retrieved', () => {
    const passages = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'gold', 'j'].map((d) => p(d, d));
    const s = scoreQuestion({ id: 'q', question: '?', doc_id: 'gold' }, passages, { k: 8, contextChars: 6000 });
    expect(s.docRank).toBeUndefined();
    expect(scoreQuestion({ id: 'q', question: '?', doc_id: 'gold' }, passages, { k: 10, contextChars: 6000 }).docRank).toBe(9);
    expect(summarize([s], 8).doc_recall_at_k).toBe(0);
  });

  it('parses question lines and reports bad ones', () => {
    const { questions, errors } = parseQuestions(
      '{"id":"a","question":"q?","doc_id":"d","answers":["x"]}\nnot json\n\n{"question":"only"}\n',
    );
    expect(questions).toHaveLength(1);
    expect(questions[0].answers).toEqual(['x']);
    expect(errors).toHaveLength(2);
  });

  it('parses off-corpus questions without a gold document and reports bad lines', () => {
    const { questions, errors } = parseOffCorpus(
      '{"question":"Capital of Peru?"}\n{"id":"x","question":"q?","doc_id":"pubmedqa-1","kind":"on-topic"}\n{"question":""}\n[1]\n',
    );
    expect(questions).toEqual([
      { id: 'line-1', question: 'Capital of Peru?' },
      { id: 'x', question: 'q?', doc_id: 'pubmedqa-1', kind: 'on-topic' },
    ]);
    expect(errors).toHaveLength(2);
  });
});
