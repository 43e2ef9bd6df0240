// The public JSON shape of an answer, shared by `labbot ask --json` and POST /api/ask.
import type { AskResult } from './answer.ts';

export function toAskJson(r: AskResult) {
  return {
    answer: r.answer,
    refused: r.refused,
    model: r.model,
    citations: r.citations,
    passages: r.passages,
    ...(r.source ? { source: r.source } : {}),
  };
}

export type AskJson = ReturnType<typeof toAskJson>;
