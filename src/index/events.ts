// Index events over Redis pub/sub: every process holding a lexical index (bot replicas, workers)
// applies the changes another process made, so answers use new text without a restart. Pub/sub
// drops messages while a subscriber is disconnected, so a reconnect triggers a full reload.
// Events carry ids, never chunk text: a subscriber reads a changed document's chunks from Chroma.
// (A 30 MB page once made one event large enough to drop the subscriber's connection.)
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Redis } from '../store/redis.ts';

export type IndexEvent =
  /** A document was (re)indexed: its chunks are in `base`'s collection for `access`. */
  | { type: 'put'; base: string; docId: string; access: string; chunks: number }
  | { type: 'remove'; base: string; docId: string }
  /** The live index is now `base` (blue/green switch). */
  | { type: 'switch'; base: string };

type Envelope = IndexEvent & { origin: string };

export interface IndexEvents {
  /** This process's id: its own events are not applied twice. */
  readonly origin: string;
  publish(event: IndexEvent): Promise<void>;
  close(): Promise<void>;
}

export const eventsChannel = (ns: string) => `${ns}:events`;

export async function openIndexEvents(
  redis: Redis,
  ns: string,
  handlers: { apply: (e: IndexEvent) => Promise<void> | void; resync: () => Promise<void> },
  log: Logger,
): Promise<IndexEvents> {
  const origin = randomUUID();
  const sub = redis.duplicate({ connectionName: 'labbot-events' });
  let connectedOnce = false;
  // Events are applied one at a time, in order, so a put never overtakes an earlier remove.
  let chain: Promise<void> = Promise.resolve();
  sub.on('ready', () => {
    if (connectedOnce) {
      log.warn('index events reconnected; reloading the lexical index to catch up');
      chain = chain.then(handlers.resync).catch((err: Error) => log.error({ err: err.message }, 'reload after reconnect failed'));
    }
    connectedOnce = true;
  });
  sub.on('error', (err: Error) => log.debug({ err: err.message }, 'index events connection error'));
  sub.on('message', (_channel: string, message: string) => {
    let e: Envelope;
    try {
      e = JSON.parse(message) as Envelope;
    } catch {
      log.warn('ignored a malformed index event');
      return;
    }
    if (e.origin === origin) return;
    chain = chain
      .then(() => handlers.apply(e))
      .catch((err: Error) => log.error({ err: err.message, type: e.type }, 'applying an index event failed'));
  });
  await sub.subscribe(eventsChannel(ns));
  return {
    origin,
    async publish(event) {
      await redis.publish(eventsChannel(ns), JSON.stringify({ ...event, origin } satisfies Envelope));
    },
    async close() {
      await chain;
      sub.disconnect();
    },
  };
}
