// The periodic re-check of indexed DOIs, so a paper retracted after it was indexed is flagged at
// the latest enrich.maxAge (plus one pass) later. Runs in processes that answer (they hold the
// catalog, hence every indexed DOI); one Redis lock per pass keeps replicas from repeating it.
import type { Logger } from 'pino';
import type { Redis } from '../store/redis.ts';
import type { CrossrefEnricher } from './crossref-enricher.ts';

/** What a re-check needs of a serving process (a Labbot has all of it). */
export interface RecheckDeps {
  enricher?: Pick<CrossrefEnricher, 'recheck'>;
  catalog: { docs(): Iterable<{ doi?: string }> };
  notices?: { refresh(): Promise<unknown>; size(): number };
  redis?: Redis;
  ns: string;
  log: Logger;
}

export async function recheckNotices(app: RecheckDeps): Promise<{ dois: number; asked: number; unavailable: boolean } | undefined> {
  if (!app.enricher) return undefined;
  const dois = [...app.catalog.docs()].map((d) => d.doi).filter((d): d is string => Boolean(d));
  const result = await app.enricher.recheck(dois);
  await app.notices?.refresh();
  return result;
}

export function startNoticeRecheck(app: RecheckDeps, everyMs: number): { stop(): void } {
  let running = false;
  const pass = async () => {
    if (running) return;
    running = true;
    try {
      const lock = app.redis
        ? await app.redis.set(`${app.ns}:crossref:recheck-lock`, String(process.pid), 'PX', Math.max(1000, everyMs - 1000), 'NX')
        : 'OK';
      if (lock !== 'OK') return;
      const r = await recheckNotices(app);
      if (r?.asked) app.log.info({ ...r, notices: app.notices?.size() }, 'Crossref records of indexed DOIs checked again');
    } catch (err) {
      app.log.warn({ err: (err as Error).message }, 'Crossref re-check failed; tried again at the next pass');
    } finally {
      running = false;
    }
  };
  const first = setTimeout(() => void pass(), Math.min(everyMs, 60_000));
  const timer = setInterval(() => void pass(), everyMs);
  first.unref();
  timer.unref();
  return {
    stop() {
      clearTimeout(first);
      clearInterval(timer);
    },
  };
}
