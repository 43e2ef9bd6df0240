// A redis-server of a test's own (AOF on, as docker-compose runs it), so stopping and restarting
// it disturbs no other test.
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/store/chroma-server.ts';
import { waitFor } from './wait.ts';

export interface OwnRedis {
  port: number;
  url: string;
  start(): Promise<void>;
  stop(): void;
  isUp(): boolean;
  /** Holds every client's commands for `ms` (CLIENT PAUSE ALL): connections stay open, nothing is answered. */
  pause(ms: number): void;
}

export async function ownRedis(): Promise<OwnRedis> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-own-redis-'));
  const ping = () => {
    try {
      return execFileSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' }).includes('PONG');
    } catch {
      return false;
    }
  };
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      execFileSync('redis-server', [
        '--daemonize',
        'yes',
        '--bind',
        '127.0.0.1',
        '--port',
        String(port),
        '--dir',
        dir,
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
        '--save',
        '',
        '--logfile',
        path.join(dir, 'redis.log'),
      ]);
      await waitFor(async () => ping(), 10_000, `redis on ${port}`);
    },
    isUp: ping,
    // Returns once the pause is in force.
    pause: (ms) => void execFileSync('redis-cli', ['-p', String(port), 'client', 'pause', String(ms), 'ALL']),
    stop() {
      try {
        execFileSync('redis-cli', ['-p', String(port), 'shutdown', 'nosave']);
      } catch {
        // redis-cli reports the dropped connection as an error; the server is down either way.
      }
    },
  };
}
