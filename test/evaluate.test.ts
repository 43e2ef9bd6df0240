import { describe, expect, it } from 'vitest';
import { contextPassages, parseQuestions, scoreQuestion, summarize } from '../src/search/evaluate.ts';

const p = (doc: string, text: string) => ({ doc_id: doc, chunk_id: `${doc}#0`, section: '', text, score: 1 });

describe('evaluation metrics', () => {
  it('computes doc recall@k and MRR from the first passage of the gold document', () => {
    const s1 = scoreQuestion({ id: 'q1', question: '?', doc_id: 'a' }, [p('a', 'x'), p('b', 'y')], 6000);
    const s2 = scoreQuestion({ id: 'q2', question: '?', doc_id: 'b' }, [p('a', 'x'), p('c', 'z'), p('b', 'y')], 6000);
    const s3 = scoreQuestion({ id: 'q3', question: '?', doc_id: 'z' }, [p('a', 'x')], 6000);
    expect([s1.docRank, s2.docRank, s3.docRank]).toEqual([1, 3, undefined]);
    const m = summarize([s1, s2, s3]);
    expect(m.doc_recall_at_1).toBeCloseTo(1 / 3);
    expect(m.doc_recall_at_5).toBeCloseTo(2 / 3);
    expect(m.mrr_at_10).toBeCloseTo((1 + 1 / 3) / 3);
    expect(m.answer_in_context).toBeUndefined();
  });

  it('answer metrics collapse whitespace and case; context stops at the budget', () => {
    const passages = [p('a', 'a'.repeat(50)), p('a', 'The dose was 5  MG per kg'), p('b', 'late answer 42 units')];
    const s = scoreQuestion({ id: 'q', question: '?', doc_id: 'a', answers: ['5 mg per KG', 'never'] }, passages, 100);
    expect(s.answerAt5).toBe(true);
    expect(s.answerInContext).toBe(true);
    const late = scoreQuestion({ id: 'q', question: '?', doc_id: 'a', answers: ['42 units'] }, passages, 80);
    expect(late.answerAt5).toBe(true);
    expect(late.answerInContext).toBe(false);
    expect(contextPassages(passages, 80).length).toBe(2);
    expect(summarize([s, late]).answer_in_context).toBe(0.5);
  });

  it('parses question lines and reports bad ones', () => {
    const { questions, errors } = parseQuestions('{"id":"a","question":"q?","doc_id":"d","answers":["x"]}\nnot json\n\n{"question":"only"}\n');
    expect(questions).toHaveLength(1);
    expect(questions[0].answers).toEqual(['x']);
    expect(errors).toHaveLength(2);
  });
});
