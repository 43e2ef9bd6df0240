// `labbot worker`: a queue worker that syncs sources, indexes and deletes documents, rebuilds.
import type { Command } from 'commander';
import { openLabbot } from '../app.ts';
import { ConfigError } from '../config.ts';
import { redactUrls } from '../log.ts';
import { reconcileWithConfig } from '../queue/reconcile-config.ts';
import { startQueueRuntime } from '../queue/runtime.ts';
import { closeRedis, tryConnectRedis } from '../store/redis.ts';
import { setup } from './context.ts';
import { onShutdown } from './shutdown.ts';

export function addWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description('run a queue worker: sync sources, index and delete documents, rebuild')
    .action(async () => {
      const { config, log } = setup('service');
      for (const w of config.warnings) log.warn(w);
      const redis = await tryConnectRedis(config.redisUrl);
      if (!redis) throw new ConfigError(`The worker needs Redis; nothing answers at ${redactUrls(config.redisUrl)} (REDIS_URL).`);
      // A worker reads what is indexed from Redis records, not from a lexical index in memory:
      // skipping the catalog saves its start-up load and about half a bot's memory.
      const app = await openLabbot(config, log, { redis, loadCatalog: false });
      await reconcileWithConfig(app);
      const runtime = await startQueueRuntime(app, { worker: true });
      log.info({ concurrency: config.queue.concurrency, queue: 'labbot-index' }, 'worker started');
      onShutdown(log, async () => {
        await runtime.close();
        await app.close();
        await closeRedis(redis);
      });
    });
}
