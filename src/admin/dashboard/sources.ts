// The sources part of the dashboard: each source's state, counts by kind, problems and first
// documents (sourceViews), and the actions that queue a sync or an index rebuild.
import { Router } from 'express';
import type { Indexing, Installation } from '../../ports.ts';
import type { SourceConfig } from '../../config.ts';
import { enqueueRebuild, enqueueSync } from '../../queue/jobs.ts';
import { KINDS } from '../../types.ts';
import { type FirstBy, firstBy } from '../first-by.ts';
import { confirmRebuildPage, messagePage, type SourceView } from '../views/pages.ts';
import type { DashboardContext } from './context.ts';
import { sendHtml } from './respond.ts';

const DOCS_PER_SOURCE = 200;

/** Where a source is read from; a Zotero source names its library (the mirror folder is labbot's own). */
function sourceLocation(s: SourceConfig): string {
  const z = s.zotero;
  if (!z) return displayLocation(s.url, s.path);
  const scope = z.collection ? `, collection ${z.collection}` : '';
  return z.via === 'web'
    ? `${displayLocation(z.apiUrl, '')} ${z.library}${scope}`
    : `${z.dataDir}${z.library ? ` (${z.library})` : ''}${scope}`;
}

/** A git URL without credentials, for display. */
function displayLocation(url: string | undefined, path: string): string {
  if (!url) return path;
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//');
  }
}

/** Every configured source, and any the index holds that is not configured (CLI ingest). */
export async function sourceViews(app: Installation & Indexing): Promise<SourceView[]> {
  const config = app.config;
  const stats = app.catalog.stats();
  // Each source's first documents by title, without sorting all of them.
  const docsBySource = new Map<string, FirstBy<SourceView['docs'][number]>>();
  for (const d of app.catalog.docs()) {
    let first = docsBySource.get(d.source);
    if (!first) docsBySource.set(d.source, (first = firstBy(DOCS_PER_SOURCE, (a, b) => a.title.localeCompare(b.title))));
    first.add({ id: d.id, title: d.title, kind: d.kind, path: d.path, chunks: d.chunkIds.length, notes: d.metaNotes?.length ?? 0 });
  }
  const configured = config.sources.map((s) => ({ id: s.id, type: s.type, location: sourceLocation(s) }));
  const extra = Object.keys(stats.bySource)
    .filter((id) => !config.sources.some((s) => s.id === id))
    .map((id) => ({ id, type: 'not configured (CLI ingest)', location: '' }));
  return Promise.all(
    [...configured, ...extra].map(async (s) => {
      const st = stats.bySource[s.id];
      const [state, problems] = app.records
        ? await Promise.all([app.records.sourceState(s.id), app.records.problems(s.id)])
        : [undefined, []];
      const first = docsBySource.get(s.id);
      const docs = first?.items() ?? [];
      return {
        ...s,
        state,
        documents: st?.documents ?? 0,
        chunks: st?.chunks ?? 0,
        byKind: KINDS.filter((k) => st?.byKind[k]).map((k) => ({
          kind: k,
          documents: st?.byKind[k]?.documents ?? 0,
          chunks: st?.byKind[k]?.chunks ?? 0,
        })),
        problems: problems.sort((a, b) => a.path.localeCompare(b.path)),
        docs,
        moreDocs: (first?.seen ?? 0) - docs.length,
      };
    }),
  );
}

/** POST /actions/sync and /actions/rebuild: queue a job, then back to the dashboard's queue. */
export function sourceActionsRouter({ app, queue, log, csrf, urlencoded }: DashboardContext): Router {
  const config = app.config;
  const router = Router();
  router.post('/actions/sync', urlencoded, csrf, async (req, res, next) => {
    try {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const source = config.sources.find((s) => s.id === body.source);
      if (!source)
        return sendHtml(res, 400, messagePage('Unknown source', `No configured source is called "${String(body.source ?? '')}".`));
      if (!queue) return sendHtml(res, 503, messagePage('Queue unavailable', 'Redis is not reachable.'));
      const id = await enqueueSync(queue, { source: source.id, reason: 'dashboard', full: body.full === '1' });
      log.info({ source: source.id, job: id }, 'admin: sync queued');
      res.redirect(303, `/admin?queued=${encodeURIComponent(id)}#queue`);
    } catch (err) {
      next(err);
    }
  });
  router.post('/actions/rebuild', urlencoded, csrf, async (req, res, next) => {
    try {
      const body = (req.body ?? {}) as Record<string, unknown>;
      if (!queue) return sendHtml(res, 503, messagePage('Queue unavailable', 'Redis is not reachable.'));
      if (body.confirm !== 'yes') return sendHtml(res, 200, confirmRebuildPage(req.adminAuth?.session?.csrf ?? ''));
      const id = await enqueueRebuild(queue, { reason: 'dashboard' });
      log.warn({ job: id }, 'admin: index rebuild queued');
      res.redirect(303, `/admin?queued=${encodeURIComponent(id)}#queue`);
    } catch (err) {
      next(err);
    }
  });
  return router;
}
