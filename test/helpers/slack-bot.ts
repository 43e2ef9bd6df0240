// A real labbot Slack bot (Bolt, HTTP mode) on 127.0.0.1 against the fake Slack, real Redis and the
// Labbot it is given. Used by the Slack integration tests and bench/slack-ack.ts.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Labbot } from '../../src/app.ts';
import { createHttpApp, listen } from '../../src/admin/server.ts';
import type { Config } from '../../src/config.ts';
import { createSlackBot, type SlackBot } from '../../src/slack/bot.ts';
import { createBackgroundReindexer } from '../../src/queue/in-process-reindexer.ts';
import type { Reindexer } from '../../src/queue/reindexer.ts';
import { createActivityStore, type ActivityStore } from '../../src/store/activity.ts';
import { closeRedis, connectRedis, type Redis } from '../../src/store/redis.ts';
import { trackRedisPrefix } from './redis-namespaces.ts';

export const SIGNING_SECRET = 'test-signing-secret-0123456789';

let n = 0;
export function uniquePrefix(): string {
  n += 1;
  return trackRedisPrefix(`labbot-test-${process.pid}-${Date.now().toString(36)}-${n}:`);
}

/** Env for a Slack-enabled test app (HTTP mode unless an app token is given). */
export function slackEnv(apiUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    SLACK_BOT_TOKEN: 'xoxb-test-token',
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: apiUrl,
    LABBOT_ADMINS: 'UADMIN',
    ...extra,
  };
}

export interface RunningBot {
  bot: SlackBot;
  url: string;
  redis: Redis;
  activity: ActivityStore;
  reindexer: Reindexer;
  prefix: string;
  close(): Promise<void>;
}

export async function startTestBot(
  app: Labbot,
  /** `prefix`: another bot's, to run this one as a second replica of the same app. */
  opts: { config?: Config; reindexer?: Reindexer; concurrency?: number; drainMs?: number; prefix?: string; progressEditMs?: number } = {},
): Promise<RunningBot> {
  const prefix = opts.prefix ?? uniquePrefix();
  const redis = connectRedis(app.config.redisUrl, { name: 'labbot-slack-test' });
  const activity = createActivityStore(redis, prefix);
  const reindexer = opts.reindexer ?? createBackgroundReindexer(app);
  const bot = await createSlackBot({
    app,
    config: opts.config ?? app.config,
    redis,
    activity,
    reindexer,
    log: app.log,
    keyPrefix: prefix,
    concurrency: opts.concurrency,
    drainMs: opts.drainMs,
    progressEditMs: opts.progressEditMs,
  });
  let server: Server | undefined;
  let url = '';
  if (bot.router) {
    server = await listen(createHttpApp(app, { routers: [bot.router] }), 0, '127.0.0.1');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
  } else {
    await bot.start();
  }
  return {
    bot,
    url,
    redis,
    activity,
    reindexer,
    prefix,
    async close() {
      await bot.stop();
      if (server) {
        server.closeAllConnections();
        await new Promise<void>((r) => server!.close(() => r()));
      }
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      await closeRedis(redis);
    },
  };
}
