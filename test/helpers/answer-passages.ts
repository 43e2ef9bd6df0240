// Passages for the answer tests, shaped like the catalog's: text prefixed with "<title> — <section>".
import type { Passage, PassageMeta } from '../../src/types.ts';

export function passage(over: { text: string; section?: string; docId?: string; chunk?: number } & Partial<PassageMeta>): Passage {
  const { text, section = '', docId = 'doc', chunk = 0, ...metaOver } = over;
  const meta: PassageMeta = {
    source: 'lab',
    kind: 'paper',
    title: 'Untitled test document',
    authors: [],
    access: 'public',
    ...metaOver,
  };
  const header = [meta.title, section].filter((s) => s !== '').join(' — ');
  return { chunkId: `${docId}#${chunk}`, docId, text: `${header}\n${text}`, section, score: 1, meta };
}
