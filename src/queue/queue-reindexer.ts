// `/labbot reindex` and `/labbot status` on top of the queue: a re-sync is a sync-source job that
// any worker may run; progress is followed from here and posted back to Slack.
import type { Queue } from 'bullmq';
import type { Indexing, Installation } from '../ports.ts';
import { sourcesFor, type Reindexer } from './reindexer.ts';
import { requestSync } from './jobs.ts';
import { describeOutcome, followSync } from './progress.ts';

export function createQueueReindexer(app: Installation & Indexing, queue: Queue): Reindexer {
  return {
    async reindex(target, requestedBy, onUpdate) {
      const chosen = sourcesFor(app.config.sources, target);
      const queued: string[] = [];
      for (const s of chosen) {
        const ticket = await requestSync(queue, { source: s.id, reason: `/labbot reindex by ${requestedBy}` });
        queued.push(s.id);
        onUpdate({ source: s.id, text: `${s.id}: waiting for a worker…`, final: false });
        // Every change is passed on: the Slack side shows them as one message, edited at a bounded rate.
        void followSync(queue, ticket, s.id, (o) => {
          if (o.done === o.total && o.total > 0) return; // the result line follows
          onUpdate({
            source: s.id,
            text: o.total ? `${s.id}: ${o.done}/${o.total} changed documents done…` : `${s.id}: comparing with the last sync…`,
            final: false,
          });
        })
          .then((o) => onUpdate({ source: s.id, text: describeOutcome(o), final: true }))
          .catch((err: Error) => onUpdate({ source: s.id, text: `${s.id}: could not follow the sync: ${err.message}`, final: true }));
      }
      return {
        queued,
        message:
          `Queued a re-sync of ${queued.join(', ')}. I will post the result here; ` +
          `progress is in your direct messages with labbot, in one message that updates.`,
      };
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
