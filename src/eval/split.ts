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

/**
 * Off-corpus questions written about a document of another corpus follow that document's side;
 * those tied to no document (general-knowledge questions) are used on both sides.
 */
export function offCorpusInSplit<T extends { doc_id?: string }>(items: T[], split: Split | undefined): T[] {
  return split ? items.filter((item) => item.doc_id === undefined || splitOf(item.doc_id) === split) : items;
}
