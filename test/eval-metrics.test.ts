import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { scoreAnswer, summarizeAnswers, summarizeByLang, summarizeOffCorpus, type AnswerOutcome } from '../src/eval/answers.ts';
import { formatReport } from '../src/eval/report.ts';
import type { EvalReport } from '../src/eval/run.ts';
import { parseOffCorpus, parseQuestions, scoreQuestion, summarize } from '../src/eval/score.ts';
import { inSplit, offCorpusInSplit, offCorpusSplitOf, splitOf } from '../src/eval/split.ts';
import { median, percentile, spread } from '../src/eval/stats.ts';

const q = { id: 'q', question: '?', doc_id: 'gold', answers: ['5 mg per kg'] };
const outcome = (over: Partial<AnswerOutcome>): AnswerOutcome => ({ id: 'q', answer: '', refused: false, cited: [], ms: 10, ...over });

describe('answer metrics', () => {
  it('finds a gold span in the answer across citation labels, case and spacing', () => {
    const s = scoreAnswer(q, outcome({ answer: 'The dose was 5 MG [S1]  per kg.', cited: [{ doc_id: 'gold', text: 'dose 5 mg per kg' }] }));
    expect(s.hasSpan).toBe(true);
    expect(s.citesGoldDoc).toBe(true);
    expect(s.citationPrecision).toBe(1);
    expect(s.citationDocPrecision).toBe(1);
  });

  it('scores citation precision by the cited passages that hold the answer', () => {
    const s = scoreAnswer(
      q,
      outcome({
        answer: 'Some dose [S1, S2].',
        cited: [
          { doc_id: 'gold', text: 'the dose was 5 mg per kg' },
          { doc_id: 'gold', text: 'methods without it' },
          { doc_id: 'other', text: 'nothing here' },
          { doc_id: 'other', text: 'nor here' },
        ],
      }),
    );
    expect(s.hasSpan).toBe(false);
    expect(s.citationPrecision).toBe(0.25);
    expect(s.citationDocPrecision).toBe(0.5);
  });

  it('leaves span metrics out for questions without spans, and refusals out of answer metrics', () => {
    const noSpans = scoreAnswer({ ...q, answers: [] }, outcome({ answer: 'Yes [S1].', cited: [{ doc_id: 'other', text: 'x' }] }));
    expect(noSpans.hasSpan).toBeUndefined();
    expect(noSpans.citationPrecision).toBeUndefined();
    expect(noSpans.citesGoldDoc).toBe(false);
    const refused = scoreAnswer(q, outcome({ answer: 'Not in the material.', refused: true, ms: 30 }));
    const good = scoreAnswer(q, outcome({ answer: '5 mg per kg [S1].', cited: [{ doc_id: 'gold', text: '5 mg per kg' }], ms: 20 }));
    const m = summarizeAnswers([refused, good, noSpans]);
    expect(m.questions).toBe(3);
    expect(m.answered).toBe(2);
    expect(m.refusal_rate).toBeCloseTo(1 / 3);
    expect(m.with_spans).toBe(2);
    expect(m.answer_has_span).toBe(1);
    expect(m.cites_gold_doc).toBe(0.5);
    expect(m.citation_precision).toBe(1);
    expect(m.citation_doc_precision).toBe(0.5);
    expect(m.median_answer_chars).toBe(('5 mg per kg [S1].'.length + 'Yes [S1].'.length) / 2);
    expect(m.ms).toEqual({ p50: 20, p95: 30 });
  });

  it('reports span metrics as null when no question has spans', () => {
    const m = summarizeAnswers([
      scoreAnswer({ ...q, answers: [] }, outcome({ answer: 'Yes [S1].', cited: [{ doc_id: 'gold', text: 'x' }] })),
    ]);
    expect(m.answer_has_span).toBeNull();
    expect(m.citation_precision).toBeNull();
    expect(m.with_spans).toBe(0);
  });

  it('counts any answer to an off-corpus question as a false answer', () => {
    const m = summarizeOffCorpus([
      outcome({ refused: true }),
      outcome({ refused: false }),
      outcome({ refused: true }),
      outcome({ refused: true }),
    ]);
    expect(m.false_answer_rate).toBe(0.25);
    expect(summarizeOffCorpus([]).false_answer_rate).toBe(0);
    expect(m.by_kind).toBeUndefined();
  });

  it('breaks the false-answer rate down by kind when questions carry one', () => {
    const m = summarizeOffCorpus([
      { ...outcome({ refused: false }), kind: 'general' },
      { ...outcome({ refused: true }), kind: 'general' },
      { ...outcome({ refused: false }), kind: 'on-topic' },
    ]);
    expect(m.false_answer_rate).toBeCloseTo(2 / 3);
    expect(m.by_kind).toEqual({ general: { questions: 2, false_answer_rate: 0.5 }, 'on-topic': { questions: 1, false_answer_rate: 1 } });
  });
});

describe('figures by question language', () => {
  const { questions } = parseQuestions(
    [
      '{"id":"a","question":"¿Dosis?","doc_id":"gold","answers":["5 mg"],"lang":"es"}',
      '{"id":"b","question":"Dose?","doc_id":"gold","answers":["5 mg"],"lang":"EN"}',
      '{"id":"c","question":"Dose again?","doc_id":"gold","answers":["5 mg"],"lang":"en"}',
      '{"id":"d","question":"No language","doc_id":"gold","answers":["5 mg"]}',
    ].join('\n'),
  );
  const gold = { doc_id: 'gold', chunk_id: 'g1', section: '', text: 'the dose was 5 mg', score: 1 };
  const other = { doc_id: 'other', chunk_id: 'o1', section: '', text: 'unrelated', score: 1 };
  const settings = { k: 8, contextChars: 6000 };
  // a: the gold document second and answered wrongly; b: found first and answered; c: not found, refused.
  const scores = [
    scoreQuestion(questions[0], [other, gold], settings),
    scoreQuestion(questions[1], [gold], settings),
    scoreQuestion(questions[2], [other], settings),
    scoreQuestion(questions[3], [gold], settings),
  ];
  const answers = [
    scoreAnswer(questions[0], outcome({ answer: 'Unknown [S1].', cited: [{ doc_id: 'other', text: 'unrelated' }] })),
    scoreAnswer(questions[1], outcome({ answer: 'The dose was 5 mg [S1].', cited: [{ doc_id: 'gold', text: 'the dose was 5 mg' }] })),
    scoreAnswer(questions[2], outcome({ refused: true })),
    scoreAnswer(questions[3], outcome({ answer: '5 mg [S1].', cited: [{ doc_id: 'gold', text: 'the dose was 5 mg' }] })),
  ];
  const rows = questions.map((q, i) => ({ lang: q.lang, score: scores[i], answer: answers[i] }));

  it('reads the language of each question line, normalised, and leaves it out when absent', () => {
    expect(questions.map((q) => q.lang)).toEqual(['es', 'en', 'en', undefined]);
  });

  it('scores each language on its own questions only', () => {
    const by = summarizeByLang(rows, 8)!;
    expect(Object.keys(by)).toEqual(['en', 'es']);
    expect(by.es.metrics).toMatchObject({ questions: 1, doc_recall_at_1: 0, doc_recall_at_5: 1, answer_in_context: 1 });
    expect(by.es.answers).toMatchObject({ questions: 1, refusal_rate: 0, answer_has_span: 0 });
    expect(by.en.metrics).toMatchObject({ questions: 2, doc_recall_at_1: 0.5, answer_in_context: 0.5 });
    expect(by.en.answers).toMatchObject({ questions: 2, refusal_rate: 0.5, answer_has_span: 1 });
  });

  it('has no breakdown when no question names its language, and none of answers without --answers', () => {
    expect(
      summarizeByLang(
        rows.map(({ score, answer }) => ({ score, answer })),
        8,
      ),
    ).toBeUndefined();
    expect(
      summarizeByLang(
        rows.map(({ lang, score }) => ({ lang, score })),
        8,
      )!.es.answers,
    ).toBeUndefined();
  });

  it('prints one line per language in the text report', () => {
    const report: EvalReport = {
      settings: {
        k: 8,
        context_chars: 6000,
        fusion: 'weighted',
        chunking: { size: 800, overlap: 100 },
        answerer: 'extractive',
        split: 'all',
      },
      metrics: summarize(scores, 8),
      retrieval_ms: { p50: 1, p95: 2 },
      answers: summarizeAnswers(answers),
      by_lang: summarizeByLang(rows, 8),
      results: [],
    };
    const text = formatReport(report);
    expect(text).toContain('by question language');
    expect(text).toMatch(/^ {2}en \(2\) +doc R@1 50\.0%, gold span in context 50\.0%, refusals 50\.0%, answer has span 100\.0%$/m);
    expect(text).toMatch(/^ {2}es \(1\) +doc R@1 0\.0%, gold span in context 100\.0%, refusals 0\.0%, answer has span 0\.0%$/m);
    expect(formatReport({ ...report, by_lang: undefined })).not.toContain('by question language');
  });
});

describe('dev/test split', () => {
  it('is decided by the document id alone, the same on every call', () => {
    expect(splitOf('pubmedqa-21645374')).toBe(splitOf('pubmedqa-21645374'));
    const ids = Array.from({ length: 2000 }, (_, i) => `doc-${i}`);
    const dev = ids.filter((id) => splitOf(id) === 'dev').length;
    expect(dev).toBeGreaterThan(900);
    expect(dev).toBeLessThan(1100);
  });

  it('keeps every question about one document on the same side', () => {
    const qs = ['a', 'a', 'b', 'b', 'c', 'c', 'd', 'e', 'f', 'g'].map((doc, i) => ({ id: `q${i}`, doc }));
    const dev = inSplit(qs, 'dev', (x) => x.doc);
    const test = inSplit(qs, 'test', (x) => x.doc);
    expect(dev.length + test.length).toBe(qs.length);
    for (const x of dev) expect(test.some((y) => y.doc === x.doc)).toBe(false);
    expect(inSplit(qs, undefined, (x) => x.doc)).toBe(qs);
  });

  it("puts every off-corpus question on exactly one side: its own, its document's, or its text's", () => {
    type Item = { question: string; doc_id?: string; split?: 'dev' | 'test' };
    const docs: Item[] = Array.from({ length: 20 }, (_, i) => ({ question: `q${i}?`, doc_id: `doc-${i}` }));
    const general: Item[] = Array.from({ length: 40 }, (_, i) => ({ question: `general question ${i}?` }));
    const pinned: Item[] = [
      { question: 'pinned to dev?', doc_id: 'doc-1', split: 'dev' },
      { question: 'pinned to test?', split: 'test' },
    ];
    const all = [...docs, ...general, ...pinned];
    const dev = offCorpusInSplit(all, 'dev');
    const test = offCorpusInSplit(all, 'test');
    expect(dev.length + test.length).toBe(all.length);
    for (const x of dev) expect(test).not.toContain(x);
    for (const x of dev) if (x.doc_id !== undefined && x.split === undefined) expect(splitOf(x.doc_id)).toBe('dev');
    expect(dev).toContain(pinned[0]);
    expect(test).toContain(pinned[1]);
    // Questions tied to nothing fall on both sides in some number, not all on one.
    expect(dev.filter((x) => x.doc_id === undefined).length).toBeGreaterThan(5);
    expect(test.filter((x) => x.doc_id === undefined).length).toBeGreaterThan(5);
    // Padding the text does not move a question.
    expect(offCorpusSplitOf({ question: ' general question 3? ' })).toBe(offCorpusSplitOf({ question: 'general question 3?' }));
  });

  it('splits the shipped off-corpus file into halves of each kind', () => {
    const { questions, errors } = parseOffCorpus(readFileSync('bench/datasets/off-corpus.jsonl', 'utf8'));
    expect(errors).toEqual([]);
    for (const kind of ['general', 'on-topic']) {
      const of = questions.filter((q) => q.kind === kind);
      const dev = offCorpusInSplit(of, 'dev').length;
      expect(Math.abs(dev - (of.length - dev))).toBeLessThanOrEqual(1);
    }
  });

  it('rejects an off-corpus line whose split is neither dev nor test', () => {
    expect(parseOffCorpus('{"question":"q?","split":"train"}\n').errors[0]).toMatch(/split/);
  });
});

describe('order statistics', () => {
  it('computes nearest-rank percentiles, medians and spreads', () => {
    const xs = [5, 1, 4, 2, 3, 6, 7, 8, 9, 10];
    expect(percentile(xs, 0.5)).toBe(5);
    expect(percentile(xs, 0.95)).toBe(10);
    expect(percentile([], 0.5)).toBe(0);
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    expect(spread([3, 9, 5])).toEqual({ median: 5, min: 3, max: 9, runs: 3 });
  });
});
