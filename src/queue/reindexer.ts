// `/labbot reindex` and `/labbot status` on top of the queue: a re-sync is a sync-source job that
// any worker may run; progress is followed from here and posted back to Slack.
import type { Queue } from 'bullmq';
import type { App } from '../app.ts';
import { sourcesFor, type Reindexer } from '../slack/reindexer.ts';
import { enqueueSync } from './jobs.ts';
import { describeOutcome, followSync } from './progress.ts';

export function createQueueReindexer(app: App, queue: Queue, opts: { throttleMs?: number } = {}): Reindexer {
  const throttleMs = opts.throttleMs ?? 5000;
  return {
    async reindex(target, requestedBy, onUpdate) {
      const chosen = sourcesFor(app.config.sources, target);
      const queued: string[] = [];
      for (const s of chosen) {
        const jobId = await enqueueSync(queue, { source: s.id, reason: `/labbot reindex by ${requestedBy}` });
        queued.push(s.id);
        let last = Date.now();
        void followSync(queue, jobId, s.id, (o) => {
          // Slack's response_url takes only a few posts: progress is throttled hard.
          if (Date.now() - last < throttleMs || o.done === o.total) return;
          last = Date.now();
          onUpdate(`${s.id}: ${o.done}/${o.total} changed documents done…`);
        })
          .then((o) => onUpdate(describeOutcome(o), true))
          .catch((err: Error) => onUpdate(`${s.id}: could not follow the sync: ${err.message}`, true));
      }
      return { queued, message: `Queued a re-sync of ${queued.join(', ')}; I will post the result here.` };
    },
    async status() {
      const lastSync: Record<string, string> = {};
      for (const s of app.config.sources) {
        const at = (await app.records?.sourceState(s.id))?.lastSyncAt;
        if (at) lastSync[s.id] = at;
      }
      const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed');
      return { lastSync, queue: counts };
    },
  };
}
