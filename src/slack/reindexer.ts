// What `/labbot reindex` and `/labbot status` talk to: the BullMQ queue (queue/reindexer.ts) when
// Redis is configured, else the in-process re-sync below (`labbot serve` without Redis).
import type { App } from '../app.ts';
import type { IngestSummary, ProgressEvent } from '../../ingest/pipeline.ts';
import type { SourceConfig } from '../config.ts';

/** One source's progress line (final: false, as often as it changes) or its result line (final: true, once). */
export interface ReindexUpdate {
  source: string;
  text: string;
  final: boolean;
}

export interface Reindexer {
  /**
   * Queues (or starts) a re-sync; returns at once with a human line of what was queued. onUpdate
   * gets every progress line and then one result line per queued source; whoever shows them
   * decides how often (Slack: one message edited at most every few seconds).
   */
  reindex(target: string /* source id or 'all' */, requestedBy: string, onUpdate: (u: ReindexUpdate) => void): Promise<{ queued: string[]; message: string }>;
  status(): Promise<{ lastSync: Record<string, string /*ISO*/>; queue?: Record<string, number> }>;
}

/** The configured sources a `/labbot reindex <target>` names: one by id, or all for "" / "all". */
export function sourcesFor(sources: SourceConfig[], target: string): SourceConfig[] {
  if (sources.length === 0) throw new Error('No sources are configured (add them to labbot.config.json).');
  if (target === '' || target === 'all') return sources;
  const found = sources.find((s) => s.id === target);
  if (!found) throw new Error(`Unknown source "${target}". Known sources: ${sources.map((s) => s.id).join(', ')} (or "all").`);
  return [found];
}

function summaryLine(id: string, s: IngestSummary, ms: number): string {
  const d = s.documents;
  return (
    `${id}: done in ${(ms / 1000).toFixed(1)} s: ${d.indexed} indexed, ${d.unchanged} unchanged, ${d.removed} removed` +
    `${s.skipped.length ? `, ${s.skipped.length} skipped` : ''}, ${s.failed.length} failed` +
    (s.failed.length ? ` (${s.failed.slice(0, 3).map((f) => f.path).join(', ')}${s.failed.length > 3 ? ', …' : ''})` : '')
  );
}

/**
 * Runs app.ingestSource in this process, one sync at a time per source: a request for a source
 * that is already syncing is chained after the running one (a change may have landed mid-run).
 */
export function createBackgroundReindexer(app: App): Reindexer {
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
      const summary = await app.ingestSource(source, progress);
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
