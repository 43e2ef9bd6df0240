// Issue 24, item 3 (first half): a restart's lexical snapshot must agree with the records on each
// document's access group, not only on chunk ids and text hashes. Two documents swap their
// `access:` lines (same text, same chunk counts, so Chroma's per-group counts match) while serve
// is down and a queue worker re-syncs; the restarted serve must answer from the new groups.
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Running } from '../../src/serve.ts';
import { askText, snapshotLab, type SnapshotLab } from '../helpers/snapshot-lab.ts';

const page = (name: string, access: string, code: string, stocks: string) =>
  `---\ntitle: ${name} freezer\naccess: ${access}\n---\n\n# ${name} freezer\n\nThe ${name.toLowerCase()} ` +
  `freezer door code is ${code}; the ${name.toLowerCase()} freezer holds ` +
  `the ${stocks} stocks.\n`;
const ALPHA_Q = 'What is the alpha freezer door code?';
const BRAVO_Q = 'What is the bravo freezer door code?';

describe('the lexical snapshot keeps every document in the access group the records give it', () => {
  let lab: SnapshotLab;
  const running: Running[] = [];
  const serve = async () => {
    const r = await lab.serve();
    running.push(r);
    return r;
  };
  beforeAll(() => {
    lab = snapshotLab();
    writeFileSync(path.join(lab.root, 'alpha.md'), page('Alpha', 'public', 'ALPHA7QX', 'antibody'));
    writeFileSync(path.join(lab.root, 'bravo.md'), page('Bravo', 'pi-only', 'BRAVO7QX', 'plasmid'));
  });
  afterAll(async () => {
    for (const r of running) await r.close().catch(() => undefined);
    rmSync(lab.root, { recursive: true, force: true });
  });

  it('a document made pi-only while serve was down is not answered publicly after a restart from its snapshot', async () => {
    const first = await serve();
    expect(await askText(first, ALPHA_Q)).toContain('ALPHA7QX');
    expect(await askText(first, BRAVO_Q)).not.toContain('BRAVO7QX');
    await first.close();
    const snapshot = lab.snapshotFile();
    // Kept for the next test: a genuine snapshot from before the change.
    copyFileSync(snapshot, `${snapshot}.before`);
    copyFileSync(`${snapshot}.checked`, `${snapshot}.checked.before`);

    // Swap the two access lines, text unchanged; a worker (no lexical index) re-syncs.
    const swap = (f: string, from: string, to: string) =>
      writeFileSync(path.join(lab.root, f), readFileSync(path.join(lab.root, f), 'utf8').replace(`access: ${from}`, `access: ${to}`));
    swap('alpha.md', 'public', 'pi-only');
    swap('bravo.md', 'pi-only', 'public');
    await lab.resyncThroughWorker();

    const second = await serve();
    // The snapshot was used (patched), not thrown away: this is the path under test.
    expect(second.app.lexical?.from).toMatch(/^snapshot/);
    expect(second.app.lexical?.recordsCheck).toBe('full');
    expect(await askText(second, ALPHA_Q)).not.toContain('ALPHA7QX');
    expect(await askText(second, BRAVO_Q)).toContain('BRAVO7QX');
    expect(await askText(second, ALPHA_Q, 'CPI')).toContain('ALPHA7QX');
    await second.close();

    // The next start trusts the snapshot saved after that check (records unchanged since).
    const third = await serve();
    expect(third.app.lexical?.from).toBe('snapshot');
    expect(third.app.lexical?.recordsCheck).toBe('revision');
    expect(await askText(third, ALPHA_Q)).not.toContain('ALPHA7QX');
    expect(await askText(third, BRAVO_Q)).toContain('BRAVO7QX');
    await third.close();
  });

  it('an older snapshot put back with its note moved to the current records revision is checked in full', async () => {
    // Someone with the data dir restores the snapshot from before the change and edits its note
    // ("equal to the records at revision R") to name the records' current revision.
    const snapshot = lab.snapshotFile();
    const current = JSON.parse(readFileSync(`${snapshot}.checked`, 'utf8')) as { recordsRevision: string };
    copyFileSync(`${snapshot}.before`, snapshot);
    const old = JSON.parse(readFileSync(`${snapshot}.checked.before`, 'utf8')) as Record<string, unknown>;
    writeFileSync(`${snapshot}.checked`, JSON.stringify({ ...old, recordsRevision: current.recordsRevision }));

    const bot = await serve();
    expect(bot.app.lexical?.recordsCheck).not.toBe('revision');
    expect(await askText(bot, ALPHA_Q)).not.toContain('ALPHA7QX');
    expect(await askText(bot, BRAVO_Q)).toContain('BRAVO7QX');
    await bot.close();
  });
});
