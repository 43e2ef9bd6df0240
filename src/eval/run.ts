// Runs an evaluation against an open Labbot: retrieval metrics on every question and, with
// `answers`, the full ask path (retrieve, context budget, model or extractive answer, citation
// check) scored end to end. Used by `labbot eval` and `npm run eval`, so both report the same.
import { answerQuestion, type AskResult } from '../answer/answer.ts';
import type { Labbot } from '../app.ts';
import { describeModel } from '../models/chat.ts';
import type { RetrievalResult } from '../search/retrieve.ts';
import {
  scoreQuestion,
  summarize,
  type EvalMetrics,
  type EvalPassage,
  type EvalQuestion,
  type OffCorpusQuestion,
  type QuestionScore,
} from './score.ts';
import {
  scoreAnswer,
  summarizeAnswers,
  summarizeByLang,
  summarizeOffCorpus,
  type AnswerMetrics,
  type AnswerOutcome,
  type AnswerScore,
  type LangFigures,
  type OffCorpusMetrics,
} from './answers.ts';
import type { Split } from './split.ts';
import { percentile } from './stats.ts';

export interface EvalOptions {
  /** Passages retrieved per question; the product's `retrieval.k` unless asked otherwise. */
  k: number;
  groups: string[];
  answers: boolean;
  offCorpus?: OffCorpusQuestion[];
  split?: Split;
}

export interface EvalResultRow {
  id: string;
  passages: EvalPassage[];
  answer?: string;
  refused?: boolean;
  cited?: string[];
  ms: number;
  /** A question from the --unanswerable file. */
  unanswerable?: true;
}

export interface EvalReport {
  settings: {
    k: number;
    context_chars: number;
    fusion: string;
    chunking: { size: number; overlap: number };
    answerer: string | null;
    split: Split | 'all';
  };
  /** Retrieval figures (the passages retrieved, and what of them fits the context budget). */
  metrics: EvalMetrics;
  retrieval_ms: { p50: number; p95: number };
  /** End-to-end answer figures (only with `answers`). */
  answers?: AnswerMetrics;
  /** The same figures per question language (only when the questions carry `lang`). */
  by_lang?: Record<string, LangFigures>;
  /** False answers on questions the corpus cannot answer (only with `offCorpus`). */
  unanswerable?: OffCorpusMetrics;
  results: EvalResultRow[];
}

type EvalApp = Pick<Labbot, 'config' | 'log' | 'chat' | 'retrieve'>;

const asEvalPassages = (r: RetrievalResult): EvalPassage[] =>
  r.passages.map((p) => ({ doc_id: p.docId, chunk_id: p.chunkId, section: p.section, text: p.text, score: p.score }));

/** One question through the same answer path `app.ask` runs, keeping the retrieval it used. */
async function askOnce(
  app: EvalApp,
  question: string,
  opts: EvalOptions,
): Promise<{ result: AskResult; retrieval: RetrievalResult; ms: number }> {
  let retrieval: RetrievalResult | undefined;
  const t0 = performance.now();
  const result = await answerQuestion(question, {
    retrieve: async (q) => (retrieval = await app.retrieve(q, opts.groups, opts.k)),
    contextChars: app.config.retrieval.contextChars,
    chat: app.chat,
    modelName: describeModel(app.config),
    log: app.log,
  });
  return { result, retrieval: retrieval!, ms: performance.now() - t0 };
}

function outcomeOf(id: string, result: AskResult, ms: number): AnswerOutcome {
  const byLabel = new Map(result.passages.map((p) => [p.label, p]));
  const labels = [...new Set(result.citations.flatMap((c) => c.refs))];
  const cited = labels.map((l) => byLabel.get(l)).filter((p): p is NonNullable<typeof p> => p !== undefined);
  return { id, answer: result.answer, refused: result.refused, cited: cited.map((p) => ({ doc_id: p.doc_id, text: p.text })), ms };
}

export async function runEval(app: EvalApp, questions: EvalQuestion[], opts: EvalOptions): Promise<EvalReport> {
  const settings = { k: opts.k, contextChars: app.config.retrieval.contextChars };
  const scores: QuestionScore[] = [];
  const answerScores: AnswerScore[] = [];
  const results: EvalResultRow[] = [];
  const retrievalMs: number[] = [];
  for (const q of questions) {
    if (opts.answers) {
      const { result, retrieval, ms } = await askOnce(app, q.question, opts);
      const passages = asEvalPassages(retrieval);
      const outcome = outcomeOf(q.id, result, ms);
      retrievalMs.push(retrieval.timings.totalMs);
      scores.push(scoreQuestion(q, passages, settings));
      answerScores.push(scoreAnswer(q, outcome));
      results.push({ id: q.id, passages, answer: result.answer, refused: result.refused, cited: outcome.cited.map((c) => c.doc_id), ms });
    } else {
      const retrieval = await app.retrieve(q.question, opts.groups, opts.k);
      const passages = asEvalPassages(retrieval);
      retrievalMs.push(retrieval.timings.totalMs);
      scores.push(scoreQuestion(q, passages, settings));
      results.push({ id: q.id, passages, ms: retrieval.timings.totalMs });
    }
  }
  const report: EvalReport = {
    settings: {
      k: opts.k,
      context_chars: app.config.retrieval.contextChars,
      fusion: app.config.retrieval.fusion,
      chunking: app.config.chunking,
      answerer: opts.answers || opts.offCorpus ? describeModel(app.config) : null,
      split: opts.split ?? 'all',
    },
    metrics: summarize(scores, opts.k),
    retrieval_ms: { p50: percentile(retrievalMs, 0.5), p95: percentile(retrievalMs, 0.95) },
    results,
  };
  if (opts.answers) report.answers = summarizeAnswers(answerScores);
  const byLang = summarizeByLang(
    questions.map((q, i) => ({ lang: q.lang, score: scores[i], answer: answerScores[i] })),
    opts.k,
  );
  if (byLang) report.by_lang = byLang;
  if (opts.offCorpus) {
    const outcomes: (AnswerOutcome & { kind?: string })[] = [];
    for (const q of opts.offCorpus) {
      const { result, retrieval, ms } = await askOnce(app, q.question, opts);
      const outcome = outcomeOf(q.id, result, ms);
      outcomes.push({ ...outcome, kind: q.kind });
      results.push({
        id: q.id,
        unanswerable: true,
        passages: asEvalPassages(retrieval),
        answer: result.answer,
        refused: result.refused,
        cited: outcome.cited.map((c) => c.doc_id),
        ms,
      });
    }
    report.unanswerable = summarizeOffCorpus(outcomes);
  }
  return report;
}
