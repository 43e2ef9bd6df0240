// The `labbot backup <dir>` and `labbot restore <dir>` commands: connections from the config
// (Redis, Chroma as every command finds it, the indexing queue), progress bars on a terminal, and
// a summary. The work is in ops/backup.ts and ops/restore.ts.
import path from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import cliProgress from 'cli-progress';
import { ChromaClient } from 'chromadb';
import { namespaceOf } from '../app.ts';
import { ConfigError, type Config } from '../config.ts';
import { redactUrls, type Logger } from '../log.ts';
import { backup, BackupError, type Progress } from '../ops/backup.ts';
import { BackupBusyError } from '../ops/quiesce.ts';
import { restore, RestoreError } from '../ops/restore.ts';
import { openIndexQueue } from '../queue/jobs.ts';
import { connectChroma } from '../store/chroma-supervisor.ts';
import { parseUrl } from '../store/chroma-store.ts';
import { bullConnection, closeRedis, tryConnectRedis } from '../store/redis.ts';
import { setup } from './context.ts';

/** One bar per step on a terminal; elsewhere one line when a step ends. */
function progressBars(enabled: boolean): { onProgress: (p: Progress) => void; stop: () => void } {
  if (!enabled) return { onProgress: () => undefined, stop: () => undefined };
  const tty = Boolean(process.stderr.isTTY);
  let bar: cliProgress.SingleBar | undefined;
  let current: Progress | undefined;
  const scale = (p: Progress) =>
    p.unit === 'bytes'
      ? { value: Math.round(p.done / 1024), total: Math.round(p.total / 1024), unit: 'KiB' }
      : { value: p.done, total: p.total, unit: p.unit };
  const end = () => {
    if (!current) return;
    if (bar) bar.stop();
    else if (!tty) console.error(`${current.step}: ${scale(current).value} ${scale(current).unit}`);
    bar = undefined;
  };
  return {
    onProgress(p) {
      if (current?.step !== p.step) {
        end();
        current = p;
        if (tty) {
          bar = new cliProgress.SingleBar(
            { stream: process.stderr, format: ' {step} [{bar}] {value}/{total} {unit}', hideCursor: true, clearOnComplete: false },
            cliProgress.Presets.shades_classic,
          );
          bar.start(scale(p).total, scale(p).value, { step: p.step, unit: scale(p).unit });
        }
      }
      current = p;
      bar?.setTotal(scale(p).total);
      bar?.update(scale(p).value, { step: p.step, unit: scale(p).unit });
    },
    stop: end,
  };
}

const seconds = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 86_400) throw new InvalidArgumentError('a number of seconds from 0 to 86400');
  return n;
};

interface Connected {
  config: Config;
  log: Logger;
  redis: NonNullable<Awaited<ReturnType<typeof tryConnectRedis>>>;
  chroma: ChromaClient;
  /** The indexing queue, opened on first use (opening it writes BullMQ's keys). */
  queue(): ReturnType<typeof openIndexQueue>;
  ns: string;
  close(): Promise<void>;
}

async function connect(what: string): Promise<Connected> {
  const { config, log } = setup();
  const redis = await tryConnectRedis(config.redisUrl);
  if (!redis) throw new ConfigError(`${what} needs Redis; nothing answers at ${redactUrls(config.redisUrl)} (REDIS_URL).`);
  const ns = namespaceOf(config.collection);
  try {
    // CHROMA_URL, or the server of a labbot running on this data dir, or one of our own for the copy.
    const chroma = await connectChroma({ chromaUrl: config.chromaUrl, dataDir: config.dataDir }, log);
    let queue: ReturnType<typeof openIndexQueue> | undefined;
    const openQueue = () => {
      if (queue) return queue;
      queue = openIndexQueue(bullConnection(config.redisUrl), `${ns}:bull`, config.queue);
      queue.on('error', (err) => log.warn({ err: err.message }, 'queue connection error'));
      return queue;
    };
    return {
      config,
      log,
      redis,
      chroma: new ChromaClient(parseUrl(chroma.url)),
      queue: openQueue,
      ns,
      close: async () => {
        await queue?.close();
        await chroma.stop();
        await closeRedis(redis);
      },
    };
  } catch (err) {
    await closeRedis(redis);
    throw err;
  }
}

/** The modules' own errors are the user's to fix: printed as they are, like config errors. */
const asConfigError = (err: unknown) =>
  err instanceof BackupError || err instanceof BackupBusyError || err instanceof RestoreError ? new ConfigError(err.message) : err;

export function addBackupCommands(program: Command): void {
  program
    .command('backup')
    .description('copy the index, the Redis state, the config and the lexical snapshot into a new directory, while labbot runs')
    .argument('<dir>', 'a new or empty directory')
    .option('--wait <seconds>', 'how long to wait for running indexing jobs to finish', seconds, 600)
    .option('--json', 'print the manifest as JSON')
    .action(async (dir: string, opts: { wait: number; json?: boolean }) => {
      const c = await connect('backup');
      const abort = new AbortController();
      // Interrupted, the backup stops between pages and resumes the queue before exiting.
      const onSignal = () => abort.abort();
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      const progress = progressBars(!opts.json);
      try {
        const m = await backup(path.resolve(dir), {
          redis: c.redis,
          chroma: c.chroma,
          queue: c.queue(),
          ns: c.ns,
          collection: c.config.collection,
          snapshotDir: path.join(c.config.dataDir, 'lexical'),
          configFile: c.config.configFile,
          log: c.log,
          waitMs: opts.wait * 1000,
          onProgress: progress.onProgress,
          signal: abort.signal,
        });
        progress.stop();
        if (opts.json) console.log(JSON.stringify(m, null, 2));
        else {
          const records = m.chroma.collections.reduce((a, x) => a + x.records, 0);
          console.log(
            `backup written to ${path.resolve(dir)}: index ${m.base} (${m.chroma.collections.length} ` +
              `collections, ${records} chunks), ${m.redis.keys} Redis keys${m.snapshot ? ', lexical snapshot' : ''}${m.config ? ', labbot.config.json' : ''}`,
          );
          console.log("It holds every document's text and the config: keep it as private as the server. .env (the secrets) is not in it.");
        }
      } catch (err) {
        throw asConfigError(err);
      } finally {
        progress.stop();
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        await c.close();
      }
    });

  program
    .command('restore')
    .description(
      'restore a backup into an installation that holds nothing under this LABBOT_COLLECTION yet (Redis and Chroma running, labbot stopped)',
    )
    .argument('<dir>', 'a directory written by `labbot backup`')
    .option('--json', 'print the result as JSON')
    .action(async (dir: string, opts: { json?: boolean }) => {
      const c = await connect('restore');
      const progress = progressBars(!opts.json);
      try {
        const r = await restore(path.resolve(dir), {
          redis: c.redis,
          chroma: c.chroma,
          openQueue: c.queue,
          ns: c.ns,
          collection: c.config.collection,
          snapshotDir: path.join(c.config.dataDir, 'lexical'),
          configFile: c.config.configFile,
          onProgress: progress.onProgress,
        });
        progress.stop();
        const { manifest, ...rest } = r;
        if (opts.json) console.log(JSON.stringify({ ...rest, base: manifest.base, createdAt: manifest.createdAt }, null, 2));
        else {
          console.log(
            `restored the backup of ${manifest.createdAt}: index ${manifest.base} ` +
              `(${r.collections} collections, ${r.records} chunks), ${r.keys} Redis keys` +
              `${r.expired ? ` (${r.expired} expired since, left out)` : ''}${r.snapshot ? ', lexical snapshot' : ''}`,
          );
        }
        if (r.configDiffers)
          console.error(`note: the config in use (${c.config.configFile ?? 'none'}) differs from the backup's copy, ${r.configDiffers}`);
      } catch (err) {
        throw asConfigError(err);
      } finally {
        progress.stop();
        await c.close();
      }
    });
}
