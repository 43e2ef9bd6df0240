// The configuration is the truth: a source removed from labbot.config.json leaves the index (its
// restricted text included) at the next start, worker start, sync or `labbot ingest`, with a log
// line and a dashboard note; a document whose group came from its source's `access` leaves the
// old group at once when that setting changes, and is indexed again in the new one. Documents
// ingested from a folder outside the config stay. Real serve, queue, Redis and Chroma.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { startServe, type Running } from '../src/serve.ts';
import { testEnv, uniqueCollection } from './helpers/app.ts';
import { captureLog } from './helpers/log-capture.ts';
import { waitFor } from './helpers/wait.ts';

const TOKEN = 'config-truth-admin-token-01';

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-truth-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return dir;
}

describe('the configuration is the truth', () => {
  const running: Running[] = [];
  afterEach(async () => {
    for (const r of running.splice(0).reverse()) await r.close();
  });

  const lab = folder({ 'bench.md': '# Bench\n\nThe bench rota word is LABROTA.\n' });
  const grants = folder({
    'renewal.md': '# Renewal\n\nThe renewal code word is GRANTCODE.\n',
    'budget.md': '# Budget\n\nThe budget line word is BUDGETLINE.\n',
  });
  const mixed = folder({
    'plain.md': '# Plain\n\nThe plain page word is PLAINPAGE.\n',
    'own.md': '---\naccess: pi-only\n---\n# Own\n\nThe own-group page word is OWNGROUP.\n',
  });

  async function serve(collection: string, sources: object[]): Promise<{ run: Running; logs: ReturnType<typeof captureLog> }> {
    const env = testEnv({
      collection,
      env: { LABBOT_PORT: '0', LABBOT_ADMIN_TOKEN: TOKEN },
      fileConfig: { sources, access: { default: 'public', channels: { CPI: ['pi-only'] } } },
    });
    const logs = captureLog();
    const run = await startServe(loadConfig(env), logs.log);
    running.push(run);
    return { run, logs };
  }
  const found = (r: Running, word: string, groups = ['public', 'pi-only']) => r.app.catalog.lexicalSearch(groups, word, 3).length > 0;

  it('a removed source leaves the index at the next start, logged and noted on the dashboard; CLI-only folders stay', async () => {
    const collection = uniqueCollection('truth');
    const first = await serve(collection, [
      { id: 'lab', type: 'folder', path: lab },
      { id: 'grants', type: 'folder', path: grants, access: 'pi-only' },
    ]);
    expect(found(first.run, 'GRANTCODE', ['pi-only'])).toBe(true);
    // A folder indexed by hand (`labbot ingest <folder>`), never part of the config.
    const adhoc = folder({ 'notes.md': '# Notes\n\nThe hand-ingested word is HANDNOTES.\n' });
    await first.run.app.ingest({ sourceId: 'adhoc', root: adhoc });
    await first.run.close();
    running.pop();

    const second = await serve(collection, [{ id: 'lab', type: 'folder', path: lab }]);
    const { app } = second.run;
    expect(found(second.run, 'GRANTCODE')).toBe(false);
    expect(found(second.run, 'BUDGETLINE')).toBe(false);
    expect(await app.records!.bySource('grants')).toEqual([]);
    expect(await app.store.count('pi-only')).toBe(0);
    expect(found(second.run, 'LABROTA')).toBe(true);
    expect(found(second.run, 'HANDNOTES')).toBe(true);
    expect(second.logs.find('source removed from the config').filter((l) => l.source === 'grants' && l.documents === 2)).toHaveLength(1);
    const page = await (
      await fetch(`${second.run.url}/admin`, { headers: { authorization: `Bearer ${TOKEN}`, accept: 'text/html' } })
    ).text();
    expect(page).toMatch(/Source &quot;grants&quot; is no longer in the config: its 2 documents left the index\./);
    const answer = await app.ask('What is the renewal code word?', { channel: 'CPI' });
    expect(answer.answer).not.toMatch(/GRANTCODE/);
  });

  it('`labbot ingest` and `labbot worker` started with the new config remove the source too', async () => {
    for (const command of [['ingest', '--json'], ['worker']]) {
      const collection = uniqueCollection('truth');
      const first = await serve(collection, [
        { id: 'lab', type: 'folder', path: lab },
        { id: 'grants', type: 'folder', path: grants, access: 'pi-only' },
      ]);
      expect((await first.run.app.records!.bySource('grants')).length).toBe(2);
      const env = testEnv({ collection, env: { LOG_LEVEL: 'info' }, fileConfig: { sources: [{ id: 'lab', type: 'folder', path: lab }] } });
      const child = spawn(process.execPath, [path.resolve('bin/labbot.js'), ...command], {
        env: { ...process.env, ...env },
        stdio: 'ignore',
      });
      try {
        await waitFor(
          async () => (await first.run.app.records!.bySource('grants')).length === 0,
          60_000,
          `${command[0]} removed the grants source`,
        );
        expect(await first.run.app.store.count('pi-only')).toBe(0);
        // Every running bot hears the removal and stops answering from it.
        await waitFor(async () => !found(first.run, 'GRANTCODE'), 15_000, 'the running bot dropped the removed documents');
      } finally {
        child.kill('SIGTERM');
      }
      await first.run.close();
      running.pop();
    }
  });

  it('a source whose configured access changes: its documents leave the old group before serve answers, and are indexed in the new one', async () => {
    const collection = uniqueCollection('truth');
    const first = await serve(collection, [{ id: 'mixed', type: 'folder', path: mixed }]);
    expect(found(first.run, 'PLAINPAGE', ['public'])).toBe(true);
    expect(found(first.run, 'OWNGROUP', ['pi-only'])).toBe(true);
    await first.run.close();
    running.pop();

    const second = await serve(collection, [{ id: 'mixed', type: 'folder', path: mixed, access: 'pi-only' }]);
    // Before the start-up sync re-indexes it, the page is not readable as public any more.
    expect(found(second.run, 'PLAINPAGE', ['public'])).toBe(false);
    expect(second.logs.find('the configured group of these documents changed').filter((l) => l.source === 'mixed')).toHaveLength(1);
    const rec = await waitFor(
      async () => {
        const r = await second.run.app.records!.atPath('mixed', 'plain.md');
        return r?.access === 'pi-only' ? r : undefined;
      },
      30_000,
      'plain.md indexed in pi-only',
    );
    expect(rec.accessFrom).toBe('source config');
    await waitFor(async () => found(second.run, 'PLAINPAGE', ['pi-only']), 15_000, 'catalog has plain.md in pi-only');
    expect(found(second.run, 'PLAINPAGE', ['public'])).toBe(false);
    // A page whose own front matter decides is untouched.
    expect((await second.run.app.records!.atPath('mixed', 'own.md'))?.access).toBe('pi-only');
  });
});
