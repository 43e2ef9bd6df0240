// Checking that an index's Redis records and Chroma collections describe each other, and
// repairing the records from Chroma when they do not (see physical-index.ts for when it runs).
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { createCatalog, type Catalog } from '../search/catalog.ts';
import { META, type VectorStore } from '../store/chroma-store.ts';
import { repairRecords, type RepairReport } from './repair.ts';
import type { RecordStore } from '../store/records.ts';
import type { Redis } from '../store/redis.ts';

export interface ReconcileDeps {
  store: VectorStore;
  records: RecordStore | undefined;
  redis: Redis | undefined;
  /** The Redis key one repairing process holds. */
  lockKey: string;
  base: string;
  /** The physical index's id, written into both stores by a repair. */
  id: string;
  log: Logger;
  /** Chunks per group as the catalog load found them in the records, once (saves a read of all). */
  takeLoadedCounts(): Map<string, number> | undefined;
}

export type Reconcile = (opts?: { truth?: Catalog; deep?: boolean }) => Promise<RepairReport | undefined>;

export function createReconciler(deps: ReconcileDeps): Reconcile {
  const { store, base, id, log } = deps;
  /** Agreement of the two stores, cheaply: ids match, or neither holds anything. */
  const consistent = async (raw: RecordStore): Promise<boolean> => {
    const now = await store.describe();
    const ids = new Set(now.map((c) => c.metadata[META.indexId]));
    const [redisId, count] = await Promise.all([raw.identity(), raw.count()]);
    if (now.length === 0) return count === 0;
    return ids.size === 1 && redisId !== undefined && ids.has(redisId);
  };

  /** The deeper check: per group, the chunks Chroma holds against the chunks the records list. */
  const countsAgree = async (raw: RecordStore): Promise<boolean> => {
    let expected = deps.takeLoadedCounts();
    if (!expected) {
      expected = new Map<string, number>();
      for (const r of await raw.all()) expected.set(r.access, (expected.get(r.access) ?? 0) + r.chunkIds.length);
    }
    const groups = new Set([...expected.keys(), ...(await store.groups())]);
    for (const g of groups) if ((await store.count(g)) !== (expected.get(g) ?? 0)) return false;
    return true;
  };
  const agree = async (raw: RecordStore, deep: boolean) => (await consistent(raw)) && (!deep || (await countsAgree(raw)));

  const repair = async (raw: RecordStore, truthIn: Catalog | undefined): Promise<RepairReport> => {
    let truth = truthIn;
    if (!truth) {
      const scanned = createCatalog();
      for (const group of await store.groups()) await store.scan(group, (r) => scanned.load(r, group));
      truth = scanned;
    }
    const report = await repairRecords(store, raw, truth);
    await store.setIndexId(id);
    await raw.setIdentity(id);
    return report;
  };

  const report = (r: RepairReport): void => {
    if (r.dropped.length + r.restored + r.rewritten + r.partial.length === 0) {
      // Records and collections agreed; only the id was missing (an index built before ids).
      log.info({ base, id }, 'index identity recorded in Chroma and Redis');
      return;
    }
    log.warn(
      {
        base,
        dropped: r.dropped.length,
        restored: r.restored,
        rewritten: r.rewritten,
        partial: r.partial.length,
        droppedPaths: r.dropped.slice(0, 20).map((d) => `${d.source}:${d.path}`),
      },
      'index repaired: the Redis records and Chroma disagreed (documents missing from Chroma ' +
        'will be indexed again; records of documents Chroma holds were restored from it)',
    );
  };

  /** One process repairs; the others wait for it and then see agreeing stores. */
  const withLock = async <T>(redis: Redis, fn: () => Promise<T>): Promise<T> => {
    const token = randomUUID();
    for (let waited = 0; (await redis.set(deps.lockKey, token, 'PX', 120_000, 'NX')) !== 'OK'; waited += 200) {
      if (waited > 120_000) throw new Error(`index ${base}: waited too long for another process's repair`);
      await new Promise((r) => setTimeout(r, 200));
    }
    try {
      return await fn();
    } finally {
      if ((await redis.get(deps.lockKey)) === token) await redis.del(deps.lockKey);
    }
  };

  return async (opts = {}) => {
    const { records: raw, redis } = deps;
    if (!raw || !redis) return undefined;
    const deep = opts.deep ?? false;
    if (await agree(raw, deep)) return undefined;
    return withLock(redis, async () => {
      if (await agree(raw, deep)) return undefined;
      const r = await repair(raw, opts.truth);
      report(r);
      return r;
    });
  };
}
