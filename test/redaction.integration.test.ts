// A REDIS_URL password never reaches a log line or a CLI error, whichever road it takes.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { createLogger, redactUrls } from '../src/log.ts';
import { startServe } from '../src/serve.ts';
import { freePort } from '../src/store/chroma-server.ts';
import { testEnv } from './helpers/app.ts';

const SECRET = 'hunter2-s3cret';
const BIN = path.resolve('bin/labbot.js');

function capture(): { stream: Writable; text: () => string } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { stream, text: () => lines.join('') };
}

describe('URL passwords in logs and errors', () => {
  it('strips userinfo from URLs in any text', () => {
    expect(redactUrls('redis://:pw@127.0.0.1:6379/2')).toBe('redis://127.0.0.1:6379/2');
    expect(redactUrls('at rediss://user:p@ss@host:1 and https://tok@git.example/x.git')).toBe(
      'at rediss://host:1 and https://git.example/x.git',
    );
    expect(redactUrls('{"url":"redis://u:pw@h:1"}')).toBe('{"url":"redis://h:1"}');
    expect(redactUrls('mail a@b.c, https://example.com/a@b, git@github.com:x/y')).toBe(
      'mail a@b.c, https://example.com/a@b, git@github.com:x/y',
    );
  });

  it('serve logs an unreachable Redis without its password, and so does any other log line', async () => {
    const port = await freePort();
    const url = `redis://labbot:${SECRET}@127.0.0.1:${port}`;
    const out = capture();
    const log = createLogger('info', 'labbot', out.stream);
    const running = await startServe(
      loadConfig(testEnv({ env: { REDIS_URL: url, LABBOT_PORT: '0', LABBOT_WORKER: 'off' }, fileConfig: { sources: [] } })),
      log,
    );
    try {
      log.error({ err: new Error(`connect failed for ${url}`), config: { redis: url } }, `giving up on ${url}`);
      await new Promise((r) => setImmediate(r));
      const text = out.text();
      expect(text).toContain('Redis is not reachable');
      expect(text).toContain(`redis://127.0.0.1:${port}`);
      expect(text).toContain('giving up on');
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain('labbot:hunter2');
    } finally {
      await running.close();
    }
  });

  it('CLI errors name the Redis it could not reach without the password', async () => {
    const port = await freePort();
    const env = {
      ...process.env,
      ...testEnv({ env: { REDIS_URL: `redis://labbot:${SECRET}@127.0.0.1:${port}`, LOG_LEVEL: 'info' }, fileConfig: { sources: [] } }),
    };
    for (const args of [['worker'], ['reindex', '--no-wait'], ['status']]) {
      const r = spawnSync(process.execPath, [BIN, ...args], { env, encoding: 'utf8', timeout: 120_000 });
      expect(r.stdout + r.stderr, args.join(' ')).not.toContain(SECRET);
      if (args[0] !== 'status') {
        expect(r.status, args.join(' ')).toBe(2);
        expect(r.stderr).toContain(`nothing answers at redis://127.0.0.1:${port}`);
      }
    }
  });
});
