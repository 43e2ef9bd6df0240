// The passages an answer may cite, one per chunk. Retrieval hands the best hits over with their
// neighbouring chunks as one passage (an answer that straddles a chunk boundary must reach the
// answer step whole); cited as one, a note from slide 4 was cited as "Slide 3" and steps 2 and 4
// of a protocol as "Step 3". Here each chunk of such a passage becomes a passage of its own, with
// its own section, step, slide and page, marked as joined to the hit so the extractive answerer
// still reads them as one stretch of text. Pure: values in, values out.
import type { Passage, PassageMeta } from '../types.ts';

/**
 * One passage per chunk, best first; the chunks of an expanded hit in document order, each
 * carrying `joins` (the hit's chunk id). A passage cut by the context budget keeps the parts
 * that fit, the last one cut where the passage was.
 */
export function citablePassages(passages: Passage[]): Passage[] {
  return passages.flatMap((p) => {
    if (!p.parts || p.parts.length < 2) return [p];
    // What the context budget left of the passage's body (fitContext may cut the first passage).
    const at = p.text.indexOf('\n');
    let left = at < 0 ? 0 : p.text.length - at - 1;
    const out: Passage[] = [];
    for (const part of p.parts) {
      left -= part.sep.length;
      if (left <= 0) break;
      const body = part.body.slice(0, left).trim();
      left -= part.body.length;
      if (body === '') continue;
      // The chunk's own place, not the hit's.
      const meta: PassageMeta = { ...p.meta };
      delete meta.step;
      delete meta.slide;
      delete meta.page;
      if (part.step !== undefined) meta.step = part.step;
      if (part.slide !== undefined) meta.slide = part.slide;
      if (part.page !== undefined) meta.page = part.page;
      out.push({
        chunkId: part.chunkId,
        docId: p.docId,
        text: `${part.header}\n${body}`,
        section: part.section,
        score: p.score,
        meta,
        joins: p.chunkId,
      });
    }
    return out.length ? out : [p];
  });
}

/** Passages that continue one another (the chunks of one expanded hit), as runs of indexes. */
export function joinedRuns(passages: Passage[]): number[][] {
  const runs: number[][] = [];
  passages.forEach((p, i) => {
    const last = runs.at(-1);
    if (last && p.joins !== undefined && passages[last[0]].joins === p.joins) last.push(i);
    else runs.push([i]);
  });
  return runs;
}
