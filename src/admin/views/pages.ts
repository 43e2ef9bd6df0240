// The dashboard's pages: server-rendered HTML through `html` (every value escaped). The ask box
// is the only part that needs JavaScript (static/admin.js); everything else works without it.
import type { FileProblem, IndexNote, SourceState } from '../../store/records.ts';
import type { QuestionRecord } from '../../store/activity.ts';
import type { GapGroup } from '../gaps.ts';
import { html, raw, type Html } from './html.ts';

export interface SourceView {
  id: string;
  type: string;
  location: string;
  state: SourceState | undefined;
  documents: number;
  chunks: number;
  byKind: { kind: string; documents: number; chunks: number }[];
  problems: FileProblem[];
  /** `notes`: how many notes the ingest made about the document's metadata (matched twice...). */
  docs: { id: string; title: string; kind: string; path: string; chunks: number; notes: number }[];
  moreDocs: number;
}

export interface DashboardView {
  csrf: string;
  /** No LABBOT_ADMIN_TOKEN: signed in with the token `serve` made for this start. */
  generatedToken: boolean;
  signedIn: boolean;
  version: string;
  versionDescription: string;
  embeddings: string;
  /** Translation for retrieval: provider, whether it answers, and what is missing. */
  translation: { provider: string; available: boolean; detail: string };
  base: string;
  collection: string;
  /** The embedded Chroma process, when this process supervises one. */
  chromaProcess?: { state: string; restarts: number; lastExit?: { code: number | null; signal: string | null; at: string } };
  queueCounts: Record<string, number> | undefined;
  sources: SourceView[];
  channels: { value: string; label: string }[];
  recent: QuestionRecord[] | undefined;
  chart: Html;
  gaps: GapGroup[];
  /** Documents with sentences addressed to an assistant (never quoted as answers). */
  injections?: InjectionView[];
  /** Documents the check for such sentences has not read yet (it goes on in the background). */
  injectionsPending?: number;
  /** What happened to the index that an admin should know (sources removed from the config). */
  notes?: IndexNote[];
  flash?: string;
  errors: string[];
}

export interface InjectionView {
  source: string;
  path: string;
  title: string;
  access: string;
  lines: string[];
}

const QUEUE_STATES = ['waiting', 'active', 'completed', 'failed', 'delayed'];

export function layout(title: string, body: Html, opts: { css?: boolean; js?: boolean } = {}): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title}</title>${opts.css === false ? '' : raw('<link rel="stylesheet" href="/admin/static/admin.css">')}
${opts.js ? raw('<script src="/admin/static/admin.js" defer></script>') : ''}</head>
<body>${body}</body></html>`.value;
}

const when = (iso: string | undefined) =>
  iso ? html`<time datetime="${iso}">${iso.replace('T', ' ').slice(0, 19)} UTC</time>` : html`<span class="muted">never</span>`;

export function loginPage(opts: { message?: string; next?: string; generated?: boolean }): string {
  return layout(
    'labbot admin: sign in',
    html`<main class="narrow"><h1>labbot admin</h1>
${opts.message ? html`<p class="error" role="alert">${opts.message}</p>` : ''}
<form method="post" action="/admin/login">
${
  opts.generated
    ? html`<p id="token-help">No LABBOT_ADMIN_TOKEN is set, so <code>labbot serve</code> made a token for this start:
open the dashboard link it printed (<code>…/admin?token=…</code>) or paste its token here. It changes at every start.</p>
<label for="token">Token printed by labbot serve</label>`
    : html`<label for="token">Admin token (LABBOT_ADMIN_TOKEN)</label>`
}
<input id="token" name="token" type="password" autocomplete="current-password" required>
<input type="hidden" name="next" value="${opts.next ?? '/admin'}">
<button type="submit">Sign in</button></form></main>`,
  );
}

export function messagePage(title: string, message: string, back = '/admin'): string {
  return layout(title, html`<main class="narrow"><h1>${title}</h1><p>${message}</p><p><a href="${back}">Back</a></p></main>`);
}

export function confirmRebuildPage(csrf: string): string {
  return layout(
    'Confirm rebuild',
    html`<main class="narrow"><h1>Rebuild the whole index?</h1>
<p>A blue/green rebuild re-reads every source and re-embeds every chunk into a new collection;
the current index keeps answering until the new one is complete. It can take a long time on a large corpus.</p>
<form method="post" action="/admin/actions/rebuild">
<input type="hidden" name="_csrf" value="${csrf}"><input type="hidden" name="confirm" value="yes">
<button type="submit" class="danger">Yes, rebuild the index</button> <a href="/admin#actions">Cancel</a></form></main>`,
  );
}

function chromaLine(p: NonNullable<DashboardView['chromaProcess']>): Html {
  const exit = p.lastExit ? html`; last exit ${when(p.lastExit.at)} (${p.lastExit.signal ?? `code ${p.lastExit.code}`})` : '';
  const state = html`<strong class="${p.state === 'up' ? '' : 'error'}">${p.state}</strong>`;
  return html`<p id="chroma-process">Embedded Chroma: ${state}; restarts ${p.restarts}${exit}.</p>`;
}

function sourceRow(s: SourceView): Html {
  const failed = s.state?.lastError ? html`<br><span class="error sync-failed">Last sync failed: ${s.state.lastError}</span>` : '';
  const commit = s.state?.commit ? html`<code>${s.state.commit.slice(0, 12)}</code>` : html`<span class="muted">-</span>`;
  const byKind = s.byKind.length
    ? s.byKind.map((k) => html`<span class="pill">${k.kind}: ${k.documents} / ${k.chunks}</span> `)
    : html`<span class="muted">empty</span>`;
  return html`<tr><td><strong>${s.id}</strong><br><small class="muted">${s.location}</small></td><td>${s.type}</td>
<td>${when(s.state?.lastSyncAt)}${failed}</td>
<td>${commit}</td><td class="num">${s.documents}</td><td class="num">${s.chunks}</td>
<td>${byKind}</td>
<td class="num">${s.problems.length}</td></tr>`;
}

function problemsTable(s: SourceView): Html {
  return html`<details open><summary>${s.id}: ${s.problems.length} file(s) skipped or failed</summary>
<table class="problems"><thead><tr><th>File</th><th>Status</th><th>Reason</th><th>When</th></tr></thead><tbody>
${s.problems.map(
  (p) => html`<tr><td><code>${p.path}</code></td><td class="${p.status}">${p.status}</td><td>${p.reason}</td><td>${when(p.at)}</td></tr>`,
)}</tbody></table></details>`;
}

function docsTable(s: SourceView): Html {
  const row = (d: SourceView['docs'][number]) => {
    const notes = d.notes
      ? html` <span class="pill error" title="see the document's metadata notes">${d.notes} note${d.notes > 1 ? 's' : ''}</span>`
      : '';
    return html`<tr><td><a href="/admin/doc?id=${encodeURIComponent(d.id)}">${d.title}</a>${notes}</td><td>${d.kind}</td>
<td><code>${d.path}</code></td><td class="num">${d.chunks}</td></tr>`;
  };
  return html`<details><summary>${s.id}: documents (${s.documents})</summary>
<table class="docs"><thead><tr><th>Title</th><th>Kind</th><th>Path</th><th>Chunks</th></tr></thead><tbody>
${s.docs.map(row)}</tbody></table>${s.moreDocs ? html`<p class="muted">and ${s.moreDocs} more</p>` : ''}</details>`;
}

function indexSection(v: DashboardView): Html {
  const configured = v.base !== v.collection ? html` (configured name <code>${v.collection}</code>)` : '';
  const notes = v.notes?.length
    ? html`<details open id="index-notes"><summary>Notes (${v.notes.length})</summary>
<ul>${v.notes.slice(0, 10).map((n) => html`<li>${when(n.at)}: ${n.text}</li>`)}</ul></details>`
    : '';
  return html`<section id="index"><h2>Index</h2>
<p>Index version <code>${v.version}</code> (${v.versionDescription}); embeddings <code>${v.embeddings}</code>;
translation <code>${v.translation.provider}</code>${v.translation.available ? '' : ' (unavailable)'}: ${v.translation.detail};
live collection <code>${v.base}</code>${configured}.</p>
${v.chromaProcess ? chromaLine(v.chromaProcess) : ''}
<table><thead><tr><th>Source</th><th>Type</th><th>Last sync</th><th>Commit</th>
<th>Documents</th><th>Chunks</th><th>By kind</th><th>Problems</th></tr></thead><tbody>
${v.sources.map(sourceRow)}
</tbody></table>
<p class="muted"><small>By kind: documents / chunks.</small></p>
${notes}
${v.sources.map((s) => (s.problems.length ? problemsTable(s) : ''))}
${v.sources.map(docsTable)}
</section>`;
}

function queueSection(v: DashboardView): Html {
  return html`<section id="queue"><h2>Queue</h2>
${
  v.queueCounts
    ? html`<ul class="counts" id="queue-counts">
${QUEUE_STATES.map((s) => html`<li><span class="n" data-state="${s}">${v.queueCounts?.[s] ?? 0}</span> ${s}</li>`)}</ul>
<p><a href="/admin/queues">Open the queue board</a> (jobs, progress, errors; retry or remove failed jobs).</p>`
    : html`<p class="error">Redis is not reachable: no queue in this process.</p>`
}</section>`;
}

function askSection(v: DashboardView): Html {
  return html`<section id="ask"><h2>Ask</h2>
<form id="ask-form" method="post" action="/admin/api/ask" data-csrf="${v.csrf}">
<label for="question">Question</label><textarea id="question" name="question" rows="2" maxlength="4000" required></textarea>
<label for="channel">As seen from channel</label><select id="channel" name="channel">
${v.channels.map((c) => html`<option value="${c.value}">${c.label}</option>`)}</select>
<button type="submit">Ask</button> <span id="ask-status" role="status"></span></form>
<div id="ask-result" hidden><h3>Answer</h3><p class="meta" id="ask-meta"></p><p class="meta" id="ask-source" hidden></p>
<div id="ask-answer" class="answer"></div>
<h3>Retrieved passages</h3><p class="muted"><small>Highlighted rows were sent to the model (S1..Sn).
Ranks are 1-based; "-" means the retriever did not find it.</small></p>
<table id="ask-passages"><thead><tr><th>#</th><th>Sent</th><th>Document / section</th><th>Dense rank</th><th>BM25 rank</th>
<th>Fused</th><th>Rerank</th><th>Text</th></tr></thead><tbody></tbody></table></div>
</section>`;
}

function activitySection(v: DashboardView): Html {
  return html`<section id="activity"><h2>Activity</h2>
${v.chart}
${
  v.recent === undefined
    ? html`<p class="muted">No activity store (Redis not reachable).</p>`
    : v.recent.length === 0
      ? html`<p class="muted">No questions yet.</p>`
      : html`<table><thead><tr><th>When</th><th>Via</th><th>Channel</th><th>Question</th><th>Latency</th>
<th>Citations</th><th>Refused</th><th>Feedback</th></tr></thead><tbody>
${v.recent.map(
  (q) => html`<tr><td>${when(q.ts)}</td><td>${q.source}</td><td>${q.channel ?? 'public'}</td><td>${q.question}</td>
<td class="num">${(q.latencyMs / 1000).toFixed(2)} s</td>
<td class="num" title="${q.citations.map((c) => c.title).join('; ')}">${q.citations.length}</td>
<td>${q.refused ? html`<span class="error">refused</span>` : 'no'}</td><td>👍 ${q.feedback.up} 👎 ${q.feedback.down}</td></tr>`,
)}</tbody></table>`
}</section>`;
}

function gapsSection(v: DashboardView): Html {
  return html`<section id="gaps"><h2>Knowledge gaps</h2>
<p class="muted">Questions refused or answered from weak evidence (no citations, a best passage scoring below
<code>gaps.minTopScore</code> when the config sets one, or more 👎 than 👍), grouped by shared terms.
<a href="/admin/gaps.csv">Download CSV</a></p>
${
  v.gaps.length
    ? html`<table><thead><tr><th>Topic</th><th>Questions</th><th>Refused</th><th>Weak</th><th>Channels</th><th>Examples</th></tr></thead><tbody>
${v.gaps.slice(0, 30).map(
  (
    g,
  ) => html`<tr><td><strong>${g.topic}</strong></td><td class="num">${g.count}</td><td class="num">${g.refused}</td><td class="num">${g.weak}</td>
<td>${Object.entries(g.channels).map(([c, n]) => html`<span class="pill">${c}: ${n}</span> `)}</td>
<td><ul class="examples">${g.questions.slice(0, 3).map((q) => html`<li>${q.question} <small class="muted">(${q.reason})</small></li>`)}</ul></td></tr>`,
)}</tbody></table>`
    : html`<p class="muted">No gaps in the recent questions.</p>`
}</section>`;
}

function injectionsSection(v: DashboardView): Html {
  const pending = v.injectionsPending ?? 0;
  if (!v.injections?.length && !pending) return html``;
  return html`<section id="injections"><h2>Instructions in documents</h2>
${
  pending
    ? html`<p class="notice" id="injections-pending">Still checking ${pending} ${pending === 1 ? 'document' : 'documents'}
for such sentences; reload the page for the full list.</p>`
    : ''
}
<p class="muted">These documents contain sentences addressed to an AI assistant (role switches, "ignore previous instructions",
fake system prompts). They are never quoted as answers; check where they came from.</p>
<table><thead><tr><th>Source</th><th>Document</th><th>Access</th><th>Sentences</th></tr></thead><tbody>
${(v.injections ?? []).slice(0, 50).map(
  (d) =>
    html`<tr><td>${d.source}</td><td><strong>${d.title}</strong><br><small class="muted">${d.path}</small></td><td>${d.access}</td>
<td><ul class="examples">${d.lines.map((l) => html`<li>${l.length > 200 ? `${l.slice(0, 200)}…` : l}</li>`)}</ul></td></tr>`,
)}</tbody></table></section>`;
}

function actionsSection(v: DashboardView): Html {
  return html`<section id="actions"><h2>Actions</h2>
${
  v.queueCounts
    ? html`<div class="actions">${v.sources.map(
        (s) => html`<form method="post" action="/admin/actions/sync"><input type="hidden" name="_csrf" value="${v.csrf}">
<input type="hidden" name="source" value="${s.id}">
<button type="submit" data-action="sync">Re-sync ${s.id}</button> <label><input type="checkbox" name="full" value="1"> full</label></form>`,
      )}
<form method="post" action="/admin/actions/rebuild"><input type="hidden" name="_csrf" value="${v.csrf}">
<button type="submit" class="danger">Rebuild the index…</button></form></div>`
    : html`<p class="muted">Actions need the queue (Redis).</p>`
}</section>`;
}

const NAV = [
  ['#index', 'Index'],
  ['#queue', 'Queue'],
  ['#ask', 'Ask'],
  ['#activity', 'Activity'],
  ['#gaps', 'Gaps'],
  ['#actions', 'Actions'],
  ['/admin/queues', 'Queue board'],
];

export function dashboardPage(v: DashboardView): string {
  const signOut = v.signedIn
    ? html`<form method="post" action="/admin/logout" class="logout"><input type="hidden" name="_csrf" value="${v.csrf}">
<button type="submit">Sign out</button></form>`
    : '';
  const generated = v.generatedToken
    ? html`<p class="notice" id="generated-token">No LABBOT_ADMIN_TOKEN is set: this dashboard takes the token
<code>labbot serve</code> printed at start-up, a new one at every start. Set LABBOT_ADMIN_TOKEN for one that lasts.</p>`
    : '';
  return layout(
    'labbot admin',
    html`<header><h1>labbot admin</h1><nav>${NAV.map(([href, label]) => html`<a href="${href}">${label}</a>`)}</nav>
${signOut}</header>
${generated}
${v.flash ? html`<p class="flash" role="status">${v.flash}</p>` : ''}
${v.errors.map((e) => html`<p class="error">${e}</p>`)}
<main>${indexSection(v)}${queueSection(v)}${actionsSection(v)}${askSection(v)}${activitySection(v)}${gapsSection(v)}${injectionsSection(v)}</main>`,
    { js: true },
  );
}
