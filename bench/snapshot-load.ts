// Micro-benchmark of the lexical snapshot at a realistic scale: what a save and a restart's load
// cost, and how much of that is the seal (every frame's HMAC-SHA256, src/index/snapshot-seal.ts).
//   npx tsx bench/snapshot-load.ts [chunks=100000] [runs=5]
// The catalog: documents of 10 chunks (~900 characters of PubMedQA sentences each), one in ten
// documents pi-only. Per run: the save (wall time, and the longest stretch the event loop was
// held), the load (readSnapshot + createCatalog, as a restart does it), the records check of a
// full load (diffAgainstRecords over every record), and the seal alone (the tags of every
// frame computed over the file's bytes, which is what a load verifies). Medians over runs, with
// the process's CPU time beside wall time (on a shared machine, wall time is mostly waiting).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createCatalog } from '../src/search/catalog.ts';
import { diffAgainstRecords, MAGIC, readSnapshot, writeSnapshot } from '../src/index/lexical-snapshot.ts';
import { FIRST_TAG, frameTag, TAG_BYTES } from '../src/index/snapshot-seal.ts';
import type { Chunk, LabDocument } from '../src/types.ts';
import { loadSentences } from './corpus.ts';
import { mulberry32 } from './prng.ts';

const N = Number(process.argv[2] ?? 100_000);
const RUNS = Math.max(1, Number(process.argv[3] ?? 5));
const PER_DOC = 10;

const sentences = loadSentences(path.resolve('datasets/pubmedqa'));
const rnd = mulberry32(7);
const synth = (): string => {
  const parts: string[] = [];
  for (let len = 0; len < 850; ) {
    const s = sentences[Math.floor(rnd() * sentences.length)];
    parts.push(s);
    len += s.length + 1;
  }
  return parts.join(' ');
};

const catalog = createCatalog();
const records: { id: string; access: string; chunkIds: string[]; chunkHashes: string[] }[] = [];
for (let d = 0; d * PER_DOC < N; d++) {
  const id = `lab:doc-${d}.md`;
  const access = d % 10 === 9 ? 'pi-only' : 'public';
  const doc: LabDocument = {
    id,
    source: 'lab',
    path: `doc-${d}.md`,
    kind: 'paper',
    title: `Paper ${d}`,
    authors: [],
    access,
    contentHash: `c${d}`,
  };
  const chunks: Chunk[] = Array.from({ length: Math.min(PER_DOC, N - d * PER_DOC) }, (_, i) => ({
    id: `${id}#${i}`,
    docId: id,
    text: synth(),
    section: '',
    hash: `h${d}-${i}`,
  }));
  catalog.putDocument(doc, chunks);
  records.push({ id, access, chunkIds: chunks.map((c) => c.id), chunkHashes: chunks.map((c) => c.hash) });
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-snapbench-'));
const file = path.join(dir, 'bench.lexical');
const stamp = { base: 'bench', indexVersion: 'v', identity: 'id' };
const key = randomBytes(32);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fig = (xs: number[]) => `${median(xs).toFixed(0)} ms (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`;

const save: number[] = [];
const saveBlock: number[] = [];
const load: number[] = [];
const loadCpu: number[] = [];
const check: number[] = [];
const seal: number[] = [];
const sealCpu: number[] = [];
let bytes = 0;
for (let r = 0; r < RUNS; r++) {
  const h = monitorEventLoopDelay({ resolution: 5 });
  let t = performance.now();
  h.enable();
  const info = await writeSnapshot(file, stamp, catalog.snapshot(), key);
  h.disable();
  save.push(performance.now() - t);
  saveBlock.push(h.max / 1e6);
  bytes = info.bytes;

  t = performance.now();
  const cpu0 = process.cpuUsage();
  const read = await readSnapshot(file, stamp, key);
  if (!read.ok) throw new Error(read.reason);
  const loaded = createCatalog(read.snapshot);
  load.push(performance.now() - t);
  const cpu = process.cpuUsage(cpu0);
  loadCpu.push((cpu.user + cpu.system) / 1000);

  t = performance.now();
  const diff = diffAgainstRecords(loaded.docs(), (id) => loaded.chunkInfo(id)?.hash, records);
  check.push(performance.now() - t);
  if (diff.stale.length + diff.extra.length) throw new Error('the loaded catalog differs from the records');

  const all = readFileSync(file);
  t = performance.now();
  const sealCpu0 = process.cpuUsage();
  let prev = FIRST_TAG;
  for (let at = MAGIC.length, i = 0; at < all.length; i++) {
    const n = all.readUInt32LE(at);
    prev = await frameTag(key, i, prev, all.subarray(at + 4 + TAG_BYTES, at + 4 + TAG_BYTES + n));
    at += 4 + TAG_BYTES + n;
  }
  seal.push(performance.now() - t);
  const sc = process.cpuUsage(sealCpu0);
  sealCpu.push((sc.user + sc.system) / 1000);
}
rmSync(dir, { recursive: true, force: true });

console.log(`${N} chunks, ${records.length} documents, snapshot ${(bytes / 1048576).toFixed(0)} MB, ${RUNS} runs (median, min–max)`);
console.log(`save:                 ${fig(save)}; longest event-loop stall ${fig(saveBlock)}`);
console.log(`load (read+restore):  ${fig(load)}; CPU time ${fig(loadCpu)}`);
console.log(`records check (full): ${fig(check)}`);
console.log(`seal alone (verify):  ${fig(seal)}; CPU time ${fig(sealCpu)}`);
