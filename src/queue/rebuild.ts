// Blue/green rebuild: index every source into a new physical index beside the live one, check it,
// then point the alias at it (one Redis SET). Questions keep being answered from the old index
// (queried with the embedding model it was built with) until each process has switched; the old
// collections are dropped only once every live process has acknowledged the switch through Redis,
// or after the grace period (queue.switchGraceMs).
import type { Job } from 'bullmq';
import type { IndexAdmin, IndexHandle, Indexing, Installation } from '../ports.ts';
import { awaitSwitch, processesOn } from '../index/presence.ts';
import { liveBase } from '../store/records.ts';
import type { RebuildData } from './jobs.ts';

export interface RebuildResult {
  from: string;
  to: string;
  documents: number;
  chunks: number;
  embedded: number;
  /** Every live process switched before the old index was dropped (else the grace period ran out). */
  switchAcknowledged: boolean;
}

/** Indexes switched away from but not yet dropped (the rebuild waits for every process first). */
export const retiredKey = (ns: string) => `${ns}:retired`;

/**
 * Drops retired indexes no live process uses: a rebuild stopped while it waited (a worker
 * restarted during an upgrade) would otherwise leave its old collections behind for good.
 */
export async function dropRetired(app: Installation & Pick<IndexAdmin, 'openIndex'>): Promise<string[]> {
  const redis = app.redis;
  if (!redis) return [];
  const live = (await liveBase(redis, app.ns)) ?? app.config.collection;
  const dropped: string[] = [];
  for (const base of await redis.smembers(retiredKey(app.ns))) {
    if (base !== live && (await processesOn(redis, app.ns, base)) > 0) continue;
    if (base !== live) {
      await (await app.openIndex(base)).drop();
      dropped.push(base);
      app.log.info({ base }, 'dropped an index retired by an earlier rebuild');
    }
    await redis.srem(retiredKey(app.ns), base);
  }
  return dropped;
}

export async function rebuildIndex(app: Installation & Indexing & IndexAdmin, data: RebuildData, job?: Job): Promise<RebuildResult> {
  await dropRetired(app);
  const from = app.base;
  const to = `${app.config.collection}-v${Date.now().toString(36)}`;
  app.log.info({ from, to, reason: data.reason }, 'rebuilding the index beside the live one');
  const next = await app.openIndex(to);
  let embedded = 0;
  try {
    const sources = app.config.sources;
    for (const [i, source] of sources.entries()) {
      // Into the new index: its problems and source state too, live once it is switched to.
      const summary = await app.indexer.ingestSource(source, {
        into: next,
        onProgress: (e) => {
          if (e.phase === 'file' && job)
            void job
              .updateProgress({ source: source.id, sources: sources.length, at: i + 1, files: e.done, total: e.total })
              .catch(() => undefined);
        },
      });
      embedded += summary.chunks.embedded;
    }
    await check(app, next);
  } catch (err) {
    // The live index is untouched; the half-built one is dropped.
    await next.drop().catch(() => undefined);
    throw err;
  }
  const stats = await indexCounts(next);
  const old = await app.openIndex(from);
  // Retired before the switch is visible: if this job stops while it waits, a later rebuild drops it.
  await app.redis?.sadd(retiredKey(app.ns), from);
  await app.switchTo(next, true);
  app.log.info(
    { from, to, documents: stats.documents, chunks: stats.chunks },
    'switched to the rebuilt index; waiting for every live process before dropping the old one',
  );
  const graceMs = app.config.queue.switchGraceMs;
  const acks = app.redis ? await awaitSwitch(app.redis, app.ns, to, graceMs) : { acknowledged: true, waitingFor: [] };
  if (!acks.acknowledged)
    app.log.warn(
      { from, to, waitingFor: acks.waitingFor, graceMs },
      'some processes did not switch within the grace period; dropping the old index anyway',
    );
  await old.drop();
  await app.redis?.srem(retiredKey(app.ns), from);
  app.log.info({ from, to }, 'dropped the old index');
  return { from, to, documents: stats.documents, chunks: stats.chunks, embedded, switchAcknowledged: acks.acknowledged };
}

type PhysicalIndex = IndexHandle;

/**
 * What an index holds, from its records: a worker builds the new index without a lexical catalog
 * (it answers nothing), so the catalog is read only where there are no records (no Redis).
 */
async function indexCounts(
  index: PhysicalIndex,
): Promise<{ documents: number; chunks: number; sample?: { access: string; docId: string; chunkId: string } }> {
  if (!index.records) {
    const s = index.catalog.stats();
    const d = index.catalog.docs().next().value;
    return { documents: s.documents, chunks: s.chunks, sample: d && { access: d.access, docId: d.id, chunkId: d.chunkIds[0] } };
  }
  const docs = await index.records.all();
  const d = docs.find((x) => x.chunkIds.length > 0);
  return {
    documents: docs.length,
    chunks: docs.reduce((n, x) => n + x.chunkIds.length, 0),
    sample: d && { access: d.access, docId: d.id, chunkId: d.chunkIds[0] },
  };
}

/** The new index must hold documents if the old one did, and answer a query with its own chunk. */
async function check(app: IndexAdmin, next: PhysicalIndex): Promise<void> {
  const counts = await indexCounts(next);
  // Records, not the catalog: a queue worker keeps no lexical index of the live one.
  const before = (await app.records?.count()) ?? app.catalog.stats().documents;
  if (counts.documents === 0 && before > 0)
    throw new Error(`the rebuilt index holds no documents (the live one has ${before}); keeping the live one`);
  if (!counts.sample) return;
  const { access, docId, chunkId } = counts.sample;
  // The sample's text as Chroma holds it, which is what a question would be answered from.
  const chunk = (await next.store.documentChunks(access, docId)).find((r) => r.id === chunkId);
  if (!chunk) throw new Error('the rebuilt index lost a chunk text');
  const vector = await app.embeddings.embedQuery(chunk.text);
  const hits = await next.store.query(access, vector, 5);
  if (!hits.some((h) => h.id === chunk.id))
    throw new Error(`sample query on the rebuilt index did not find chunk ${chunk.id}; keeping the live one`);
}
