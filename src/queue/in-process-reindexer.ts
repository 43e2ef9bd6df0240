// Re-syncs in this process, for `labbot serve` without Redis (no queue, no workers).
import type { Indexing, Installation } from '../ports.ts';
import type { IngestSummary, ProgressEvent } from '../ingest/pipeline.ts';
import type { SourceConfig } from '../config.ts';
import { sourcesFor, type Reindexer, type ReindexUpdate } from './reindexer.ts';

function summaryLine(id: string, s: IngestSummary, ms: number): string {
  const d = s.documents;
  return (
    `${id}: done in ${(ms / 1000).toFixed(1)} s: ${d.indexed} indexed, ${d.unchanged} unchanged, ${d.removed} removed` +
    `${s.skipped.length ? `, ${s.skipped.length} skipped` : ''}, ${s.failed.length} failed` +
    (s.failed.length
      ? ` (${s.failed
          .slice(0, 3)
          .map((f) => f.path)
          .join(', ')}${s.failed.length > 3 ? ', …' : ''})`
      : '')
  );
}

/**
 * Runs the indexer's ingestSource in this process, one sync at a time per source: a request for a source
 * that is already syncing is chained after the running one (a change may have landed mid-run).
 */
export function createBackgroundReindexer(app: Installation & Indexing): Reindexer {
  const tails = new Map<string, Promise<void>>();
  const running = new Set<string>();
  const waiting = new Map<string, number>();
  const lastSync: Record<string, string> = {};

  async function run(source: SourceConfig, requestedBy: string, onUpdate: (u: ReindexUpdate) => void): Promise<void> {
    waiting.set(source.id, (waiting.get(source.id) ?? 1) - 1);
    running.add(source.id);
    const t0 = performance.now();
    const update = (text: string, final = false) => onUpdate({ source: source.id, text, final });
    const progress = (e: ProgressEvent) => {
      if (e.phase === 'file') update(`${source.id}: ${e.done}/${e.total} files…`);
      else if (e.phase === 'embed') update(`${source.id}: embedding ${e.done}/${e.total} chunks…`);
    };
    try {
      app.log.info({ source: source.id, requestedBy }, 'reindex started');
      update(`${source.id}: started…`);
      const summary = await app.indexer.ingestSource(source, { onProgress: progress });
      lastSync[source.id] = new Date().toISOString();
      update(summaryLine(source.id, summary, performance.now() - t0), true);
    } catch (err) {
      app.log.error({ err, source: source.id }, 'reindex failed');
      update(`${source.id}: failed: ${(err as Error).message}`, true);
    } finally {
      running.delete(source.id);
    }
  }

  return {
    async reindex(target, requestedBy, onUpdate) {
      const targets = sourcesFor(app.config.sources, target.trim());
      const queued: string[] = [];
      const behind: string[] = [];
      for (const source of targets) {
        if (running.has(source.id)) behind.push(source.id);
        waiting.set(source.id, (waiting.get(source.id) ?? 0) + 1);
        const prev = tails.get(source.id) ?? Promise.resolve();
        const next = prev.then(() => run(source, requestedBy, onUpdate));
        tails.set(source.id, next);
        void next.finally(() => {
          if (tails.get(source.id) === next) tails.delete(source.id);
        });
        queued.push(source.id);
      }
      const message =
        `Re-sync queued for ${queued.join(', ')}` +
        (behind.length ? ` (${behind.join(', ')} will start after the sync already running)` : '') +
        '. I will post the result here; progress is in your direct messages with labbot, in one message that updates.';
      return { queued, message };
    },
    async status() {
      const queue: Record<string, number> = {
        running: running.size,
        waiting: [...waiting.values()].reduce((a, b) => a + Math.max(0, b), 0),
      };
      return { lastSync: { ...lastSync }, queue };
    },
  };
}
