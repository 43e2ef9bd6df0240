// What every command starts from: the config, a logger for what the command is, and the Labbot.
import type { Logger } from 'pino';
import { openLabbot, type Labbot } from '../app.ts';
import { loadConfig, type Config } from '../config.ts';
import { chooseLogging, createLogger } from '../log.ts';
import { closeRedis, tryConnectRedis } from '../store/redis.ts';

export interface CommandEnv {
  config: Config;
  log: Logger;
}

/**
 * The config and a logger. Logs go to stderr (createLogger): readable there when it is a terminal.
 * A service's log is its output; a command's output is on stdout, its log only what went wrong.
 */
export function setup(role: 'service' | 'command' = 'command'): CommandEnv {
  const config = loadConfig();
  const choice = chooseLogging(config.log, { role, tty: Boolean(process.stderr.isTTY) });
  const log = createLogger(choice.level, 'labbot', undefined, config.secrets, choice);
  return { config, log };
}

export async function withApp<T>(fn: (app: Labbot) => Promise<T>, opts: { loadCatalog?: boolean; env?: CommandEnv } = {}): Promise<T> {
  const { config, log } = opts.env ?? setup();
  // With Redis, the CLI sees the live index after a blue/green switch, and its ingests update the
  // records and every running bot's lexical index. Without it, it works on its own.
  const redis = await tryConnectRedis(config.redisUrl, 1000);
  const app = await openLabbot(config, log, { loadCatalog: opts.loadCatalog, redis });
  try {
    return await fn(app);
  } finally {
    await app.close();
    if (redis) await closeRedis(redis);
  }
}
