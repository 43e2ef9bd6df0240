// The dev/test split for every evaluation set: decided by the document, so all questions about
// one document land on the same side and settings tuned on dev never see a test document.
// A hash, not a list: the same document is on the same side on every machine, for any dataset.
import { createHash } from 'node:crypto';

export const SPLITS = ['dev', 'test'] as const;
export type Split = (typeof SPLITS)[number];

/** Half of the documents are dev, half test, by the first 32 bits of sha256(doc id). */
export function splitOf(docId: string): Split {
  const h = createHash('sha256').update(docId, 'utf8').digest().readUInt32BE(0);
  return h < 0x8000_0000 ? 'dev' : 'test';
}

/** The items on one side of the split (all of them when no split is asked for). */
export function inSplit<T>(items: T[], split: Split | undefined, docOf: (item: T) => string): T[] {
  return split ? items.filter((item) => splitOf(docOf(item)) === split) : items;
}

export function parseSplit(value: unknown): Split {
  if (value === 'dev' || value === 'test') return value;
  throw new Error('"split" must be "dev" or "test"');
}

/**
 * The side of an off-corpus question: the one its file writes (bench/datasets/off-corpus.jsonl
 * balances its kinds by hand), else its document's in the other corpus, else a hash of its text.
 * Never both sides: a question a rule was written from must not also score the test half.
 */
export function offCorpusSplitOf(item: { question: string; doc_id?: string; split?: Split }): Split {
  return item.split ?? splitOf(item.doc_id ?? `question:${item.question.trim()}`);
}

export function offCorpusInSplit<T extends { question: string; doc_id?: string; split?: Split }>(
  items: T[],
  split: Split | undefined,
): T[] {
  return split ? items.filter((item) => offCorpusSplitOf(item) === split) : items;
}
