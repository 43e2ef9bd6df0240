// The member-facing view of one document (GET /doc): its title, the bibliographic line and its text
// in order, section by section, with anchors for steps, slides and pages that Sources link to.
// Server-rendered through `html` (every value escaped); document text is text here, never markup
// or a link. No script; the only style is the constant below, allowed by its hash in the CSP.
import { createHash } from 'node:crypto';
import { html, raw, type Html } from './html.ts';

export interface DocPagePart {
  /** Element ids of this part: "chunk-3", and "step-4" / "slide-2" / "page-7" where it starts one. */
  anchors: string[];
  text: string;
}

export interface DocPageSection {
  heading: string;
  parts: DocPagePart[];
}

export interface DocPageModel {
  title: string;
  kind: string;
  /** "Okafor, Lee, 2023" or "n.d." */
  byline: string;
  /** A DOI or URL from the metadata, shown as text (the Sources line is the place for links). */
  reference?: string;
  sections: DocPageSection[];
  /** Which part of a long document this page is, with links to the parts beside it. */
  part?: { n: number; of: number; prev?: string; next?: string };
}

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#1d1d1f}' +
  'h1{font-size:1.5rem;margin-bottom:.25rem}.meta{color:#555;margin-top:0}h2{font-size:1.1rem;margin-top:2rem;border-bottom:1px solid #ddd}' +
  '.part{white-space:pre-wrap;margin:.75rem 0;padding:.25rem .5rem}.part:target{background:#fff6d5;outline:2px solid #e0b400}' +
  '.anchor{color:#888;font-size:.8rem}footer{color:#777;font-size:.85rem;margin-top:3rem}';

/** The view's Content-Security-Policy: nothing loads, the one style above applies. */
export const DOC_PAGE_CSP =
  `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; ` +
  `base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

function page(title: string, body: Html): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex">
<meta name="referrer" content="no-referrer"><title>${title}</title><style>${raw(STYLE)}</style></head>
<body>${body}</body></html>`.value;
}

/** A human label for an anchor: "Step 4", "Slide 2", "Page 7"; none for a chunk's own place. */
function anchorLabel(anchors: string[]): string {
  const named = anchors.find((a) => !a.startsWith('chunk-'));
  if (!named) return '';
  const [kind, n] = named.split('-');
  return `${kind[0].toUpperCase()}${kind.slice(1)} ${n}`;
}

function partNav(part: NonNullable<DocPageModel['part']>): Html {
  const prev = part.prev ? html` · <a href="${part.prev}" rel="prev">previous part</a>` : '';
  const next = part.next ? html` · <a href="${part.next}" rel="next">next part</a>` : '';
  return html`<p class="meta parts">Part ${part.n} of ${part.of}${prev}${next}</p>`;
}

export function docPage(m: DocPageModel): string {
  const nav = m.part ? partNav(m.part) : '';
  const body = html`<h1>${m.title}</h1>
<p class="meta">${m.kind} · ${m.byline}${m.reference ? html` · ${m.reference}` : ''}</p>
${nav}
${m.sections.map(
  (s) => html`${s.heading ? html`<h2>${s.heading}</h2>` : ''}
${s.parts.map((p) => {
  // "Step 4" over a part is said once: not again when the section heading already says it.
  const label = anchorLabel(p.anchors) === s.heading ? '' : anchorLabel(p.anchors);
  // Extra anchors as empty elements before the part, so #step-4 and #chunk-9 both land on it.
  const extra = p.anchors.slice(1).map((a) => html`<span id="${a}"></span>`);
  const shown = label ? html`<span class="anchor">${label}</span>\n` : '';
  return html`${extra}<div class="part" id="${p.anchors[0]}">${shown}${p.text}</div>`;
})}`,
)}
${nav}
<footer>From the lab's material, as labbot indexed it. This link was made for one Slack conversation and expires.</footer>`;
  return page(m.title, body);
}

/** Invalid, expired or not (any longer) readable: one short page, the same for every document. */
export function docErrorPage(message: string): string {
  return page('labbot', html`<h1>labbot</h1><p>${message}</p>`);
}
