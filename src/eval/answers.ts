// End-to-end answer metrics (pure): what a user got for each question, scored against the gold
// document and, where the dataset has them, gold answer spans.
import { containsSpan, goldSpans, summarize, type EvalMetrics, type EvalQuestion, type QuestionScore } from './score.ts';
import { median, percentile } from './stats.ts';

/** One ask, as the answer path returned it. */
export interface AnswerOutcome {
  id: string;
  answer: string;
  refused: boolean;
  /** The passages the answer cited (each once), with their document. */
  cited: { doc_id: string; text: string }[];
  /** Wall time of the whole ask: retrieval, answer or extraction, citation check. */
  ms: number;
}

export interface AnswerScore {
  id: string;
  refused: boolean;
  /** The question has gold answer spans. */
  spans: boolean;
  /** Only for answered questions that have gold spans. */
  hasSpan?: boolean;
  citesGoldDoc?: boolean;
  /** Share of cited passages containing a gold span (answered, with spans, at least one citation). */
  citationPrecision?: number;
  /** Share of cited passages from the gold document (answered, at least one citation). */
  citationDocPrecision?: number;
  chars: number;
  ms: number;
}

export interface AnswerMetrics {
  questions: number;
  answered: number;
  refusal_rate: number;
  /** Questions with gold spans; the span metrics are null when there are none. */
  with_spans: number;
  /** Of answered questions with spans: the answer text contains a gold span. */
  answer_has_span: number | null;
  /** Of answered questions: a citation points into the gold document. */
  cites_gold_doc: number | null;
  /** Mean over answered questions with spans: cited passages that contain a gold span. */
  citation_precision: number | null;
  /** Mean over answered questions: cited passages from the gold document. */
  citation_doc_precision: number | null;
  /** Characters of the answers given (refusals excluded), citation labels included. */
  median_answer_chars: number | null;
  ms: { p50: number; p95: number };
}

export interface OffCorpusMetrics {
  questions: number;
  /** Questions the corpus cannot answer that got an answer instead of the refusal. */
  false_answer_rate: number;
  ms: { p50: number; p95: number };
  /** The same per `kind` of question, when the file labels them. */
  by_kind?: Record<string, { questions: number; false_answer_rate: number }>;
}

// Labels are the answerer's, not the source's: "5 mg [S1] per kg" still states "5 mg per kg".
const withoutLabels = (text: string): string => text.replace(/\s*\[\s*S\d+(?:\s*[,;–-]\s*S?\d+)*\s*\]/gi, '');

export function scoreAnswer(q: EvalQuestion, o: AnswerOutcome): AnswerScore {
  const golds = goldSpans(q);
  const score: AnswerScore = { id: q.id, refused: o.refused, spans: golds.length > 0, chars: o.answer.length, ms: o.ms };
  if (o.refused) return score;
  if (golds.length) score.hasSpan = containsSpan(withoutLabels(o.answer), golds);
  score.citesGoldDoc = o.cited.some((c) => c.doc_id === q.doc_id);
  if (o.cited.length) {
    score.citationDocPrecision = o.cited.filter((c) => c.doc_id === q.doc_id).length / o.cited.length;
    if (golds.length) score.citationPrecision = o.cited.filter((c) => containsSpan(c.text, golds)).length / o.cited.length;
  }
  return score;
}

const share = (xs: boolean[]): number | null => (xs.length ? xs.filter(Boolean).length / xs.length : null);
const mean = (xs: number[]): number | null => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
const times = (ms: number[]) => ({ p50: percentile(ms, 0.5), p95: percentile(ms, 0.95) });

export function summarizeAnswers(scores: AnswerScore[]): AnswerMetrics {
  const answered = scores.filter((s) => !s.refused);
  const defined = <K extends keyof AnswerScore>(key: K) =>
    answered.map((s) => s[key]).filter((v): v is NonNullable<AnswerScore[K]> => v !== undefined);
  return {
    questions: scores.length,
    answered: answered.length,
    refusal_rate: scores.length ? (scores.length - answered.length) / scores.length : 0,
    with_spans: scores.filter((s) => s.spans).length,
    answer_has_span: share(defined('hasSpan')),
    cites_gold_doc: share(defined('citesGoldDoc')),
    citation_precision: mean(defined('citationPrecision')),
    citation_doc_precision: mean(defined('citationDocPrecision')),
    median_answer_chars: answered.length ? median(answered.map((s) => s.chars)) : null,
    ms: times(scores.map((s) => s.ms)),
  };
}

const falseAnswers = (os: { refused: boolean }[]): number => (os.length ? os.filter((o) => !o.refused).length / os.length : 0);

export function summarizeOffCorpus(outcomes: (Pick<AnswerOutcome, 'refused' | 'ms'> & { kind?: string })[]): OffCorpusMetrics {
  const m: OffCorpusMetrics = {
    questions: outcomes.length,
    false_answer_rate: falseAnswers(outcomes),
    ms: times(outcomes.map((o) => o.ms)),
  };
  const kinds = [...new Set(outcomes.map((o) => o.kind).filter((k): k is string => k !== undefined))].sort();
  if (kinds.length) {
    m.by_kind = Object.fromEntries(
      kinds.map((kind) => {
        const of = outcomes.filter((o) => o.kind === kind);
        return [kind, { questions: of.length, false_answer_rate: falseAnswers(of) }];
      }),
    );
  }
  return m;
}

export interface LangFigures {
  metrics: EvalMetrics;
  answers?: AnswerMetrics;
}

/**
 * The retrieval and answer figures again for each question language, when the questions carry
 * one: a set that mixes Spanish questions over English documents with English ones over Spanish
 * documents would otherwise report one average that hides either direction. Questions without a
 * language are left out of the breakdown (they still count in the overall figures).
 */
export function summarizeByLang(
  rows: { lang?: string; score: QuestionScore; answer?: AnswerScore }[],
  k: number,
): Record<string, LangFigures> | undefined {
  const langs = [...new Set(rows.map((r) => r.lang).filter((l): l is string => l !== undefined))].sort();
  if (!langs.length) return undefined;
  return Object.fromEntries(
    langs.map((lang) => {
      const of = rows.filter((r) => r.lang === lang);
      const answers = of.map((r) => r.answer).filter((a): a is AnswerScore => a !== undefined);
      const figures: LangFigures = {
        metrics: summarize(
          of.map((r) => r.score),
          k,
        ),
      };
      if (answers.length) figures.answers = summarizeAnswers(answers);
      return [lang, figures];
    }),
  );
}
