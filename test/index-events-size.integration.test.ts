// Index events carry ids, not chunk text: a 30 MB Markdown page (under the 100 MB file limit)
// publishes small events, and another bot process reads the page's chunks from Chroma itself.
// Real Chroma, real Redis pub/sub; the largest published event is measured.
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openLabbot, type Labbot } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { eventsChannel } from '../src/index/events.ts';
import { closeRedis, connectRedis } from '../src/store/redis.ts';
import { testEnv, uniqueCollection } from './helpers/app.ts';
import { waitFor } from './helpers/wait.ts';
import { TEST_REDIS_URL } from './helpers/redis-namespaces.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
});

async function open(env: Record<string, string>): Promise<Labbot> {
  const redis = connectRedis(TEST_REDIS_URL);
  const app = await openLabbot(loadConfig(env), createLogger('silent'), { redis });
  cleanups.push(async () => {
    await app.close();
    await closeRedis(redis);
  });
  return app;
}

/** About `mb` megabytes of Markdown: many sections of varied prose, a unique word in the last one. */
function bigMarkdown(mb: number): string {
  const parts: string[] = ['# Lab notebook, all years\n'];
  let size = 0;
  for (let i = 0; size < mb * 1024 * 1024; i++) {
    const para =
      `Entry ${i}: sample batch ${i % 97} was thawed, spun at ${1000 + (i % 13) * 500} g and stored in box ${i % 211}; notes by member ${i % 17}. `.repeat(
        60,
      );
    const s = `\n## Entry ${i}\n\n${para}\n`;
    parts.push(s);
    size += s.length;
  }
  parts.push('\n## Final entry\n\nThe very last sample went to rack ZEBRAFINCH9 in the cold room.\n');
  return parts.join('');
}

describe('index events', () => {
  it('a 30 MB Markdown page: every event stays small, and another bot serves the page from Chroma', async () => {
    const folder = mkdtempSync(path.join(os.tmpdir(), 'labbot-bigpage-'));
    const file = path.join(folder, 'notebook.md');
    writeFileSync(file, bigMarkdown(30));
    expect(statSync(file).size).toBeGreaterThan(30 * 1024 * 1024);
    const env = testEnv({
      collection: uniqueCollection('events'),
      fileConfig: { sources: [{ id: 'wiki', type: 'folder', path: folder, kind: 'wiki' }], chunking: { size: 8000, overlap: 0 } },
    });
    const writer = await open(env);
    const bot = await open(env);

    const sub = connectRedis(TEST_REDIS_URL);
    cleanups.push(() => closeRedis(sub));
    const sizes: number[] = [];
    sub.on('messageBuffer', (_channel: Buffer, message: Buffer) => sizes.push(message.length));
    await sub.subscribe(eventsChannel(writer.ns));

    const s = await writer.ingestSource(writer.config.sources[0]);
    expect(s.failed).toEqual([]);
    expect(s.documents.indexed).toBe(1);
    const chunks = writer.catalog.stats().chunks;
    expect(chunks).toBeGreaterThan(1000);

    await waitFor(async () => bot.catalog.stats().chunks === chunks, 60_000, 'the other bot loaded the page');
    await waitFor(async () => sizes.length > 0, 5000, 'an event');
    const largest = Math.max(...sizes);
    console.log(`largest index event for a ${(statSync(file).size / 1024 / 1024).toFixed(1)} MB page (${chunks} chunks): ${largest} bytes`);
    expect(largest).toBeLessThan(1024);
    const r = await bot.retrieve('Which rack did the very last sample go to?', ['public'], 3);
    expect(r.passages.some((p) => p.text.includes('ZEBRAFINCH9'))).toBe(true);
  }, 240_000);
});
