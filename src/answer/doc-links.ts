// Signed links to labbot's document view (GET /doc), for Sources that have no URL of their own (a
// protocol or paper indexed from a local file). Lab members are not dashboard admins, and the view
// must not open a restricted document to whoever guesses or edits a URL, so a link carries what
// it grants and is signed:
//   d  the document id            w  who asked: "channel:C…", "user:U…" or "public"
//   g  the access groups that conversation could read when the link was made
//   e  the expiry (unix seconds)  s  HMAC-SHA256 over all of them with LABBOT_LINK_SECRET
// The view checks the signature (constant time) and the expiry, then the document again: its group
// must be in `g` AND still readable by `w` under the configuration in force (a grant revoked since
// closes the link; a document moved to another group is not shown). Pure: values in, values out.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Citation } from './cite.ts';
import { ACCESS_GROUP } from '../types.ts';

export interface DocLinkSettings {
  baseUrl: string;
  secret: string;
  ttlMs: number;
}

export interface DocGrant {
  docId: string;
  /** "channel:C…", "user:U…" or "public" (a Slack Connect channel reads public material only). */
  who: string;
  groups: string[];
  /** Unix seconds. */
  expires: number;
}

export const DOC_VIEW_PATH = '/doc';

/**
 * Chunks per part of the document view. A request reads and renders one part, never the whole
 * document: a 30 MB manual was one 36 MB page, built in 2.5 s on the event loop. The part is not
 * signed (it picks a place in the document the link already opens).
 */
export const VIEW_PART_CHUNKS = 100;

/** The part (1-based) of the view holding the chunk with this ordinal. */
export function viewPartOf(ordinal: number): number {
  return Math.floor(Math.max(0, ordinal) / VIEW_PART_CHUNKS) + 1;
}

const sign = (secret: string, g: DocGrant) =>
  // JSON, not a joined string: a document id may contain any separator.
  createHmac('sha256', secret)
    .update(JSON.stringify(['labbot-doc-view-v1', g.docId, g.who, [...g.groups].sort(), g.expires]))
    .digest('base64url');

/** The view's URL for a grant (no anchor). */
export function docViewUrl(settings: Pick<DocLinkSettings, 'baseUrl' | 'secret'>, g: DocGrant): string {
  const q = new URLSearchParams({
    d: g.docId,
    w: g.who,
    g: [...g.groups].sort().join(','),
    e: String(g.expires),
    s: sign(settings.secret, g),
  });
  return `${settings.baseUrl}${DOC_VIEW_PATH}?${q.toString()}`;
}

export type VerifiedLink = { ok: true; grant: DocGrant } | { ok: false; reason: 'invalid' | 'expired' };

const WHO = /^(?:public|channel:[A-Z0-9]{2,40}|user:[A-Z0-9]{2,40})$/;

/** Checks a view request's query: well-formed, signed with `secret`, not expired at `nowMs`. */
export function verifyDocLink(secret: string, query: Record<string, unknown>, nowMs: number): VerifiedLink {
  const [d, w, g, e, s] = ['d', 'w', 'g', 'e', 's'].map((k) => query[k]);
  if (![d, w, g, e, s].every((v) => typeof v === 'string') || (d as string).length === 0 || (d as string).length > 1000)
    return { ok: false, reason: 'invalid' };
  const groups = (g as string).split(',');
  if (!WHO.test(w as string) || !groups.every((x) => ACCESS_GROUP.test(x)) || !/^\d{1,12}$/.test(e as string))
    return { ok: false, reason: 'invalid' };
  const grant: DocGrant = { docId: d as string, who: w as string, groups, expires: Number(e) };
  const want = Buffer.from(sign(secret, grant));
  const got = Buffer.from(s as string);
  if (want.length !== got.length || !timingSafeEqual(want, got)) return { ok: false, reason: 'invalid' };
  if (grant.expires * 1000 <= nowMs) return { ok: false, reason: 'expired' };
  return { ok: true, grant };
}

/** `who` for an answer's access: the conversation whose grants it read. */
export function whoFor(access: { channel?: string; user?: string }): string {
  if (access.channel) return `channel:${access.channel}`;
  if (access.user) return `user:${access.user}`;
  return 'public';
}

/** The part of `who` that config.access maps to groups (groupsForChannel's arguments). */
export function accessOf(who: string): { channel?: string; user?: string } {
  if (who.startsWith('channel:')) return { channel: who.slice('channel:'.length) };
  if (who.startsWith('user:')) return { user: who.slice('user:'.length) };
  return {};
}

/** The anchor of a chunk in the view: its step, slide or page when it has one, else its place. */
export function chunkAnchor(chunk: { step?: number; slide?: number; page?: number }, ordinal: number): string {
  if (chunk.step !== undefined) return `step-${chunk.step}`;
  if (chunk.slide !== undefined) return `slide-${chunk.slide}`;
  if (chunk.page !== undefined) return `page-${chunk.page}`;
  return `chunk-${ordinal}`;
}

export interface ViewLinkContext {
  settings: DocLinkSettings;
  /** Who asked and the groups their answer read. */
  who: string;
  groups: string[];
  nowMs: number;
  /** The chunk a passage label (S1…) stands for, in the answer's passages. */
  chunkOf: (label: string) => string | undefined;
  /** A chunk's place, from the catalog. */
  chunkInfo: (chunkId: string) => { step?: number; slide?: number; page?: number } | undefined;
  /** A document's kind, from the catalog. */
  kindOf: (docId: string) => string | undefined;
  ordinalOf: (chunkId: string) => number;
}

/**
 * Citations with a link into the document view where they have no web link of their own: the first
 * cited chunk's step, slide or page; protocols also get `wholeDocument` (the whole protocol, not
 * just the steps the answer quoted).
 */
export function withViewLinks<C extends Citation>(citations: C[], ctx: ViewLinkContext): (C & { wholeDocument?: string })[] {
  const expires = Math.floor((ctx.nowMs + ctx.settings.ttlMs) / 1000);
  return citations.map((c) => {
    if (c.url || c.link) return c;
    const base = docViewUrl(ctx.settings, { docId: c.doc_id, who: ctx.who, groups: ctx.groups, expires });
    const chunkId = c.refs.map(ctx.chunkOf).find((id) => id !== undefined);
    const info = chunkId ? ctx.chunkInfo(chunkId) : undefined;
    const ordinal = chunkId ? ctx.ordinalOf(chunkId) : 0;
    const part = viewPartOf(ordinal);
    const link = info && chunkId ? `${base}${part > 1 ? `&part=${part}` : ''}#${chunkAnchor(info, ordinal)}` : base;
    return { ...c, link, ...(ctx.kindOf(c.doc_id) === 'protocol' ? { wholeDocument: base } : {}) };
  });
}
