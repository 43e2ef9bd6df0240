// Where Crossref lookups are kept: in Redis under the app's namespace (every process and a later
// re-ingest reuse them), or in this process's memory when there is no Redis.
//   …:crossref:work:<doi>  the record (or "not found"), expiring after enrich.maxAge (a quarter of it for "not found")
//   …:crossref:notices     DOI -> the notice to show, for the DOIs that have one (written with the record, one transaction)
//   …:crossref:down        set while Crossref is unreachable (expires when it may be asked again)
//   …:crossref:backoff     the last back-off, kept a while longer so repeated failures double it
import { isCrossrefRecord, mainNotice, type CrossrefRecord } from '../ingest/metadata/crossref.ts';
import type { EditorialNotice } from '../types.ts';
import { execChecked, type Redis } from '../store/redis.ts';

export type CachedLookup = { status: 'found'; record: CrossrefRecord } | { status: 'not-found' };

export interface CrossrefStore {
  get(doi: string): Promise<CachedLookup | undefined>;
  put(doi: string, value: CachedLookup, ttlMs: number): Promise<void>;
  /** Which of these DOIs have a lookup that has not expired. */
  fresh(dois: string[]): Promise<boolean[]>;
  /** Every DOI with a notice (lower case) and its notice. */
  notices(): Promise<Map<string, EditorialNotice>>;
  /** Milliseconds Crossref still counts as unreachable (0: ask it). */
  downFor(): Promise<number>;
  markDown(backoffMs: number): Promise<void>;
  markUp(): Promise<void>;
  /** The back-off in force, to double on the next failure (0 when Crossref answered last). */
  backoff(): Promise<number>;
}

const docKey = (doi: string) => doi.trim().toLowerCase();

function readCached(text: string | null): CachedLookup | undefined {
  if (!text) return undefined;
  try {
    const v = JSON.parse(text) as { status?: unknown; record?: unknown };
    if (v.status === 'not-found') return { status: 'not-found' };
    if (v.status === 'found' && isCrossrefRecord(v.record)) return { status: 'found', record: v.record };
  } catch {
    // A damaged entry is a miss: asked again.
  }
  return undefined;
}

function readNotice(text: string): EditorialNotice | undefined {
  try {
    const n = JSON.parse(text) as EditorialNotice;
    return typeof n === 'object' && n !== null && typeof n.kind === 'string' ? n : undefined;
  } catch {
    return undefined;
  }
}

export function redisCrossrefStore(redis: Redis, ns: string): CrossrefStore {
  const work = (doi: string) => `${ns}:crossref:work:${docKey(doi)}`;
  const noticesKey = `${ns}:crossref:notices`;
  const downKey = `${ns}:crossref:down`;
  const backoffKey = `${ns}:crossref:backoff`;
  return {
    async get(doi) {
      return readCached(await redis.get(work(doi)));
    },
    async put(doi, value, ttlMs) {
      const notice = value.status === 'found' ? mainNotice(value.record.notices) : undefined;
      const tx = redis.multi().set(work(doi), JSON.stringify(value), 'PX', Math.max(1, Math.round(ttlMs)));
      // The notice table and the record change together, so no reader sees one without the other.
      if (notice) tx.hset(noticesKey, docKey(doi), JSON.stringify(notice));
      else tx.hdel(noticesKey, docKey(doi));
      await execChecked(tx, 'crossref cache write');
    },
    async fresh(dois) {
      if (dois.length === 0) return [];
      const p = redis.pipeline();
      for (const d of dois) p.exists(work(d));
      return (await execChecked(p, 'crossref cache check')).map((v) => v === 1);
    },
    async notices() {
      const out = new Map<string, EditorialNotice>();
      for (const [doi, text] of Object.entries(await redis.hgetall(noticesKey))) {
        const n = readNotice(text);
        if (n) out.set(doi, n);
      }
      return out;
    },
    async downFor() {
      return Math.max(0, await redis.pttl(downKey));
    },
    async markDown(backoffMs) {
      const ms = Math.max(1, Math.round(backoffMs));
      await execChecked(
        redis
          .multi()
          .set(downKey, '1', 'PX', ms)
          .set(backoffKey, String(ms), 'PX', ms * 4),
        'crossref state',
      );
    },
    async markUp() {
      await redis.del(downKey, backoffKey);
    },
    async backoff() {
      return Number(await redis.get(backoffKey)) || 0;
    },
  };
}

export function memoryCrossrefStore(now: () => number = Date.now): CrossrefStore {
  const works = new Map<string, { value: CachedLookup; until: number }>();
  const notices = new Map<string, EditorialNotice>();
  let down = { until: 0, backoff: 0 };
  const live = (doi: string) => {
    const e = works.get(docKey(doi));
    return e && e.until > now() ? e : undefined;
  };
  return {
    async get(doi) {
      return live(doi)?.value;
    },
    async put(doi, value, ttlMs) {
      works.set(docKey(doi), { value, until: now() + ttlMs });
      const notice = value.status === 'found' ? mainNotice(value.record.notices) : undefined;
      if (notice) notices.set(docKey(doi), notice);
      else notices.delete(docKey(doi));
    },
    async fresh(dois) {
      return dois.map((d) => live(d) !== undefined);
    },
    async notices() {
      return new Map(notices);
    },
    async downFor() {
      return Math.max(0, down.until - now());
    },
    async markDown(backoffMs) {
      down = { until: now() + backoffMs, backoff: backoffMs };
    },
    async markUp() {
      down = { until: 0, backoff: 0 };
    },
    async backoff() {
      return down.until + 3 * down.backoff > now() ? down.backoff : 0;
    },
  };
}
