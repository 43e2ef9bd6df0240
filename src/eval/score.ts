// Retrieval evaluation metrics (pure): doc recall@1/5/k, MRR@k, answer recall@5, and what reached
// the answer step: the gold document / a gold span inside the passages that fit the context
// budget (fitContext, the same rule the answer path applies).
import { fitContext } from '../answer/context.ts';
import { parseSplit, type Split } from './split.ts';

export interface EvalQuestion {
  id: string;
  question: string;
  doc_id: string;
  answers?: string[];
  /** The question's language ("es", "en"), when the dataset says: the report then breaks figures down by it. */
  lang?: string;
}

/** A question whose answer is not in the corpus: it has no gold document. */
export interface OffCorpusQuestion {
  id: string;
  question: string;
  /** The document it was written about in another corpus, if any (it decides its split). */
  doc_id?: string;
  /** A free label ("general", "on-topic"): the false-answer rate is also reported per kind. */
  kind?: string;
  /** The side of the split the file puts it on; it overrides the document's side. */
  split?: Split;
}

export interface EvalPassage {
  doc_id: string;
  chunk_id: string;
  section: string;
  text: string;
  score: number;
}

export interface QuestionScore {
  id: string;
  /** 1-based rank of the first passage from the gold document within the top k, if retrieved. */
  docRank?: number;
  docInContext: boolean;
  answerAt5?: boolean;
  answerInContext?: boolean;
}

export interface EvalMetrics {
  questions: number;
  /** Passages retrieved per question: recall@k and MRR@k are cut here. */
  k: number;
  doc_recall_at_1: number;
  doc_recall_at_5: number;
  doc_recall_at_k: number;
  mrr_at_k: number;
  /** Gold document among the passages the answer step receives (context budget applied). */
  doc_in_context: number;
  /** Present only when some questions carry gold answers. */
  answer_recall_at_5?: number;
  answer_in_context?: number;
  /**
   * Of questions with gold spans whose gold document is ranked first: a gold span in the context.
   * How well retrieval ranks passages inside the right document (long papers with many sections).
   */
  answer_in_context_at_doc_1?: number;
  with_answers: number;
}

export interface ScoreSettings {
  k: number;
  contextChars: number;
}

export const normaliseSpan = (s: string): string => s.replace(/\s+/g, ' ').trim().toLowerCase();

/** Gold strings of a question, normalised; empty when the dataset has none. */
export const goldSpans = (q: { answers?: string[] }): string[] => (q.answers ?? []).map(normaliseSpan).filter(Boolean);

export const containsSpan = (text: string, golds: string[]): boolean => {
  const t = normaliseSpan(text);
  return golds.some((g) => t.includes(g));
};

export function scoreQuestion(q: EvalQuestion, passages: EvalPassage[], settings: ScoreSettings): QuestionScore {
  const top = passages.slice(0, settings.k);
  const context = fitContext(top, settings.contextChars);
  const idx = top.findIndex((p) => p.doc_id === q.doc_id);
  const score: QuestionScore = {
    id: q.id,
    docRank: idx >= 0 ? idx + 1 : undefined,
    docInContext: context.some((p) => p.doc_id === q.doc_id),
  };
  const golds = goldSpans(q);
  if (golds.length) {
    const has = (ps: EvalPassage[]) => ps.some((p) => containsSpan(p.text, golds));
    score.answerAt5 = has(top.slice(0, 5));
    score.answerInContext = has(context);
  }
  return score;
}

export function summarize(scores: QuestionScore[], k: number): EvalMetrics {
  const n = scores.length || 1;
  const at = (r: number) => scores.filter((s) => s.docRank !== undefined && s.docRank <= r).length / n;
  const withAnswers = scores.filter((s) => s.answerAt5 !== undefined);
  const m: EvalMetrics = {
    questions: scores.length,
    k,
    doc_recall_at_1: at(1),
    doc_recall_at_5: at(5),
    doc_recall_at_k: at(k),
    mrr_at_k: scores.reduce((acc, s) => acc + (s.docRank ? 1 / s.docRank : 0), 0) / n,
    doc_in_context: scores.filter((s) => s.docInContext).length / n,
    with_answers: withAnswers.length,
  };
  if (withAnswers.length) {
    m.answer_recall_at_5 = withAnswers.filter((s) => s.answerAt5).length / withAnswers.length;
    m.answer_in_context = withAnswers.filter((s) => s.answerInContext).length / withAnswers.length;
    const first = withAnswers.filter((s) => s.docRank === 1);
    if (first.length) m.answer_in_context_at_doc_1 = first.filter((s) => s.answerInContext).length / first.length;
  }
  return m;
}

function parseLines<T>(text: string, read: (o: Record<string, unknown>, line: number) => T): { items: T[]; errors: string[] } {
  const items: T[] = [];
  const errors: string[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (!line.trim()) return;
    try {
      const o: unknown = JSON.parse(line);
      if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new Error('not a JSON object');
      items.push(read(o as Record<string, unknown>, i + 1));
    } catch (err) {
      errors.push(`line ${i + 1}: ${(err as Error).message}`);
    }
  });
  return { items, errors };
}

/** Parses questions.jsonl; bad lines are reported, not fatal. */
export function parseQuestions(text: string): { questions: EvalQuestion[]; errors: string[] } {
  const { items, errors } = parseLines(text, (o, line) => {
    if (typeof o.question !== 'string' || typeof o.doc_id !== 'string') throw new Error('needs "question" and "doc_id" strings');
    return {
      id: typeof o.id === 'string' ? o.id : `line-${line}`,
      question: o.question,
      doc_id: o.doc_id,
      answers: Array.isArray(o.answers) ? o.answers.filter((a): a is string => typeof a === 'string') : [],
      ...(typeof o.lang === 'string' && o.lang.trim() ? { lang: o.lang.trim().toLowerCase() } : {}),
    };
  });
  return { questions: items, errors };
}

/** Parses a file of questions the corpus cannot answer: only "question" is needed (doc_id and answers are ignored). */
export function parseOffCorpus(text: string): { questions: OffCorpusQuestion[]; errors: string[] } {
  const { items, errors } = parseLines(text, (o, line) => {
    if (typeof o.question !== 'string' || o.question.trim() === '') throw new Error('needs a "question" string');
    return {
      id: typeof o.id === 'string' ? o.id : `line-${line}`,
      question: o.question,
      ...(typeof o.doc_id === 'string' ? { doc_id: o.doc_id } : {}),
      ...(typeof o.kind === 'string' ? { kind: o.kind } : {}),
      ...(o.split === undefined ? {} : { split: parseSplit(o.split) }),
    };
  });
  return { questions: items, errors };
}
