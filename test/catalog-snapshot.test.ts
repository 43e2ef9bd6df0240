// A catalog's snapshot and the file it is saved to: texts kept as UTF-8 bytes come back exactly
// (non-Latin-1 lab text included), through a restore, further edits, a second snapshot and a file.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCatalog } from '../src/search/catalog.ts';
import { isValidTable, packTexts, textAt } from '../src/search/text-table.ts';
import {
  diffAgainstRecords,
  MAGIC,
  noteRecordsChecked,
  readSnapshot,
  recordsCheckedAt,
  writeSnapshot,
} from '../src/index/lexical-snapshot.ts';
import { FIRST_TAG, frameTag, TAG_BYTES } from '../src/index/snapshot-seal.ts';
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
const chunk = (docId: string, n: number, text: string, extra: Partial<Chunk> = {}): Chunk => ({
  id: `${docId}#${n}`,
  docId,
  text,
  section: `Step ${n + 1}`,
  hash: `${docId}-${n}-${text.length}`,
  step: n + 1,
  ...extra,
});

// Two-byte and four-byte characters, as lab text has them (µ, °, Greek, an emoji in a wiki page).
const TEXTS = [
  'Incubate at 37 °C for 30 min with 5 µg/mL anti-β-actin.',
  'Spin 2 min at 13 000 × g; keep the pellet 🧪.',
  'plain ascii text',
];

function sample() {
  const c = createCatalog();
  c.putDocument(
    doc('wb', 'Western blot'),
    TEXTS.map((t, i) => chunk('wb', i, t)),
  );
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
  const key = randomBytes(32);

  it('a restored catalog gives back the same chunks, passages and search results', () => {
    const original = sample();
    const restored = createCatalog(original.snapshot());
    for (const id of ['wb#0', 'wb#1', 'wb#2', 'pcr#0']) {
      expect(restored.chunk(id)).toEqual(original.chunk(id));
      expect(restored.passage(id, 1)).toEqual(original.passage(id, 1));
      expect(restored.searchText(id)).toBe(original.searchText(id));
    }
    expect(restored.chunkInfo('wb#1')).toEqual({ id: 'wb#1', docId: 'wb', section: 'Step 2', hash: original.chunk('wb#1')!.hash, step: 2 });
    expect(restored.lexicalSearch(['public'], 'anti-β-actin 37 °C', 3)).toEqual(
      original.lexicalSearch(['public'], 'anti-β-actin 37 °C', 3),
    );

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
    await writeSnapshot(file, stamp, sample().snapshot(), key);
    const read = await readSnapshot(file, stamp, key);
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    const back = createCatalog(read.snapshot);
    expect(TEXTS.map((_, i) => back.chunk(`wb#${i}`)?.text)).toEqual(TEXTS);

    expect(await readSnapshot(file, { ...stamp, identity: 'id-2' }, key)).toEqual({
      ok: false,
      reason: 'made for another index or other settings',
    });

    // One byte more in the texts frame (its length prefix too): its tag no longer verifies.
    const bytes = readFileSync(file);
    const at = bytes.indexOf(Buffer.from(TEXTS[0], 'utf8'));
    const prefix = 4 + TAG_BYTES;
    expect(at).toBeGreaterThan(prefix);
    const len = bytes.readUInt32LE(at - prefix);
    const grown = Buffer.concat([bytes.subarray(0, at), bytes.subarray(at, at + len), Buffer.from('x'), bytes.subarray(at + len)]);
    grown.writeUInt32LE(len + 1, at - prefix);
    writeFileSync(file, grown);
    const damaged = await readSnapshot(file, stamp, key);
    expect(damaged).toMatchObject({ ok: false, damaged: true, reason: expect.stringMatching(/^corrupt: frame \d+ fails its checksum/) });

    // Cut short: refused, with no read left running on a closed file.
    writeFileSync(file, bytes.subarray(0, bytes.length - 10));
    const cut = await readSnapshot(file, stamp, key);
    expect(cut).toMatchObject({ ok: false, damaged: true });
  });

  it('refuses a file with any byte changed, sealed with another key, with frames swapped, or with its header re-checksummed', async () => {
    const file = path.join(dir, 'b2.lexical');
    await writeSnapshot(file, stamp, sample().snapshot(), key);
    const bytes = readFileSync(file);
    expect((await readSnapshot(file, stamp, key)).ok).toBe(true);
    // Every byte of the file matters, length prefixes and tags included (a flip in a length
    // may read as "truncated" rather than as a bad tag: refused either way).
    for (let at = 0; at < bytes.length; at++) {
      const flipped = Buffer.from(bytes);
      flipped[at] ^= 0x20;
      writeFileSync(file, flipped);
      const read = await readSnapshot(file, stamp, key);
      expect(read.ok, `byte ${at} of ${bytes.length}`).toBe(false);
    }
    // A faithful copy of the same catalog, written with another index's key.
    const other = path.join(dir, 'b3.lexical');
    await writeSnapshot(other, stamp, sample().snapshot(), randomBytes(32));
    expect(await readSnapshot(other, stamp, key)).toMatchObject({ ok: false, damaged: true, reason: expect.stringMatching(/checksum/) });
    // Two whole frames (prefix, tag and body) swapped: each tag chains to the frame before it.
    const frames: Buffer[] = [];
    for (let at = MAGIC.length; at < bytes.length; ) {
      const end = at + 4 + TAG_BYTES + bytes.readUInt32LE(at);
      frames.push(bytes.subarray(at, end));
      at = end;
    }
    expect(frames.length).toBeGreaterThan(4);
    writeFileSync(file, Buffer.concat([MAGIC, frames[0], frames[2], frames[1], ...frames.slice(3)]));
    expect(await readSnapshot(file, stamp, key)).toMatchObject({ ok: false, damaged: true });
    // The header alone edited (a group dropped from its list) with its checksum made again: the
    // next frame's keyed tag covers the header's.
    expect(frames[0].includes('public')).toBe(true);
    const header = Buffer.from(frames[0]);
    header.write('PUBLIC', header.indexOf('public'));
    (await frameTag(key, 0, FIRST_TAG, header.subarray(4 + TAG_BYTES))).copy(header, 4);
    writeFileSync(file, Buffer.concat([MAGIC, header, ...frames.slice(1)]));
    expect(await readSnapshot(file, stamp, key)).toMatchObject({
      ok: false,
      damaged: true,
      reason: expect.stringMatching(/frame 1 fails its checksum/),
    });
  });

  it('a snapshot with frames of several MB (hashed in slices) reads back, and is refused with one byte changed', async () => {
    // ~12 MB of chunk texts: a texts frame hashed in several slices, between turns of the event loop.
    const big = createCatalog();
    const filler = 'Centrifuge the lysate at 4 °C and keep the supernatant on ice; ';
    for (let d = 0; d < 40; d++) {
      big.putDocument(
        doc(`big${d}`, `Big ${d}`),
        Array.from({ length: 50 }, (_, i) => chunk(`big${d}`, i, `${d}-${i} ${filler.repeat(95)}`)),
      );
    }
    const file = path.join(dir, 'big.lexical');
    const info = await writeSnapshot(file, stamp, big.snapshot(), key);
    expect(info.bytes).toBeGreaterThan(10 << 20);
    const read = await readSnapshot(file, stamp, key);
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    const back = createCatalog(read.snapshot);
    expect(back.chunk('big39#49')?.text).toBe(big.chunk('big39#49')?.text);
    expect(back.lexicalSearch(['public'], 'lysate supernatant', 3)).toEqual(big.lexicalSearch(['public'], 'lysate supernatant', 3));

    const bytes = readFileSync(file);
    const at = bytes.lastIndexOf('supernatant');
    bytes.write('SUPERNATANT', at);
    writeFileSync(file, bytes);
    expect(await readSnapshot(file, stamp, key)).toMatchObject({
      ok: false,
      damaged: true,
      reason: expect.stringMatching(/fails its checksum/),
    });
    // Written with another key.
    await writeSnapshot(file, stamp, big.snapshot(), randomBytes(32));
    expect(await readSnapshot(file, stamp, key)).toMatchObject({
      ok: false,
      damaged: true,
      reason: expect.stringMatching(/frame 1 fails its checksum/),
    });
  });

  it('tells a snapshot of an older format (no seal) from a damaged one', async () => {
    const file = path.join(dir, 'b5.lexical');
    await writeSnapshot(file, stamp, sample().snapshot(), key);
    // Format 3 was frames of [length][body] from the first byte, the header first.
    const bytes = readFileSync(file);
    const len = bytes.readUInt32LE(MAGIC.length);
    const body = bytes.subarray(MAGIC.length + 4 + TAG_BYTES, MAGIC.length + 4 + TAG_BYTES + len);
    writeFileSync(file, Buffer.concat([bytes.subarray(MAGIC.length, MAGIC.length + 4), body]));
    expect(await readSnapshot(file, stamp, key)).toEqual({ ok: false, reason: 'not a snapshot of this format' });
    // Made for another index: said as such (its header is checked for damage, then read).
    await writeSnapshot(file, { ...stamp, base: 'other' }, sample().snapshot(), randomBytes(32));
    expect(await readSnapshot(file, stamp, key)).toEqual({ ok: false, reason: 'made for another index or other settings' });
  });

  it('believes a "checked" note only for the snapshot it names, sealed with the same key', async () => {
    const file = path.join(dir, 'b4.lexical');
    const info = await writeSnapshot(file, stamp, sample().snapshot(), key);
    noteRecordsChecked(file, info, 'rev-1', key);
    expect(recordsCheckedAt(file, info, key)).toBe('rev-1');
    expect(recordsCheckedAt(file, info, randomBytes(32))).toBeUndefined();
    const again = await writeSnapshot(file, stamp, sample().snapshot(), key);
    expect(recordsCheckedAt(file, again, key)).toBeUndefined();
    // Edited to name another revision: its tag was made for rev-1.
    const note = JSON.parse(readFileSync(`${file}.checked`, 'utf8')) as Record<string, string>;
    writeFileSync(`${file}.checked`, JSON.stringify({ ...note, recordsRevision: 'rev-2' }));
    expect(recordsCheckedAt(file, info, key)).toBeUndefined();
  });

  it('a document in another group than its record is out of date, whatever its chunks', () => {
    const catalog = sample();
    const hash = (id: string) => catalog.chunkInfo(id)?.hash;
    const record = (id: string, access: string) => {
      const d = catalog.doc(id)!;
      return { id, access, chunkIds: d.chunkIds, chunkHashes: d.chunkIds.map((c) => hash(c)!) };
    };
    expect(diffAgainstRecords(catalog.docs(), hash, [record('wb', 'public'), record('pcr', 'public')])).toEqual({ stale: [], extra: [] });
    expect(diffAgainstRecords(catalog.docs(), hash, [record('wb', 'pi-only'), record('pcr', 'public')])).toEqual({
      stale: ['wb'],
      extra: [],
    });
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
