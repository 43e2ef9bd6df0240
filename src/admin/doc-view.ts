// GET /doc: the member-facing view of one document, opened from a signed link in a Slack answer
// (doc-links.ts). Not the dashboard (no admin token, no session): the link is the only key, and it
// is checked on every request, with the document checked again against the groups it grants and
// against what the asking conversation may read under the configuration now in force.
import express from 'express';
import type { Logger } from 'pino';
import { familyName } from '../answer/cite.ts';
import { groupsForChannel, type Config } from '../config.ts';
import { chunkOrdinal, type Catalog } from '../search/catalog.ts';
import { accessOf, chunkAnchor, DOC_VIEW_PATH, VIEW_PART_CHUNKS, verifyDocLink } from '../answer/doc-links.ts';
import { DOC_PAGE_CSP, docErrorPage, docPage, type DocPageModel, type DocPageSection } from './views/doc-page.ts';

export interface DocViewDeps {
  /** The live catalog (it changes on a blue/green switch, so it is read per request). */
  catalog: () => Catalog;
  config: Pick<Config, 'access' | 'docLinks'>;
  log: Logger;
  now?: () => number;
}

const TEXTS = {
  invalid: 'This link is not valid. Open the document from labbot’s answer in Slack.',
  expired: 'This link has expired. Ask labbot again for a fresh one.',
  gone: 'This document is not available from this link (it may have left the index, or the conversation can no longer read it).',
};

/** The longest start of `next` that `prev` ends with: the overlap two chunks of one section share. */
function overlapLength(prev: string, next: string, max: number): number {
  for (let k = Math.min(prev.length, next.length, max); k >= 20; k--) if (prev.endsWith(next.slice(0, k))) return k;
  return 0;
}

// Chunk text starts with its "<title> — <section>" header line (ingest/chunk/text.ts makeChunk).
function bodyOf(text: string): string {
  const nl = text.indexOf('\n');
  return nl >= 0 ? text.slice(nl + 1) : text;
}

/**
 * The chunks in order as sections, without each chunk's header line or repeated overlap. `before`:
 * the chunk just before them (a part that starts mid-section trims its overlap with it too).
 */
export function docSections(catalog: Catalog, chunkIds: string[], overlapMax: number, before?: string): DocPageSection[] {
  const sections: DocPageSection[] = [];
  const prev = before === undefined ? undefined : catalog.chunk(before);
  let prevText = prev ? bodyOf(prev.text) : '';
  let prevSection = prev?.section;
  const seen = new Set<string>();
  for (const id of chunkIds) {
    const chunk = catalog.chunk(id);
    if (!chunk) continue;
    let text = bodyOf(chunk.text);
    if (chunk.section !== prevSection) prevText = '';
    prevSection = chunk.section;
    let section = sections[sections.length - 1];
    if (!section || section.heading !== chunk.section) {
      section = { heading: chunk.section, parts: [] };
      sections.push(section);
    }
    const cut = overlapLength(prevText, text, overlapMax);
    prevText = text;
    text = text.slice(cut).replace(/^\s+/, '');
    const ordinal = chunkOrdinal(id);
    const anchors = [`chunk-${ordinal}`];
    const named = chunkAnchor(chunk, ordinal);
    if (named !== anchors[0] && !seen.has(named)) anchors.unshift(named);
    seen.add(named);
    if (text || anchors.length > 1) section.parts.push({ anchors, text });
  }
  return sections;
}

/** First index in `chunkIds` (in document order) whose ordinal is at least `ordinal`. */
function firstAtOrAfter(chunkIds: string[], ordinal: number): number {
  let lo = 0;
  let hi = chunkIds.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (chunkOrdinal(chunkIds[mid]) < ordinal) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The chunks of one part of a document's view: at most VIEW_PART_CHUNKS, found without a scan. */
export function viewPart(chunkIds: string[], requested: number): { part: number; parts: number; from: number; ids: string[] } {
  const last = chunkIds.length ? chunkOrdinal(chunkIds[chunkIds.length - 1]) : 0;
  const parts = Math.floor(last / VIEW_PART_CHUNKS) + 1;
  const part = Math.min(parts, Math.max(1, Number.isSafeInteger(requested) ? requested : 1));
  const from = firstAtOrAfter(chunkIds, (part - 1) * VIEW_PART_CHUNKS);
  const to = firstAtOrAfter(chunkIds, part * VIEW_PART_CHUNKS);
  return { part, parts, from, ids: chunkIds.slice(from, to) };
}

function byline(doc: { authors: string[]; year?: number }): string {
  const names = doc.authors.map(familyName).filter((n) => n !== '');
  const who = names.length > 3 ? `${names.slice(0, 3).join(', ')} et al.` : names.join(', ');
  return [who, doc.year !== undefined ? String(doc.year) : 'n.d.'].filter((p) => p !== '').join(', ');
}

export function docViewRouter(deps: DocViewDeps): express.Router {
  const router = express.Router();
  const now = deps.now ?? Date.now;
  const send = (res: express.Response, status: number, body: string) => {
    res
      .status(status)
      .set({
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Security-Policy': DOC_PAGE_CSP,
        // The link is the key: it must not leak through a Referer, a shared cache or a search engine.
        'Referrer-Policy': 'no-referrer',
        'Cache-Control': 'private, no-store',
        'X-Robots-Tag': 'noindex, nofollow',
        'X-Content-Type-Options': 'nosniff',
        'X-Frame-Options': 'DENY',
      })
      .send(body);
  };
  router.get(DOC_VIEW_PATH, (req, res) => {
    const settings = deps.config.docLinks;
    if (!settings) return send(res, 404, docErrorPage(TEXTS.invalid));
    const checked = verifyDocLink(settings.secret, req.query as Record<string, unknown>, now());
    if (!checked.ok) {
      deps.log.info({ reason: checked.reason }, 'document view refused a link');
      return send(
        res,
        checked.reason === 'expired' ? 410 : 403,
        docErrorPage(checked.reason === 'expired' ? TEXTS.expired : TEXTS.invalid),
      );
    }
    const { grant } = checked;
    const catalog = deps.catalog();
    const doc = catalog.doc(grant.docId);
    const a = accessOf(grant.who);
    const readable = new Set(groupsForChannel(deps.config.access, a.channel, a.user));
    // The document's group must be one the link granted, and one its conversation may still read;
    // every chunk shown is checked too. Missing and not readable look the same from outside.
    const requested = typeof req.query.part === 'string' && /^\d{1,9}$/.test(req.query.part) ? Number(req.query.part) : 1;
    const shown = doc && viewPart(doc.chunkIds, requested);
    const ok =
      doc &&
      shown &&
      grant.groups.includes(doc.access) &&
      readable.has(doc.access) &&
      shown.ids.every((id) => catalog.groupOf(id) === doc.access);
    if (!doc || !shown || !ok) {
      deps.log.info({ doc: grant.docId, who: grant.who }, 'document view: not readable from this link');
      return send(res, 404, docErrorPage(TEXTS.gone));
    }
    const model: DocPageModel = {
      title: doc.title,
      kind: doc.kind,
      byline: byline(doc),
      reference: doc.doi ? `doi:${doc.doi}` : doc.url,
      sections: docSections(catalog, shown.ids, 2000, shown.from > 0 ? doc.chunkIds[shown.from - 1] : undefined),
    };
    if (shown.parts > 1) {
      // Links to the neighbouring parts carry the same signed fields; only `part` changes.
      const href = (n: number) => {
        const q = new URLSearchParams();
        for (const k of ['d', 'w', 'g', 'e', 's']) q.set(k, String(req.query[k]));
        q.set('part', String(n));
        return `${DOC_VIEW_PATH}?${q.toString()}`;
      };
      model.part = {
        n: shown.part,
        of: shown.parts,
        prev: shown.part > 1 ? href(shown.part - 1) : undefined,
        next: shown.part < shown.parts ? href(shown.part + 1) : undefined,
      };
    }
    send(res, 200, docPage(model));
  });
  return router;
}
