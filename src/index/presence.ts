// Which physical index every live labbot process is using, in Redis: each process refreshes its
// entry every few seconds and at once after a blue/green switch. A rebuild drops the old index
// only when no live process still uses it (or after a grace period: a process that stopped
// refreshing is gone, one that is stuck must not hold the old collections forever).
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Redis } from '../store/redis.ts';

export const presenceKey = (ns: string) => `${ns}:processes`;

interface Entry {
  base: string;
  seen: number;
  /** Where the process runs, for the log when a rebuild waits for it. */
  host?: string;
  pid?: number;
}

export interface Presence {
  /** Writes this process's entry now (after a switch: the acknowledgement). */
  beat(): Promise<void>;
  stop(): Promise<void>;
}

export const PRESENCE_EVERY_MS = 5000;
/** An entry not refreshed for this long belongs to a process that is gone. */
export const PRESENCE_STALE_MS = 3 * PRESENCE_EVERY_MS;

export function startPresence(redis: Redis, ns: string, origin: string, base: () => string, log: Logger): Presence {
  const beat = async () => {
    await redis.hset(
      presenceKey(ns),
      origin,
      JSON.stringify({ base: base(), seen: Date.now(), host: hostname(), pid: process.pid } satisfies Entry),
    );
  };
  const timer = setInterval(
    () => void beat().catch((err: Error) => log.debug({ err: err.message }, 'presence refresh failed')),
    PRESENCE_EVERY_MS,
  );
  timer.unref();
  void beat().catch(() => undefined);
  return {
    beat,
    async stop() {
      clearInterval(timer);
      await redis.hdel(presenceKey(ns), origin).catch(() => undefined);
    },
  };
}

/** Live processes (fresh entries) not yet using `base`, as host:pid; stale entries are removed on the way. */
export async function processesNotOn(redis: Redis, ns: string, base: string): Promise<string[]> {
  const all = await redis.hgetall(presenceKey(ns));
  const waiting: string[] = [];
  for (const [origin, json] of Object.entries(all)) {
    let e: Entry;
    try {
      e = JSON.parse(json) as Entry;
    } catch {
      await redis.hdel(presenceKey(ns), origin);
      continue;
    }
    if (Date.now() - e.seen > PRESENCE_STALE_MS) await redis.hdel(presenceKey(ns), origin);
    else if (e.base !== base) waiting.push(e.host && e.pid ? `${e.host}:${e.pid}` : origin);
  }
  return waiting;
}

/** Live processes (fresh entries) using `base`. */
export async function processesOn(redis: Redis, ns: string, base: string): Promise<number> {
  const all = await redis.hgetall(presenceKey(ns));
  let n = 0;
  for (const json of Object.values(all)) {
    try {
      const e = JSON.parse(json) as Entry;
      if (e.base === base && Date.now() - e.seen <= PRESENCE_STALE_MS) n += 1;
    } catch {
      // A malformed entry names no index.
    }
  }
  return n;
}

/** Waits until every live process uses `base`, or the grace period ends; says which it was. */
export async function awaitSwitch(
  redis: Redis,
  ns: string,
  base: string,
  graceMs: number,
  pollMs = 250,
): Promise<{ acknowledged: boolean; waitingFor: string[] }> {
  const deadline = Date.now() + graceMs;
  for (;;) {
    const waitingFor = await processesNotOn(redis, ns, base);
    if (waitingFor.length === 0) return { acknowledged: true, waitingFor };
    if (Date.now() >= deadline) return { acknowledged: false, waitingFor };
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
