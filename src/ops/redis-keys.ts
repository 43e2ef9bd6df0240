// labbot's Redis keys copied out and back with DUMP / RESTORE, key by key, over the connection
// labbot already has. Chosen over copying Redis's RDB or AOF file: that file is on the Redis
// machine (another container under compose), Redis may keep none (no persistence), and a shared
// or managed Redis holds other applications' keys, which a whole-file restore would overwrite.
// DUMP is atomic per key; labbot's writes that must agree with each other (the index records)
// are paused while the keys are read (quiesce.ts).
import type { KeyLine } from './backup-format.ts';
import { keyLine } from './backup-format.ts';
import type { Redis } from '../store/redis.ts';

const BATCH = 200;

const escapeGlob = (s: string) => s.replace(/[*?[\]\\]/g, '\\$&');

/** Every key whose name starts with `prefix` (SCAN: Redis keeps serving meanwhile). */
export async function keysUnder(redis: Redis, prefix: string): Promise<string[]> {
  const out = new Set<string>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${escapeGlob(prefix)}*`, 'COUNT', 1000);
    cursor = next;
    for (const k of keys) out.add(k);
  } while (cursor !== '0');
  return [...out];
}

/** One key under `prefix`, if there is any. */
export async function anyKeyUnder(redis: Redis, prefix: string): Promise<string | undefined> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${escapeGlob(prefix)}*`, 'COUNT', 1000);
    if (keys.length) return keys[0];
    cursor = next;
  } while (cursor !== '0');
  return undefined;
}

/** DUMP and expiry of each key; keys gone since they were listed are skipped. */
export async function* dumpKeys(redis: Redis, keys: string[], onKeys?: (n: number) => void, aborted?: () => void): AsyncIterable<KeyLine> {
  for (let i = 0; i < keys.length; i += BATCH) {
    aborted?.();
    const batch = keys.slice(i, i + BATCH);
    const tx = redis.pipeline();
    for (const k of batch) tx.dumpBuffer(k).pttl(k);
    const replies = (await tx.exec()) ?? [];
    const now = Date.now();
    for (let j = 0; j < batch.length; j++) {
      const [dumpErr, payload] = replies[2 * j] ?? [];
      const [ttlErr, pttl] = replies[2 * j + 1] ?? [];
      if (dumpErr || ttlErr) throw new Error(`reading Redis key ${batch[j]}: ${(dumpErr ?? ttlErr)!.message}`);
      // Expired or deleted between SCAN and DUMP.
      if (!payload || pttl === -2) continue;
      const ms = Number(pttl);
      yield { k: batch[j], x: ms > 0 ? now + ms : 0, v: (payload as Buffer).toString('base64') };
    }
    onKeys?.(batch.length);
  }
}

/** RESTOREs the keys of a backup (never over an existing key); keys whose expiry passed are skipped. */
export async function restoreKeys(
  redis: Redis,
  lines: AsyncIterable<unknown>,
  onKeys?: (n: number) => void,
): Promise<{ restored: number; expired: number }> {
  let restored = 0;
  let expired = 0;
  let batch: KeyLine[] = [];
  const flush = async () => {
    if (!batch.length) return;
    const tx = redis.pipeline();
    for (const l of batch) tx.restore(l.k, l.x, Buffer.from(l.v, 'base64'), 'ABSTTL');
    const replies = (await tx.exec()) ?? [];
    replies.forEach(([err], i) => {
      if (err) {
        const hint = /payload version|checksum/i.test(err.message) ? ' (a backup restores into the same or a newer Redis version)' : '';
        throw new Error(`restoring Redis key ${batch[i].k}: ${err.message}${hint}`);
      }
    });
    restored += batch.length;
    onKeys?.(batch.length);
    batch = [];
  };
  for await (const raw of lines) {
    const parsed = keyLine.safeParse(raw);
    if (!parsed.success) throw new Error(`the Redis file holds a line that is not a key: ${parsed.error.issues[0]?.message}`);
    if (parsed.data.x !== 0 && parsed.data.x <= Date.now()) {
      expired += 1;
      continue;
    }
    batch.push(parsed.data);
    if (batch.length >= BATCH) await flush();
  }
  await flush();
  return { restored, expired };
}

/** The server's version (INFO server), for the manifest. */
export async function redisVersion(redis: Redis): Promise<string> {
  const info = await redis.info('server');
  return /^redis_version:(\S+)/m.exec(info)?.[1] ?? 'unknown';
}
