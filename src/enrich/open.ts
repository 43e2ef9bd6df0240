// Crossref enrichment as the app opens it from the config: the client, its cache (Redis, or this
// process's memory without Redis), the enricher the pipeline is given, and in processes that
// answer the notice board (told at once of what this process looks up).
import type { Logger } from 'pino';
import { mainNotice } from '../ingest/metadata/crossref.ts';
import type { Config } from '../config.ts';
import type { Redis } from '../store/redis.ts';
import { createCrossrefClient } from './crossref-client.ts';
import { createCrossrefEnricher, type CrossrefEnricher } from './crossref-enricher.ts';
import { memoryCrossrefStore, redisCrossrefStore } from './crossref-store.ts';
import { createNoticeBoard, type NoticeBoard } from './notices.ts';

export async function openCrossref(
  config: Pick<Config, 'enrich'>,
  opts: { redis: Redis | undefined; ns: string; log: Logger; answering: boolean },
): Promise<{ enricher: CrossrefEnricher | undefined; notices: NoticeBoard | undefined }> {
  const crossref = config.enrich?.crossref;
  if (!crossref) return { enricher: undefined, notices: undefined };
  let notices: NoticeBoard | undefined;
  const enricher = createCrossrefEnricher({
    client: createCrossrefClient({ apiUrl: crossref.apiUrl, mailto: crossref.mailto }),
    store: opts.redis ? redisCrossrefStore(opts.redis, opts.ns) : memoryCrossrefStore(),
    maxAgeMs: crossref.maxAgeMs,
    log: opts.log,
    onStored: (doi, v) => notices?.set(doi, v.status === 'found' ? mainNotice(v.record.notices) : undefined),
  });
  if (opts.answering) notices = await createNoticeBoard(enricher.store, { log: opts.log });
  return { enricher, notices };
}
