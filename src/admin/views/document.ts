// One document on the dashboard: its bibliographic fields, each with where it came from (front
// matter, a sidecar, a library entry such as "papers/library.bib (sharma2022)", the PDF's info
// dictionary, its text, its file name), and what the ingest noted about its metadata (matched by
// two library entries, a library part that could not be read). A wrong year in a citation is
// traced here to the layer that gave it.
import type { LabDocument } from '../../types.ts';
import { html, type Html } from './html.ts';
import { layout } from './pages.ts';

export interface DocumentField {
  name: string;
  value: string;
  /** Where the value came from; undefined when the document has no value. */
  from?: string;
}

export interface DocumentView {
  id: string;
  source: string;
  path: string;
  title: string;
  kind: string;
  access: string;
  chunks: number;
  fields: DocumentField[];
  notes: string[];
}

const FIELDS: [keyof LabDocument & string, string][] = [
  ['title', 'Title'],
  ['authors', 'Authors'],
  ['year', 'Year'],
  ['journal', 'Journal'],
  ['doi', 'DOI'],
  ['url', 'Link'],
  ['kind', 'Kind'],
  ['keywords', 'Subject terms'],
];

// Where a value the metadata layers did not give comes from (see ingest/pipeline.ts).
const FALLBACK: Partial<Record<string, string>> = {
  title: 'file name',
  kind: "the source's kind, or the document's shape",
};

/** The view of a catalog document: each field's value and the layer it came from. */
export function documentView(doc: LabDocument & { chunkIds: string[] }): DocumentView {
  const from = doc.metaFrom ?? {};
  const fields = FIELDS.map(([key, name]): DocumentField => {
    const v = doc[key];
    const value = Array.isArray(v) ? v.join('; ') : v === undefined || v === null ? '' : String(v);
    if (!value) return { name, value };
    return { name, value, from: from[key] ?? FALLBACK[key] ?? 'unknown' };
  });
  return {
    id: doc.id,
    source: doc.source,
    path: doc.path,
    title: doc.title,
    kind: doc.kind,
    access: doc.access,
    chunks: doc.chunkIds.length,
    fields,
    notes: doc.metaNotes ?? [],
  };
}

// No whitespace between the cells: tests read a row as one run of markup.
function fieldRow(f: DocumentField): Html {
  const value = f.value || html`<span class="muted">none</span>`;
  const from = f.from ? html`<span class="pill">${f.from}</span>` : '';
  return html`<tr><th scope="row">${f.name}</th><td>${value}</td><td>${from}</td></tr>`;
}

export function documentPage(v: DocumentView): string {
  return layout(
    `labbot admin: ${v.title}`,
    html`<header><h1>labbot admin</h1><nav><a href="/admin#index">Back to the index</a></nav></header>
<main><section id="document"><h2>${v.title}</h2>
<p class="muted">Source <strong>${v.source}</strong>, <code>${v.path}</code>; id <code>${v.id}</code>;
access group <strong>${v.access}</strong>; ${v.chunks} chunks.</p>
${v.notes.length ? html`<ul class="notes" id="meta-notes">${v.notes.map((n) => html`<li class="error">${n}</li>`)}</ul>` : ''}
<table id="meta-fields"><thead><tr><th>Field</th><th>Value</th><th>From</th></tr></thead><tbody>
${v.fields.map(fieldRow)}
</tbody></table>
<p class="muted"><small>"text": read from the document's first page; "file name": from a Zotero-style name;
a library file with an entry in parentheses: that entry. Inferred values give way to any library's record.</small></p>
</section></main>`,
  );
}
