// `labbot backup <dir>` on a running installation: indexing paused (quiesce.ts), then the live
// index's Chroma collections (chroma-collections.ts) and every labbot key in Redis
// (redis-keys.ts) copied while nothing writes them, the queue resumed, then the config file and
// the serving process's lexical snapshot copied, and a manifest with every file's SHA-256 written
// last (a directory without one is not a backup).
//
// Consistency: the records' revision (store/records.ts) and the live index are read before and
// after the copy; any write in between (a `labbot ingest` run beside the queue) means the copy is
// taken again, up to three times.
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Queue } from 'bullmq';
import type { ChromaClient } from 'chromadb';
import type { Logger } from 'pino';
import { snapshotFile } from '../index/lexical-snapshot.ts';
import { createRecordStore, liveBase } from '../store/records.ts';
import type { Redis } from '../store/redis.ts';
import { copyMeasured, writeJsonLines } from './backup-files.ts';
import {
  CONFIG_FILE,
  FORMAT,
  FORMAT_VERSION,
  MANIFEST_FILE,
  REDIS_FILE,
  collectionFile,
  keptInBackup,
  type FileEntry,
  type Manifest,
} from './backup-format.ts';
import { collectionsOf, exportCollection, groupOf } from './chroma-collections.ts';
import { pauseIndexing } from './quiesce.ts';
import { dumpKeys, keysUnder, redisVersion } from './redis-keys.ts';

export type ProgressUnit = 'jobs' | 'records' | 'keys' | 'bytes';
export interface Progress {
  step: string;
  done: number;
  total: number;
  unit: ProgressUnit;
}

export interface BackupDeps {
  redis: Redis;
  chroma: ChromaClient;
  /** The indexing queue (`<ns>:bull`). */
  queue: Queue;
  /** Redis namespace of the installation (`labbot:<collection>`). */
  ns: string;
  collection: string;
  /** Where this installation's serving process keeps its lexical snapshot (`<data dir>/lexical`). */
  snapshotDir: string;
  configFile: string | undefined;
  log: Logger;
  /** How long to wait for running indexing jobs. */
  waitMs: number;
  onProgress?: (p: Progress) => void;
  /** Aborts the backup (Ctrl-C): the queue is resumed, the directory left without a manifest. */
  signal?: AbortSignal;
}

const ATTEMPTS = 3;

export class BackupError extends Error {}

/** The directory must be new or empty: a backup never mixes with another one's files. */
function prepareDir(dir: string): void {
  if (existsSync(dir)) {
    if (!statSync(dir).isDirectory()) throw new BackupError(`${dir} exists and is not a directory`);
    if (readdirSync(dir).length) throw new BackupError(`${dir} is not empty: give a new directory for each backup`);
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

interface Copied {
  base: string;
  collections: Manifest['chroma']['collections'];
  keys: number;
  files: Record<string, FileEntry>;
}

/** One copy of the live index's collections and the namespace's keys. */
async function copyStores(dir: string, deps: BackupDeps, base: string, aborted: () => void): Promise<Copied> {
  const files: Record<string, FileEntry> = {};
  const collections: Manifest['chroma']['collections'] = [];
  const cols = await collectionsOf(deps.chroma, base);
  const total = (await Promise.all(cols.map((c) => c.count()))).reduce((a, b) => a + b, 0);
  let done = 0;
  for (const col of cols) {
    const file = collectionFile(col.name);
    let records = 0;
    files[file] = await writeJsonLines(
      path.join(dir, file),
      exportCollection(
        col,
        (n) => {
          records += n;
          done += n;
          deps.onProgress?.({ step: 'chroma', done, total: Math.max(total, done), unit: 'records' });
        },
        aborted,
      ),
    );
    collections.push({ name: col.name, group: groupOf(base, col.name), records, file });
  }
  deps.onProgress?.({ step: 'chroma', done, total: done, unit: 'records' });
  const keys = (await keysUnder(deps.redis, `${deps.ns}:`)).filter((k) => keptInBackup(k, deps.ns, base)).sort();
  let dumped = 0;
  let written = 0;
  const counted = async function* (lines: AsyncIterable<unknown>) {
    for await (const l of lines) {
      written += 1;
      yield l;
    }
  };
  files[REDIS_FILE] = await writeJsonLines(
    path.join(dir, REDIS_FILE),
    counted(
      dumpKeys(
        deps.redis,
        keys,
        (n) => {
          dumped += n;
          deps.onProgress?.({ step: 'redis', done: dumped, total: keys.length, unit: 'keys' });
        },
        aborted,
      ),
    ),
  );
  return { base, collections, keys: written, files };
}

export async function backup(dir: string, deps: BackupDeps): Promise<Manifest> {
  const aborted = () => {
    if (deps.signal?.aborted) throw new BackupError('backup interrupted');
  };
  prepareDir(dir);
  const pause = await pauseIndexing(deps.queue, deps.redis, deps.ns, {
    timeoutMs: deps.waitMs,
    aborted,
    onWaiting: (active, initial) =>
      deps.onProgress?.({ step: 'waiting for indexing jobs', done: initial - active, total: initial, unit: 'jobs' }),
  });
  let copied: Copied | undefined;
  try {
    for (let attempt = 1; attempt <= ATTEMPTS && !copied; attempt++) {
      const base = (await liveBase(deps.redis, deps.ns)) ?? deps.collection;
      const records = createRecordStore(deps.redis, deps.ns, base, '');
      const before = await records.revision();
      const got = await copyStores(dir, deps, base, aborted);
      const after = await records.revision();
      const baseAfter = (await liveBase(deps.redis, deps.ns)) ?? deps.collection;
      if (before === after && baseAfter === base) {
        copied = got;
        break;
      }
      deps.log.warn({ attempt, base }, 'the index changed while it was copied (an ingest outside the queue?); copying again');
      for (const f of Object.keys(got.files)) rmSync(path.join(dir, f), { force: true });
    }
  } finally {
    await pause.release();
  }
  if (!copied)
    throw new BackupError(
      `the index kept changing during ${ATTEMPTS} copies; stop any \`labbot ingest\` running beside the queue and try again`,
    );

  const files = { ...copied.files };
  const snapshot = snapshotFile(deps.snapshotDir, copied.base);
  let snapshotRel: string | undefined;
  if (existsSync(snapshot)) {
    snapshotRel = `lexical/${path.basename(snapshot)}`;
    const total = statSync(snapshot).size;
    let done = 0;
    files[snapshotRel] = await copyMeasured(snapshot, path.join(dir, snapshotRel), (n) => {
      done += n;
      deps.onProgress?.({ step: 'lexical snapshot', done, total: Math.max(total, done), unit: 'bytes' });
    });
  }
  let configRel: string | undefined;
  if (deps.configFile && existsSync(deps.configFile)) {
    configRel = CONFIG_FILE;
    files[configRel] = await copyMeasured(deps.configFile, path.join(dir, configRel));
  }
  const manifest: Manifest = {
    format: FORMAT,
    formatVersion: FORMAT_VERSION,
    createdAt: new Date().toISOString(),
    collection: deps.collection,
    base: copied.base,
    redis: { file: REDIS_FILE, keys: copied.keys, version: await redisVersion(deps.redis), queuePausedByBackup: pause.pausedByUs },
    chroma: { collections: copied.collections },
    ...(snapshotRel ? { snapshot: snapshotRel } : {}),
    ...(configRel ? { config: configRel } : {}),
    files,
  };
  writeFileSync(path.join(dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  return manifest;
}
