// `labbot restore <dir>` into an installation that holds nothing yet under this LABBOT_COLLECTION
// (a fresh Redis database or server, a fresh data dir or Chroma), with Redis and Chroma running:
// every file is checked against the manifest's SHA-256 before anything is written, then the
// collections are created and filled, the Redis keys restored, the queue resumed if the backup
// paused it, and the lexical snapshot put where `serve` looks for it (it is a cache: `serve`
// compares it with the restored records before using it). The config file is not replaced (it
// may be mounted read-only); a restore says when the one in use differs from the backup's.
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Queue } from 'bullmq';
import type { ChromaClient } from 'chromadb';
import { noteRecordsChecked, snapshotFile } from '../index/lexical-snapshot.ts';
import type { Redis } from '../store/redis.ts';
import { copyMeasured, measureFile, readJsonLines } from './backup-files.ts';
import { MANIFEST_FILE, manifestSchema, type Manifest } from './backup-format.ts';
import type { Progress } from './backup.ts';
import { collectionsOf, importCollection } from './chroma-collections.ts';
import { anyKeyUnder, restoreKeys } from './redis-keys.ts';

export interface RestoreDeps {
  redis: Redis;
  chroma: ChromaClient;
  /** The indexing queue, opened only after the keys are restored (BullMQ writes its own keys on opening). */
  openQueue: () => Queue;
  ns: string;
  collection: string;
  snapshotDir: string;
  configFile: string | undefined;
  onProgress?: (p: Progress) => void;
}

export interface RestoreResult {
  manifest: Manifest;
  collections: number;
  records: number;
  keys: number;
  /** Keys whose expiry passed since the backup (Slack dedupe, sessions...). */
  expired: number;
  snapshot: boolean;
  /** The config file in use differs from the backup's copy (kept at this path). */
  configDiffers: string | undefined;
}

export class RestoreError extends Error {}

export function readManifest(dir: string): Manifest {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path.join(dir, MANIFEST_FILE), 'utf8'));
  } catch (err) {
    throw new RestoreError(
      `${dir} is not a labbot backup (no readable ${MANIFEST_FILE}: ${(err as Error).message}); a backup that was interrupted has none`,
    );
  }
  const m = manifestSchema.safeParse(raw);
  if (!m.success)
    throw new RestoreError(
      `${path.join(dir, MANIFEST_FILE)} is not a labbot backup manifest of this ` +
        `version: ${m.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  const named = [m.data.redis.file, ...m.data.chroma.collections.map((c) => c.file), m.data.snapshot, m.data.config].filter(
    (f): f is string => Boolean(f),
  );
  for (const f of named) if (!m.data.files[f]) throw new RestoreError(`the manifest names ${f} but gives no checksum for it`);
  return m.data;
}

/** Every file as the manifest describes it, or an error naming the first that is not. */
async function verifyFiles(dir: string, manifest: Manifest, onProgress?: (p: Progress) => void): Promise<void> {
  const entries = Object.entries(manifest.files);
  const total = entries.reduce((a, [, e]) => a + e.bytes, 0);
  let done = 0;
  for (const [rel, want] of entries) {
    let got: Awaited<ReturnType<typeof measureFile>>;
    try {
      got = await measureFile(path.join(dir, rel), (n) => {
        done += n;
        onProgress?.({ step: 'checking files', done, total: Math.max(total, done), unit: 'bytes' });
      });
    } catch (err) {
      throw new RestoreError(`${rel} of the backup cannot be read: ${(err as Error).message}`);
    }
    if (got.bytes !== want.bytes || got.sha256 !== want.sha256)
      throw new RestoreError(
        `${rel} of the backup is damaged or was changed (its size or SHA-256 is not the manifest's); nothing was restored`,
      );
  }
}

/** Refuses a target that already holds this installation's data: a restore never merges. */
async function assertEmptyTarget(deps: RestoreDeps, manifest: Manifest): Promise<void> {
  const key = await anyKeyUnder(deps.redis, `${deps.ns}:`);
  if (key) {
    throw new RestoreError(
      `Redis already holds keys of this installation (${key}, under ${deps.ns}:): ` +
        `restore into an empty Redis database (another REDIS_URL /<db>), or stop ` +
        `labbot and delete them first. Nothing was restored.`,
    );
  }
  const existing = new Set((await collectionsOf(deps.chroma, manifest.base)).map((c) => c.name));
  const clash = manifest.chroma.collections.find((c) => existing.has(c.name));
  if (clash)
    throw new RestoreError(
      `Chroma already has the collection ${clash.name}: restore into an empty Chroma (a fresh data dir, or another CHROMA_URL). Nothing was restored.`,
    );
}

export async function restore(dir: string, deps: RestoreDeps): Promise<RestoreResult> {
  const manifest = readManifest(dir);
  if (manifest.collection !== deps.collection) {
    throw new RestoreError(
      `the backup is of LABBOT_COLLECTION=${manifest.collection}, this installation ` +
        `is ${deps.collection}: set LABBOT_COLLECTION=${manifest.collection} to restore it`,
    );
  }
  await verifyFiles(dir, manifest, deps.onProgress);
  await assertEmptyTarget(deps, manifest);

  const total = manifest.chroma.collections.reduce((a, c) => a + c.records, 0);
  let done = 0;
  let records = 0;
  for (const c of manifest.chroma.collections) {
    const got = await importCollection(deps.chroma, readJsonLines(path.join(dir, c.file)), (n) => {
      done += n;
      deps.onProgress?.({ step: 'chroma', done, total: Math.max(total, done), unit: 'records' });
    });
    if (got.name !== c.name || got.records !== c.records)
      throw new RestoreError(`${c.file} holds ${got.name} with ${got.records} records; the manifest says ${c.name} with ${c.records}`);
    records += got.records;
  }
  let keysDone = 0;
  const keys = await restoreKeys(deps.redis, readJsonLines(path.join(dir, manifest.redis.file)), (n) => {
    keysDone += n;
    deps.onProgress?.({ step: 'redis', done: keysDone, total: Math.max(manifest.redis.keys, keysDone), unit: 'keys' });
  });
  // The copied queue state is the backup's pause; the queue it came from was resumed after it.
  if (manifest.redis.queuePausedByBackup) {
    const queue = deps.openQueue();
    try {
      await queue.resume();
    } finally {
      await queue.close();
    }
  }

  let snapshot = false;
  if (manifest.snapshot) {
    const to = snapshotFile(deps.snapshotDir, manifest.base);
    mkdirSync(deps.snapshotDir, { recursive: true });
    // A snapshot left in this data dir, and its note of when it was last found equal to the records, go.
    rmSync(to, { force: true });
    noteRecordsChecked(to, { id: '' }, undefined, Buffer.alloc(0));
    await copyMeasured(path.join(dir, manifest.snapshot), to);
    snapshot = true;
  }
  let configDiffers: string | undefined;
  if (manifest.config) {
    const theirs = readFileSync(path.join(dir, manifest.config));
    let ours: Buffer | undefined;
    try {
      ours = deps.configFile ? readFileSync(deps.configFile) : undefined;
    } catch {
      ours = undefined;
    }
    if (!ours?.equals(theirs)) configDiffers = path.join(dir, manifest.config);
  }
  return {
    manifest,
    collections: manifest.chroma.collections.length,
    records,
    keys: keys.restored,
    expired: keys.expired,
    snapshot,
    configDiffers,
  };
}
