// A small lab served by `labbot serve` in-process, stopped and started again over the same data
// dir and Redis, with a queue worker that re-syncs the folder while serve is down: what the
// snapshot security tests need to show what a restart answers to anonymous POST /api/ask.
import { mkdtempSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { openLabbot } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/log.ts';
import { requestSync } from '../../src/queue/jobs.ts';
import { followSync } from '../../src/queue/progress.ts';
import { reconcileWithConfig } from '../../src/queue/reconcile-config.ts';
import { startQueueRuntime } from '../../src/queue/runtime.ts';
import { closeRedis, connectRedis } from '../../src/store/redis.ts';
import { startServe, type Running } from '../../src/serve.ts';
import { testEnv } from './app.ts';
import { TEST_REDIS_URL } from './redis-namespaces.ts';

export const TOKEN = 'snapshot-admin-token-0123456789';

export interface SnapshotLab {
  root: string;
  env: Record<string, string>;
  serve(log?: Logger): Promise<Running>;
  /** `labbot worker`'s path: a process without a lexical index syncs the folder through the queue. */
  resyncThroughWorker(): Promise<void>;
  /** The live index's snapshot file (one is expected). */
  snapshotFile(): string;
}

export function snapshotLab(): SnapshotLab {
  const root = mkdtempSync(path.join(os.tmpdir(), 'labbot-snapsec-'));
  const env = testEnv({
    env: { LABBOT_PORT: '0', LABBOT_ADMIN_TOKEN: TOKEN },
    fileConfig: { sources: [{ id: 'lab', type: 'folder', path: root }], access: { default: 'public', channels: { CPI: ['pi-only'] } } },
  });
  return {
    root,
    env,
    serve: (log = createLogger('silent')) => startServe(loadConfig(env), log),
    async resyncThroughWorker() {
      const redis = connectRedis(TEST_REDIS_URL);
      const app = await openLabbot(loadConfig(env), createLogger('silent'), { redis, loadCatalog: false });
      try {
        await reconcileWithConfig(app);
        const runtime = await startQueueRuntime(app, { worker: true });
        try {
          const outcome = await followSync(
            runtime.queue,
            await requestSync(runtime.queue, { source: 'lab', reason: 'test' }),
            'lab',
            undefined,
            { pollMs: 50, timeoutMs: 60_000 },
          );
          if (outcome.error || outcome.failed.length) throw new Error(`re-sync failed: ${JSON.stringify(outcome)}`);
        } finally {
          await runtime.close();
        }
      } finally {
        await app.close();
        await closeRedis(redis);
      }
    },
    snapshotFile() {
      const dir = path.join(env.LABBOT_DATA_DIR, 'lexical');
      const files = readdirSync(dir).filter((f) => f.endsWith('.lexical'));
      if (files.length !== 1) throw new Error(`expected one snapshot in ${dir}, found ${files.join(', ') || 'none'}`);
      return path.join(dir, files[0]);
    },
  };
}

/** POST /api/ask as anyone (public documents only), or with the token as a channel. */
export async function askText(running: Running, question: string, channel?: string): Promise<string> {
  const res = await fetch(`${running.url}/api/ask`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(channel ? { authorization: `Bearer ${TOKEN}` } : {}) },
    body: JSON.stringify({ question, ...(channel ? { channel } : {}) }),
  });
  if (res.status !== 200) throw new Error(`POST /api/ask answered ${res.status}: ${await res.text()}`);
  return res.text();
}
