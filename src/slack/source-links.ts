// Sources without a URL of their own link to labbot's document view when it is reachable
// (LABBOT_PUBLIC_URL): signed for the conversation that asked and the groups its answer read
// (src/answer/doc-links.ts), anchored at the cited step, slide or page.
import type { AskResult } from '../answer/answer.ts';
import { withViewLinks, whoFor } from '../answer/doc-links.ts';
import { groupsForChannel } from '../config.ts';
import { chunkOrdinal } from '../search/catalog.ts';
import type { ShownCitation } from './format.ts';
import type { HandlerDeps } from './types.ts';

/** The result with view links on its local sources; unchanged without LABBOT_PUBLIC_URL. */
export function withDocLinks<R extends Pick<AskResult, 'citations' | 'passages'>>(
  deps: Pick<HandlerDeps, 'app' | 'config'>,
  result: R,
  access: { channel?: string; user?: string },
): R & { citations: ShownCitation[] } {
  const settings = deps.config.docLinks;
  if (!settings || result.citations.length === 0) return result;
  const catalog = deps.app.catalog;
  const byLabel = new Map(result.passages.map((p) => [p.label, p.chunk_id]));
  const citations = withViewLinks(result.citations, {
    settings,
    who: whoFor(access),
    groups: groupsForChannel(deps.config.access, access.channel, access.user),
    nowMs: Date.now(),
    chunkOf: (label) => byLabel.get(label),
    chunkInfo: (id) => catalog.chunkInfo(id),
    kindOf: (docId) => catalog.doc(docId)?.kind,
    ordinalOf: chunkOrdinal,
  });
  return { ...result, citations };
}
