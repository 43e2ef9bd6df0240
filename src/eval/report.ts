// The evaluation report as text for people (the JSON form is the EvalReport itself).
import type { EvalReport } from './run.ts';

const pct = (v: number | null | undefined): string => (v === undefined || v === null ? 'n/a' : `${(v * 100).toFixed(1)}%`);
const ms = (v: number): string => `${v.toFixed(1)} ms`;
const row = (name: string, value: string): string => `${name.padEnd(32)} ${value}`;

/** One line per question language: the figures that tell a cross-lingual set from a same-language one. */
function langLines(byLang: NonNullable<EvalReport['by_lang']>): string[] {
  const lines = ['by question language'];
  for (const [lang, { metrics: m, answers: a }] of Object.entries(byLang)) {
    const parts = [
      `doc R@1 ${pct(m.doc_recall_at_1)}`,
      `gold span in context ${m.with_answers ? pct(m.answer_in_context) : 'n/a'}`,
      ...(a ? [`refusals ${pct(a.refusal_rate)}`, `answer has span ${pct(a.answer_has_span)}`] : []),
    ];
    lines.push(row(`  ${lang} (${m.questions})`, parts.join(', ')));
  }
  return lines;
}

export function formatReport(r: EvalReport): string {
  const m = r.metrics;
  const s = r.settings;
  const head = [
    `settings: k ${s.k}, context ${s.context_chars} chars, ${s.fusion} fusion, ` +
      `chunks ${s.chunking.size}/${s.chunking.overlap}, split ${s.split}${s.answerer ? `, answers by ${s.answerer}` : ''}`,
  ];
  const retrieval = [
    '',
    'retrieval',
    row('questions', String(m.questions)),
    row('doc recall@1', pct(m.doc_recall_at_1)),
    row('doc recall@5', pct(m.doc_recall_at_5)),
    row(`doc recall@${m.k}`, pct(m.doc_recall_at_k)),
    row(`MRR@${m.k}`, m.mrr_at_k.toFixed(3)),
    row('doc in context', pct(m.doc_in_context)),
    row('answer recall@5', m.with_answers ? pct(m.answer_recall_at_5) : 'n/a (no gold spans)'),
    row('answer-in-context', m.with_answers ? pct(m.answer_in_context) : 'n/a (no gold spans)'),
    row('  when the doc is ranked first', m.with_answers ? pct(m.answer_in_context_at_doc_1) : 'n/a (no gold spans)'),
    row('retrieval p50 / p95', `${ms(r.retrieval_ms.p50)} / ${ms(r.retrieval_ms.p95)}`),
  ];
  const lines = m.questions ? [...head, ...retrieval] : head;
  const a = r.answers;
  if (a) {
    const noSpans = a.with_spans === 0 ? ' (no gold spans)' : '';
    lines.push(
      '',
      `answers (${s.answerer})`,
      row('answered', `${a.answered} of ${a.questions}`),
      row('refusal rate', pct(a.refusal_rate)),
      row('answer contains a gold span', pct(a.answer_has_span) + noSpans),
      row('answer cites the gold document', pct(a.cites_gold_doc)),
      row('citation precision (span)', pct(a.citation_precision) + noSpans),
      row('citation precision (gold doc)', pct(a.citation_doc_precision)),
      row('median answer length', a.median_answer_chars === null ? 'n/a' : `${Math.round(a.median_answer_chars)} chars`),
      row('ask p50 / p95', `${ms(a.ms.p50)} / ${ms(a.ms.p95)}`),
    );
  }
  if (r.by_lang) lines.push('', ...langLines(r.by_lang));
  const u = r.unanswerable;
  if (u) {
    lines.push(
      '',
      'unanswerable (answer not in the corpus)',
      row('questions', String(u.questions)),
      row('false-answer rate', pct(u.false_answer_rate)),
    );
    for (const [kind, v] of Object.entries(u.by_kind ?? {})) lines.push(row(`  ${kind} (${v.questions})`, pct(v.false_answer_rate)));
    lines.push(row('ask p50 / p95', `${ms(u.ms.p50)} / ${ms(u.ms.p95)}`));
  }
  return lines.join('\n');
}
