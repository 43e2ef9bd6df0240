// Retraction notices at answer time. A notice is a fact about a DOI that can arrive long after the
// paper was indexed, so it is not stored with the document: each answering process keeps the
// table of DOIs that have one in memory (one Redis read at start, then one a minute, and at once
// when this process looked a DOI up), and flags passages from it with no I/O per question.
import type { Logger } from 'pino';
import type { EditorialNotice, Passage } from '../types.ts';
import type { CrossrefStore } from './crossref-store.ts';

export interface NoticeBoard {
  get(doi: string | undefined): EditorialNotice | undefined;
  /** Records what a lookup in this process found, before the next refresh would. */
  set(doi: string, notice: EditorialNotice | undefined): void;
  refresh(): Promise<void>;
  size(): number;
  close(): void;
}

const key = (doi: string) =>
  doi
    .trim()
    .replace(/^(?:https?:\/\/(?:dx\.)?doi\.org\/|doi:\s*)/i, '')
    .toLowerCase();

export async function createNoticeBoard(store: CrossrefStore, opts: { log?: Logger; refreshMs?: number } = {}): Promise<NoticeBoard> {
  let table = new Map<string, EditorialNotice>();
  const refresh = async () => {
    try {
      table = await store.notices();
    } catch (err) {
      // The last table read stays in force: a Redis blip must not unflag a retracted paper.
      opts.log?.warn({ err: (err as Error).message }, 'could not read the retraction notices; keeping the last ones read');
    }
  };
  await refresh();
  const timer = setInterval(() => void refresh(), opts.refreshMs ?? 60_000);
  timer.unref();
  return {
    get: (doi) => (doi ? table.get(key(doi)) : undefined),
    set(doi, notice) {
      const next = new Map(table);
      if (notice) next.set(key(doi), notice);
      else next.delete(key(doi));
      table = next;
    },
    refresh,
    size: () => table.size,
    close: () => clearInterval(timer),
  };
}

/** The passages with the notice of their document's DOI, if it has one (new objects; inputs untouched). */
export function withNotices<P extends Passage>(passages: P[], notice: (doi: string | undefined) => EditorialNotice | undefined): P[] {
  return passages.map((p) => {
    const n = notice(p.meta.doi);
    return n ? { ...p, meta: { ...p.meta, notice: n } } : p;
  });
}
