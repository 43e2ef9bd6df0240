// The DOI enricher the pipeline is given when `enrich.crossref` is on: the cache first, Crossref
// only for a DOI not looked up within enrich.maxAge, and nothing at all while Crossref is known
// to be unreachable (a back-off shared by every process through the store: 2 minutes, doubling
// up to 6 hours, or the Retry-After of a 429). A failure is an answer ("unavailable"), never a throw.
import type { Logger } from 'pino';
import { normalizeDoi } from '../ingest/metadata/coerce.ts';
import type { DoiEnricher, DoiLookup } from '../ingest/metadata/enrich.ts';
import type { CrossrefClient } from './crossref-client.ts';
import type { CachedLookup, CrossrefStore } from './crossref-store.ts';

export interface CrossrefEnricher extends DoiEnricher {
  store: CrossrefStore;
  client: CrossrefClient;
  /**
   * Looks up again every DOI whose record has expired (a retraction registered since it was read
   * shows up this way); stops at the first failure. Cached DOIs cost one Redis round trip in all.
   */
  recheck(dois: Iterable<string>): Promise<{ dois: number; asked: number; unavailable: boolean }>;
}

const FIRST_BACKOFF_MS = 2 * 60_000;
const MAX_BACKOFF_MS = 6 * 3_600_000;
/** Part of every content hash while enrichment is on; a new version re-indexes enriched documents. */
export const CROSSREF_TAG = 'crossref-v1';

export function createCrossrefEnricher(opts: {
  client: CrossrefClient;
  store: CrossrefStore;
  maxAgeMs: number;
  log?: Logger;
  /** Told of every record (or "not found") read from Crossref, once stored. */
  onStored?: (doi: string, value: CachedLookup) => void;
}): CrossrefEnricher {
  const { client, store, log } = opts;
  const inflight = new Map<string, Promise<DoiLookup>>();
  const quietly = async <T>(what: string, p: Promise<T>, fallback: T): Promise<T> =>
    p.catch((err: Error) => {
      log?.warn({ err: err.message }, `Crossref cache: ${what} failed`);
      return fallback;
    });

  const ask = async (doi: string): Promise<DoiLookup> => {
    const out = await client.work(doi);
    if (out.status === 'unavailable') {
      const previous = await quietly('read', store.backoff(), 0);
      const backoff =
        out.retryAfterMs && out.retryAfterMs > 0 ? out.retryAfterMs : Math.min(previous ? previous * 2 : FIRST_BACKOFF_MS, MAX_BACKOFF_MS);
      await quietly('write', store.markDown(backoff), undefined);
      log?.warn(
        { doi, reason: out.reason, retryInMs: backoff },
        'Crossref unavailable; documents are indexed without it and tried again later',
      );
      return { status: 'unavailable', reason: out.reason };
    }
    const value = out.status === 'found' ? { status: 'found' as const, record: out.record } : { status: 'not-found' as const };
    // "Not found" is kept too, for less long: a DOI registered yesterday is found tomorrow.
    await quietly('write', store.put(doi, value, value.status === 'found' ? opts.maxAgeMs : opts.maxAgeMs / 4), undefined);
    opts.onStored?.(doi, value);
    if ((await quietly('read', store.backoff(), 0)) > 0) await quietly('write', store.markUp(), undefined);
    return value;
  };

  const lookup = async (raw: string, useCache = true): Promise<DoiLookup> => {
    const doi = normalizeDoi(raw);
    if (!doi) return { status: 'not-found' };
    if (useCache) {
      const cached = await quietly('read', store.get(doi), undefined);
      if (cached) return cached;
    }
    if ((await quietly('read', store.downFor(), 0)) > 0)
      return { status: 'unavailable', reason: 'Crossref was unreachable a short while ago' };
    const key = doi.toLowerCase();
    let p = inflight.get(key);
    if (!p) {
      p = ask(doi).finally(() => inflight.delete(key));
      inflight.set(key, p);
    }
    return p;
  };

  return {
    tag: CROSSREF_TAG,
    store,
    client,
    available: async () => (await quietly('read', store.downFor(), 0)) === 0,
    lookup: (doi) => lookup(doi),
    async recheck(dois) {
      const all = [...new Set([...dois].map((d) => normalizeDoi(d)?.toLowerCase()).filter((d): d is string => Boolean(d)))];
      const fresh = await quietly(
        'check',
        store.fresh(all),
        all.map(() => true),
      );
      const stale = all.filter((_, i) => !fresh[i]);
      let asked = 0;
      // As many at once as Crossref allows at once (the client paces them further).
      for (let i = 0; i < stale.length; ) {
        const batch = stale.slice(i, (i += client.limits().concurrency));
        asked += batch.length;
        const out = await Promise.all(batch.map((doi) => lookup(doi, false)));
        if (out.some((o) => o.status === 'unavailable')) return { dois: all.length, asked, unavailable: true };
      }
      return { dois: all.length, asked, unavailable: false };
    },
  };
}
