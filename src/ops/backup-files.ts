// The files of a backup directory: gzipped JSON lines written and read as streams (a collection
// of 100k chunks never sits in memory whole), plain copies, each with its size and SHA-256, and
// the check of a file against what the manifest says. Backups hold every document's text and the
// config: files are created 0600 in a 0700 directory, never over an existing file.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync } from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import type { FileEntry } from './backup-format.ts';

/** Counts and hashes what passes through. */
function measuring(onBytes?: (n: number) => void): { stream: Transform; result: () => FileEntry } {
  const hash = createHash('sha256');
  let bytes = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      hash.update(chunk);
      bytes += chunk.length;
      onBytes?.(chunk.length);
      cb(null, chunk);
    },
  });
  return { stream, result: () => ({ bytes, sha256: hash.digest('hex') }) };
}

function target(file: string) {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  return createWriteStream(file, { flags: 'wx', mode: 0o600 });
}

async function* asText(lines: AsyncIterable<unknown>): AsyncIterable<string> {
  for await (const l of lines) yield `${JSON.stringify(l)}\n`;
}

/** Writes each value as one JSON line, gzipped. */
export async function writeJsonLines(file: string, lines: AsyncIterable<unknown>): Promise<FileEntry> {
  const m = measuring();
  await pipeline(Readable.from(asText(lines)), createGzip(), m.stream, target(file));
  return m.result();
}

/** The values of a gzipped JSON-lines file, in order. */
export async function* readJsonLines(file: string): AsyncIterable<unknown> {
  const gunzip = createGunzip();
  let failed: Error | undefined;
  const done = pipeline(createReadStream(file), gunzip).catch((err: Error) => {
    failed = err;
  });
  const rl = readline.createInterface({ input: gunzip, crlfDelay: Infinity });
  let n = 0;
  for await (const line of rl) {
    n += 1;
    if (!line) continue;
    try {
      yield JSON.parse(line) as unknown;
    } catch {
      throw new Error(`${file}: line ${n} is not JSON`);
    }
  }
  await done;
  if (failed) throw new Error(`${file}: ${failed.message}`);
}

/** Copies a file (read once, from one open descriptor: a file replaced meanwhile by rename is read whole, old or new). */
export async function copyMeasured(from: string, to: string, onBytes?: (n: number) => void): Promise<FileEntry> {
  const m = measuring(onBytes);
  await pipeline(createReadStream(from), m.stream, target(to));
  return m.result();
}

/** A file's size and SHA-256. */
export async function measureFile(file: string, onBytes?: (n: number) => void): Promise<FileEntry> {
  const m = measuring(onBytes);
  await pipeline(createReadStream(file), m.stream, async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) void chunk;
  });
  return m.result();
}
