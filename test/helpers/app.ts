// Opens a real labbot Labbot against the shared test Chroma server, in its own collection.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { openLabbot, type Labbot } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/log.ts';
import type { Logger } from 'pino';
import { closeRedis, connectRedis, type Redis } from '../../src/store/redis.ts';
import { TEST_REDIS_URL, trackRedisPrefix } from './redis-namespaces.ts';

let counter = 0;

export function uniqueCollection(prefix = 't'): string {
  counter += 1;
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${counter}`;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  fileConfig?: Record<string, unknown>;
  collection?: string;
}

export function testEnv(opts: TestAppOptions = {}): Record<string, string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-test-'));
  const configFile = path.join(dir, 'labbot.config.json');
  writeFileSync(configFile, JSON.stringify(opts.fileConfig ?? { access: { default: 'public', channels: { CPI: ['pi-only'] } } }));
  const collection = opts.collection ?? uniqueCollection();
  // An app's Redis keys all live under `labbot:<collection>:` (src/app.ts); removed when the file ends.
  trackRedisPrefix(`labbot:${collection}:`, opts.env?.REDIS_URL ?? TEST_REDIS_URL);
  return {
    CHROMA_URL: inject('chromaUrl'),
    LABBOT_COLLECTION: collection,
    LABBOT_DATA_DIR: path.join(dir, 'data'),
    LABBOT_CONFIG: configFile,
    LOG_LEVEL: 'silent',
    REDIS_URL: TEST_REDIS_URL,
    ...opts.env,
  };
}

export async function openTestApp(opts: TestAppOptions = {}): Promise<Labbot> {
  const config = loadConfig(testEnv(opts));
  return openLabbot(config, createLogger('silent'));
}

/**
 * A Labbot on a Redis connection of its own, as a separate process would open it; `close` (safe to
 * call twice) closes both.
 */
export async function openAppOwnRedis(
  env: Record<string, string>,
  opts: { log?: Logger; loadCatalog?: boolean } = {},
): Promise<{ app: Labbot; redis: Redis; close: () => Promise<void> }> {
  const redis = connectRedis(TEST_REDIS_URL);
  const app = await openLabbot(loadConfig(env), opts.log ?? createLogger('silent'), {
    redis,
    ...(opts.loadCatalog === undefined ? {} : { loadCatalog: opts.loadCatalog }),
  });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await app.close();
    await closeRedis(redis);
  };
  return { app, redis, close };
}
