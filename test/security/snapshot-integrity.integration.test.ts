// Issue 24, item 3 (second half): a restart verifies the bytes of its lexical snapshot before it
// answers from them. A chunk text edited inside the snapshot file (the records, their revision
// and Chroma untouched, so no record check can tell) must never be answered: the damaged
// snapshot is logged and the catalog rebuilt from Chroma.
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCatalog } from '../../src/search/catalog.ts';
import type { Running } from '../../src/serve.ts';
import { writeSnapshot } from '../../src/index/lexical-snapshot.ts';
import { captureLog } from '../helpers/log-capture.ts';
import { askText, snapshotLab, type SnapshotLab } from '../helpers/snapshot-lab.ts';

const QUESTION = 'Which buffer base do we use for the gel?';

describe('a lexical snapshot is verified before anything is answered from it', () => {
  let lab: SnapshotLab;
  const running: Running[] = [];
  beforeAll(() => {
    lab = snapshotLab();
    writeFileSync(
      path.join(lab.root, 'gel.md'),
      '---\ntitle: Gel buffer\n---\n\n# Gel buffer\n\nThe gel buffer base is BASE7, diluted tenfold before every run.\n',
    );
    writeFileSync(path.join(lab.root, 'pcr.md'), '---\ntitle: qPCR\n---\n\n# qPCR\n\nUse SYBR Green master mix and forty cycles.\n');
  });
  afterAll(async () => {
    for (const r of running) await r.close().catch(() => undefined);
    rmSync(lab.root, { recursive: true, force: true });
  });

  it('a chunk text edited inside the snapshot file is refused, logged, and rebuilt from Chroma', async () => {
    const first = await lab.serve();
    running.push(first);
    expect(await askText(first, QUESTION)).toContain('BASE7');
    await first.close();

    const file = lab.snapshotFile();
    const bytes = readFileSync(file);
    const at = bytes.indexOf('BASE7');
    expect(at).toBeGreaterThan(0);
    bytes.write('EVIL7', at);
    writeFileSync(file, bytes);

    const captured = captureLog('info');
    const second = await lab.serve(captured.log);
    running.push(second);
    const answer = await askText(second, QUESTION);
    expect(answer).not.toContain('EVIL7');
    expect(answer).toContain('BASE7');
    expect(second.app.lexical?.from).toBe('chroma');
    const warned = captured.lines.filter((l) => l.level === 40 && /lexical snapshot/.test(String(l.msg)));
    expect(warned.map((l) => String(l.reason ?? ''))).toEqual([expect.stringMatching(/checksum/)]);
    await second.close();
    // The rebuilt catalog was saved again, and that snapshot is used by the next start.
    const third = await lab.serve();
    running.push(third);
    expect(third.app.lexical?.from).toBe('snapshot');
    expect(await askText(third, QUESTION)).toContain('BASE7');
    await third.close();
  });

  it("a snapshot rewritten with labbot's own writer but without the index's key is refused, though it agrees with every record", async () => {
    // Someone who can write the data dir, and knows the format, but cannot read Redis: the text
    // is changed and the chunk's hash kept, so ids, hashes, groups and counts all agree.
    const bot = await lab.serve();
    running.push(bot);
    const forged = createCatalog(bot.app.catalog.snapshot());
    const gel = forged.doc('lab:gel.md')!;
    const chunks = gel.chunkIds.map((id) => {
      const c = forged.chunk(id)!;
      return { ...c, text: c.text.replace('BASE7', 'EVIL7') };
    });
    expect(chunks.some((c) => c.text.includes('EVIL7'))).toBe(true);
    forged.putDocument(gel, chunks);
    const stamp = { base: bot.app.base, indexVersion: bot.app.version, identity: await bot.app.records!.identity() };
    await bot.close();
    const file = lab.snapshotFile();
    await writeSnapshot(file, stamp, forged.snapshot(), randomBytes(32));
    rmSync(`${file}.checked`, { force: true });

    const captured = captureLog('info');
    const next = await lab.serve(captured.log);
    running.push(next);
    const answer = await askText(next, QUESTION);
    expect(answer).not.toContain('EVIL7');
    expect(answer).toContain('BASE7');
    expect(next.app.lexical?.from).toBe('chroma');
    // Refused for its seal, not for being made for another index.
    const warned = captured.lines.filter((l) => l.level === 40 && /lexical snapshot/.test(String(l.msg)));
    expect(warned.map((l) => String(l.reason ?? ''))).toEqual([expect.stringMatching(/checksum/)]);
    await next.close();
  });
});
