// The public JSON shape of an answer, shared by `labbot ask --json` and POST /api/ask.
import type { AskResult } from './answer.ts';
import { citedLinks, markdownWithSafeLinks, NO_LINKS } from './links.ts';

/** The answer's Markdown as it leaves labbot: a URL of no cited document is shown as text and host. */
export function answerText(r: Pick<AskResult, 'answer' | 'refused' | 'citations'>): string {
  return markdownWithSafeLinks(r.answer, r.refused ? NO_LINKS : citedLinks(r.citations));
}

export function toAskJson(r: AskResult) {
  return {
    // A client may render it as Markdown: links only to the documents cited (src/answer/links.ts).
    answer: answerText(r),
    refused: r.refused,
    model: r.model,
    citations: r.citations,
    passages: r.passages,
    ...(r.source ? { source: r.source } : {}),
  };
}

export type AskJson = ReturnType<typeof toAskJson>;
