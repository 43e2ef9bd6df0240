// A catalog's snapshot and the file it is saved to: texts kept as UTF-8 bytes come back exactly
// (non-Latin-1 lab text included), through a restore, further edits, a second snapshot and a file.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCatalog } from '../src/search/catalog.ts';
import { isValidTable, packTexts, textAt } from '../src/search/text-table.ts';
import { diffAgainstRecords, readSnapshot, writeSnapshot } from '../src/store/lexical-snapshot.ts';
import type { Chunk, LabDocument } from '../src/types.ts';

const doc = (id: string, title: string): LabDocument => ({
  id,
  source: 'lab',
  path: `${id}.md`,
  kind: 'protocol',
  title,
  authors: ['Zhang'],
  access: 'public',
  contentHash: `h-${id}`,
});
const chunk = (docId: string, n: number, text: string, extra: Partial<Chunk> = {}): Chunk => ({ id: `${docId}#${n}`, docId, text, section: `Step ${n + 1}`, hash: `${docId}-${n}-${text.length}`, step: n + 1, ...extra });

// Two-byte and four-byte characters, as lab text has them (µ, °, Greek, an emoji in a wiki page).
const TEXTS = ['Incubate at 37 °C for 30 min with 5 µg/mL anti-β-actin.', 'Spin 2 min at 13 000 × g; keep the pellet 🧪.', 'plain ascii text'];

function sample() {
  const c = createCatalog();
  c.putDocument(doc('wb', 'Western blot'), TEXTS.map((t, i) => chunk('wb', i, t)));
  c.putDocument(doc('pcr', 'qPCR'), [chunk('pcr', 0, 'SYBR Green master mix, 40 cycles, annealing at 60 °C.', { page: 3 })]);
  return c;
}

describe('text table', () => {
  it('packs strings and texts of other tables, and gives each back exactly', () => {
    const a = packTexts(TEXTS);
    expect(isValidTable(a)).toBe(true);
    expect(TEXTS.map((_, i) => textAt(a, i))).toEqual(TEXTS);
    const b = packTexts([{ table: a, index: 1 }, 'new', { table: a, index: 0 }, '']);
    expect([0, 1, 2, 3].map((i) => textAt(b, i))).toEqual([TEXTS[1], 'new', TEXTS[0], '']);
    expect(() => textAt(b, 4)).toThrow(RangeError);
  });

  it('rejects ends that go backwards or do not cover the bytes', () => {
    const a = packTexts(['ab', 'cd']);
    expect(isValidTable({ bytes: a.bytes, ends: Uint32Array.from([3, 2]) })).toBe(false);
    expect(isValidTable({ bytes: a.bytes, ends: Uint32Array.from([2, 3]) })).toBe(false);
  });
});

describe('catalog snapshot', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-catsnap-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const stamp = { base: 'b1', indexVersion: 'v1', identity: 'id-1' };

  it('a restored catalog gives back the same chunks, passages and search results', () => {
    const original = sample();
    const restored = createCatalog(original.snapshot());
    for (const id of ['wb#0', 'wb#1', 'wb#2', 'pcr#0']) {
      expect(restored.chunk(id)).toEqual(original.chunk(id));
      expect(restored.passage(id, 1)).toEqual(original.passage(id, 1));
      expect(restored.searchText(id)).toBe(original.searchText(id));
    }
    expect(restored.chunkInfo('wb#1')).toEqual({ id: 'wb#1', docId: 'wb', section: 'Step 2', hash: original.chunk('wb#1')!.hash, step: 2 });
    expect(restored.lexicalSearch(['public'], 'anti-β-actin 37 °C', 3)).toEqual(original.lexicalSearch(['public'], 'anti-β-actin 37 °C', 3));

    // Edits after a restore mix texts held as bytes with new strings; a second snapshot keeps both.
    restored.putDocument(doc('cells', 'Cell culture'), [chunk('cells', 0, 'HEK293T split 1:10 in DMEM — twice a week.')]);
    restored.removeDocument('pcr');
    const again = createCatalog(restored.snapshot());
    expect(again.chunk('cells#0')?.text).toBe('HEK293T split 1:10 in DMEM — twice a week.');
    expect(again.chunk('wb#1')?.text).toBe(TEXTS[1]);
    expect(again.chunk('pcr#0')).toBeUndefined();
    expect(again.stats().chunks).toBe(4);
  });

  it('survives the file, and a file whose texts were damaged is refused', async () => {
    const file = path.join(dir, 'b1.lexical');
    await writeSnapshot(file, stamp, sample().snapshot());
    const read = await readSnapshot(file, stamp);
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    const back = createCatalog(read.snapshot);
    expect(TEXTS.map((_, i) => back.chunk(`wb#${i}`)?.text)).toEqual(TEXTS);

    expect(await readSnapshot(file, { ...stamp, identity: 'id-2' })).toEqual({ ok: false, reason: 'made for another index or other settings' });

    // One byte more in the texts frame (its length prefix too): the ends no longer cover it.
    const bytes = readFileSync(file);
    const at = bytes.indexOf(Buffer.from(TEXTS[0], 'utf8'));
    expect(at).toBeGreaterThan(4);
    const len = bytes.readUInt32LE(at - 4);
    const grown = Buffer.concat([bytes.subarray(0, at - 4), Buffer.alloc(4), bytes.subarray(at, at + len), Buffer.from('x'), bytes.subarray(at + len)]);
    grown.writeUInt32LE(len + 1, at - 4);
    writeFileSync(file, grown);
    const damaged = await readSnapshot(file, stamp);
    expect(damaged.ok).toBe(false);
    if (!damaged.ok) expect(damaged.reason).toMatch(/corrupt: texts/);

    // Cut short: refused, with no read left running on a closed file.
    writeFileSync(file, bytes.subarray(0, bytes.length - 10));
    const cut = await readSnapshot(file, stamp);
    expect(cut.ok).toBe(false);
  });

  it('a document in another group than its record is out of date, whatever its chunks', () => {
    const catalog = sample();
    const hash = (id: string) => catalog.chunkInfo(id)?.hash;
    const record = (id: string, access: string) => {
      const d = catalog.doc(id)!;
      return { id, access, chunkIds: d.chunkIds, chunkHashes: d.chunkIds.map((c) => hash(c)!) };
    };
    expect(diffAgainstRecords(catalog.docs(), hash, [record('wb', 'public'), record('pcr', 'public')])).toEqual({ stale: [], extra: [] });
    expect(diffAgainstRecords(catalog.docs(), hash, [record('wb', 'pi-only'), record('pcr', 'public')])).toEqual({ stale: ['wb'], extra: [] });
  });

  it('a restored catalog refuses chunks filed under another document or outside its group', () => {
    const snap = sample().snapshot();
    const wb = snap.docs.find((d) => d.id === 'wb')!;
    const pcr = snap.docs.find((d) => d.id === 'pcr')!;
    // pcr claims one of wb's chunks.
    expect(() => createCatalog({ ...snap, docs: [wb, { ...pcr, chunkIds: [...pcr.chunkIds, 'wb#0'] }] })).toThrow(RangeError);
    // A document whose group has no partition holding its chunks.
    expect(() => createCatalog({ ...snap, docs: [{ ...wb, access: 'pi-only' }, pcr] })).toThrow(RangeError);
  });
});
