// Starts `labbot serve` in-process (dashboard, metrics, worker), as `labbot serve` runs it.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Metrics } from '../src/admin/metrics.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { startServe, type Running } from '../src/serve.ts';
import type { ActivityStore } from '../src/store/activity.ts';
import { testEnv } from './helpers/app.ts';

export const LAB = path.resolve('examples/lab');
export const TOKEN = 'admin-token-for-tests-0123456789';
export const EVIL = '<script>alert(1)</script>';

/** A folder with one document whose title and body carry markup. */
export function evilFolder(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-evil-'));
  writeFileSync(
    path.join(dir, 'evil.md'),
    `---\nid: evil-doc\ntitle: "Ultracentrifuge rotor ${EVIL}"\n---\n\n# Ultracentrifuge ` +
      `rotor\n\nThe ultracentrifuge rotor ${EVIL} must be cleaned with mild detergent ` +
      `after every ultracentrifuge run and logged in the rotor book.\n`,
  );
  return dir;
}

export interface AdminServer {
  running: Running;
  url: string;
  metrics: Metrics;
  activity: ActivityStore | undefined;
  close(): Promise<void>;
}

export async function startAdminServer(
  opts: { env?: Record<string, string>; sources?: Record<string, unknown>[]; fileConfig?: Record<string, unknown> } = {},
): Promise<AdminServer> {
  const config = loadConfig(
    testEnv({
      env: { LABBOT_PORT: '0', LABBOT_ADMIN_TOKEN: TOKEN, ...opts.env },
      fileConfig: {
        sources: opts.sources ?? [{ id: 'lab', type: 'folder', path: LAB }],
        access: { default: 'public', channels: { CPI: ['pi-only'] } },
        ...opts.fileConfig,
      },
    }),
  );
  const running = await startServe(config, createLogger('silent'));
  return {
    running,
    url: running.url,
    metrics: running.metrics,
    activity: running.activity,
    close: () => running.close(),
  };
}
