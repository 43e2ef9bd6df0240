// Retrieval evaluation metrics (pure): doc recall@1/5/10, MRR@10, answer recall@5 and
// answer-in-context (gold span inside the passages that fit a context budget, best first).

export interface EvalQuestion {
  id: string;
  question: string;
  doc_id: string;
  answers?: string[];
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
  /** 1-based rank of the first passage from the gold document, if retrieved. */
  docRank?: number;
  answerAt5?: boolean;
  answerInContext?: boolean;
}

export interface EvalMetrics {
  questions: number;
  doc_recall_at_1: number;
  doc_recall_at_5: number;
  doc_recall_at_10: number;
  mrr_at_10: number;
  /** Present only when some questions carry gold answers. */
  answer_recall_at_5?: number;
  answer_in_context?: number;
  with_answers: number;
}

const norm = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();

/** Passages that fit a character budget, best first (the first that does not fit ends the context). */
export function contextPassages<T extends { text: string }>(passages: T[], budget: number): T[] {
  const out: T[] = [];
  let used = 0;
  for (const p of passages) {
    if (used + p.text.length > budget) break;
    out.push(p);
    used += p.text.length;
  }
  return out;
}

export function scoreQuestion(q: EvalQuestion, passages: EvalPassage[], contextChars: number): QuestionScore {
  const idx = passages.slice(0, 10).findIndex((p) => p.doc_id === q.doc_id);
  const score: QuestionScore = { id: q.id, docRank: idx >= 0 ? idx + 1 : undefined };
  const golds = (q.answers ?? []).map(norm).filter(Boolean);
  if (golds.length) {
    const has = (ps: EvalPassage[]) => ps.some((p) => golds.some((g) => norm(p.text).includes(g)));
    score.answerAt5 = has(passages.slice(0, 5));
    score.answerInContext = has(contextPassages(passages, contextChars));
  }
  return score;
}

export function summarize(scores: QuestionScore[]): EvalMetrics {
  const n = scores.length || 1;
  const at = (k: number) => scores.filter((s) => s.docRank !== undefined && s.docRank <= k).length / n;
  const withAnswers = scores.filter((s) => s.answerAt5 !== undefined);
  const m: EvalMetrics = {
    questions: scores.length,
    doc_recall_at_1: at(1),
    doc_recall_at_5: at(5),
    doc_recall_at_10: at(10),
    mrr_at_10: scores.reduce((acc, s) => acc + (s.docRank ? 1 / s.docRank : 0), 0) / n,
    with_answers: withAnswers.length,
  };
  if (withAnswers.length) {
    m.answer_recall_at_5 = withAnswers.filter((s) => s.answerAt5).length / withAnswers.length;
    m.answer_in_context = withAnswers.filter((s) => s.answerInContext).length / withAnswers.length;
  }
  return m;
}

/** Parses questions.jsonl; bad lines are reported, not fatal. */
export function parseQuestions(text: string): { questions: EvalQuestion[]; errors: string[] } {
  const questions: EvalQuestion[] = [];
  const errors: string[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (!line.trim()) return;
    try {
      const o = JSON.parse(line) as Partial<EvalQuestion>;
      if (typeof o.question !== 'string' || typeof o.doc_id !== 'string') throw new Error('needs "question" and "doc_id" strings');
      questions.push({
        id: typeof o.id === 'string' ? o.id : `line-${i + 1}`,
        question: o.question,
        doc_id: o.doc_id,
        answers: Array.isArray(o.answers) ? o.answers.filter((a): a is string => typeof a === 'string') : [],
      });
    } catch (err) {
      errors.push(`line ${i + 1}: ${(err as Error).message}`);
    }
  });
  return { questions, errors };
}
