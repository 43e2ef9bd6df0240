// Which physical index is live in this process, kept in step with every other process: the
// Redis alias names it at start-up, `switch` events move it, `put`/`remove` events keep its
// lexical catalog current (reading the changed document from Chroma), and this process's entry in
// the presence list says which index it uses, so a rebuild knows when the old one is unused.
import type { Logger } from 'pino';
import { openIndexEvents, type IndexEvent, type IndexEvents } from './events.ts';
import { embeddingKey, type PhysicalIndex } from './physical-index.ts';
import { startPresence, type Presence } from './presence.ts';
import { aliasKey, liveBase } from '../store/records.ts';
import type { Redis } from '../store/redis.ts';

export interface LiveIndex {
  readonly current: PhysicalIndex;
  readonly events: IndexEvents | undefined;
  /** Makes `index` live here, and for every process when `publish` is set. */
  switchTo(index: PhysicalIndex, publish: boolean): Promise<void>;
  close(): Promise<void>;
}

export interface LiveIndexDeps {
  redis: Redis | undefined;
  ns: string;
  /** The base name used when Redis names no live index. */
  defaultBase: string;
  open(base: string): Promise<PhysicalIndex>;
  /** Whether this process mirrors the lexical index (bots) or only follows the alias (workers). */
  mirror: boolean;
  log: Logger;
  /** Called after another process's change was applied to the live catalog. */
  onChanged?: () => void;
}

/** Applies a document event to an index's catalog: the text is read from Chroma, not the event. */
export async function applyDocumentEvent(index: PhysicalIndex, e: Exclude<IndexEvent, { type: 'switch' }>): Promise<void> {
  if (e.type === 'remove') {
    index.catalog.removeDocument(e.docId);
    return;
  }
  const stored = await index.store.documentChunks(e.access, e.docId);
  index.catalog.removeDocument(e.docId);
  if (stored.length) index.catalog.load(stored, e.access);
}

export async function followLiveIndex(deps: LiveIndexDeps): Promise<LiveIndex> {
  const { redis, ns, log, mirror } = deps;
  /** Opens an index for use here: its catalog loaded (when mirroring) and its records checked against Chroma. */
  const activate = async (base: string): Promise<PhysicalIndex> => {
    const index = await deps.open(base);
    if (mirror) await index.loadCatalog();
    await index.reconcile({ truth: mirror ? index.catalog : undefined, deep: true });
    return index;
  };
  let live = await activate((redis && (await liveBase(redis, ns))) ?? deps.defaultBase);
  let events: IndexEvents | undefined;
  let presence: Presence | undefined;

  if (redis) {
    events = await openIndexEvents(
      redis,
      ns,
      {
        apply: async (e) => {
          if (e.type === 'switch') {
            if (e.base === live.base) return;
            live = await activate(e.base);
            await presence?.beat();
            log.info({ base: e.base, embedding: embeddingKey(live.embedding) }, 'switched to the rebuilt index');
            return;
          }
          if (e.base !== live.base || !mirror) return;
          // The text is read from Chroma: a short outage (a restart) is waited out, in order.
          for (let attempt = 0; ; attempt++) {
            try {
              await applyDocumentEvent(live, e);
              deps.onChanged?.();
              return;
            } catch (err) {
              if (attempt >= 5) throw err;
              log.warn(
                { docId: e.docId, attempt: attempt + 1, err: (err as Error).message },
                'reading a changed document from Chroma failed; retrying',
              );
              await new Promise((r) => setTimeout(r, 500 * 2 ** attempt));
            }
          }
        },
        resync: async () => {
          live = await activate((await liveBase(redis, ns)) ?? deps.defaultBase);
          await presence?.beat();
        },
      },
      log,
    );
    presence = startPresence(redis, ns, events.origin, () => live.base, log);
  }

  return {
    get current() {
      return live;
    },
    events,
    async switchTo(index, publish) {
      if (publish && redis) {
        await redis.set(aliasKey(ns), index.base);
        await events?.publish({ type: 'switch', base: index.base });
      }
      live = index;
      await presence?.beat();
    },
    async close() {
      await presence?.stop();
      await events?.close();
    },
  };
}
