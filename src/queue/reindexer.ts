// What `/labbot reindex` and `/labbot status` talk to: the BullMQ queue (queue-reindexer.ts) when
// Redis is configured, else a re-sync in this process (in-process-reindexer.ts: `labbot serve`
// without Redis).
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
  reindex(
    target: string /* source id or 'all' */,
    requestedBy: string,
    onUpdate: (u: ReindexUpdate) => void,
  ): Promise<{ queued: string[]; message: string }>;
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
