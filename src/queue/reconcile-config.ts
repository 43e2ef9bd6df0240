// The configuration is the truth about what may be answered from. A source removed from
// labbot.config.json, and a document whose group came from its source's `access` or the default
// when that setting has changed, leave the index at once (at start-up, at every sync), instead of
// staying answerable (restricted text included) until someone rebuilds. The removal is logged and
// noted on the dashboard; a document whose group changed is indexed again by the sync that follows.
//
// Only sources that a process with a config has seen are removed when they leave it: documents
// indexed with `labbot ingest <folder>` outside any configured source stay. Without Redis there is
// no record of that, so every source not in the config is removed (said in the log).
import type { IndexedDoc } from '../types.ts';
import type { Indexing, Installation } from '../ports.ts';
import type { SourceConfig } from '../config.ts';

export interface ReconcileResult {
  /** Sources that left the config, with how many documents left the index with them. */
  removedSources: { source: string; documents: number }[];
  /** Documents pulled because their source's or the default group changed. */
  regrouped: { source: string; path: string; from: string; to: string }[];
}

/** Where a document decided by the config belongs now; undefined when its own metadata decided. */
function expectedGroup(doc: IndexedDoc, source: SourceConfig, defaultAccess: string): string | undefined {
  if (doc.accessFrom !== 'source config' && doc.accessFrom !== 'default') return undefined;
  return source.access ?? defaultAccess;
}

/** A source's documents as the process knows them (Redis records, or the catalog without Redis). */
const indexedDocs = (app: Indexing, source: string): Promise<IndexedDoc[]> => app.indexer.lookup().bySource(source);

async function removedSources(app: Installation & Indexing): Promise<string[]> {
  const configured = new Set(app.config.sources.map((s) => s.id));
  if (app.records) return (await app.records.configuredSources()).filter((s) => !configured.has(s));
  return Object.keys(app.catalog.stats().bySource).filter((s) => !configured.has(s));
}

/**
 * Removes what the config no longer allows. `only` limits the group check to one source (a sync
 * of that source); removed sources are always checked, since no sync of theirs will ever run.
 */
export async function reconcileWithConfig(app: Installation & Indexing, only?: string): Promise<ReconcileResult> {
  const result: ReconcileResult = { removedSources: [], regrouped: [] };
  const { log } = app;
  for (const source of await removedSources(app)) {
    const docs = await indexedDocs(app, source);
    for (const d of docs) await app.indexer.remove(d);
    await app.records?.forgetSource(source);
    result.removedSources.push({ source, documents: docs.length });
    const text = `Source "${source}" is no longer in the config: its ${docs.length} document${docs.length === 1 ? '' : 's'} left the index.`;
    log.warn(
      { source, documents: docs.length, redis: Boolean(app.records) },
      'source removed from the config: its documents left the index',
    );
    await app.records?.addNote(text);
  }
  const sources = app.config.sources.filter((s) => only === undefined || s.id === only);
  for (const source of sources) {
    for (const d of await indexedDocs(app, source.id)) {
      const want = expectedGroup(d, source, app.config.access.default);
      if (want === undefined || want === d.access) continue;
      await app.indexer.remove(d);
      result.regrouped.push({ source: source.id, path: d.path, from: d.access, to: want });
    }
    const moved = result.regrouped.filter((r) => r.source === source.id);
    if (moved.length) {
      const groups = [...new Set(moved.map((m) => `${m.from} -> ${m.to}`))].join(', ');
      log.warn(
        { source: source.id, documents: moved.length, groups },
        'the configured group of these documents changed: they left the index until indexed again',
      );
      await app.records?.addNote(
        `Source "${source.id}": the configured access changed (${groups}); ${moved.length} ` +
          `document${moved.length === 1 ? '' : 's'} left the index until indexed again.`,
      );
    }
  }
  await app.records?.markConfigured(app.config.sources.map((s) => s.id));
  return result;
}
