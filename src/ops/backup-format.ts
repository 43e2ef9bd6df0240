// What a backup directory holds and how its parts are written: the manifest (read and checked on
// restore), which Redis keys belong in a backup, and vectors as little-endian float32. Pure.
import { z } from 'zod';

export const MANIFEST_FILE = 'manifest.json';
export const REDIS_FILE = 'redis.jsonl.gz';
export const CONFIG_FILE = 'labbot.config.json';
export const FORMAT = 'labbot-backup';
export const FORMAT_VERSION = 1;

const fileEntry = z.object({ bytes: z.number().int().min(0), sha256: z.string().regex(/^[0-9a-f]{64}$/) });
// Paths inside the backup directory: relative, no "..", so a manifest cannot point a restore elsewhere.
const relPath = z.string().regex(/^(?!\/)(?!.*(^|\/)\.\.(\/|$))[A-Za-z0-9._/-]+$/, 'a backup file path is relative, without ".."');

export const manifestSchema = z.object({
  format: z.literal(FORMAT),
  formatVersion: z.literal(FORMAT_VERSION),
  createdAt: z.string(),
  /** LABBOT_COLLECTION of the installation: its Redis namespace and its collections' names derive from it. */
  collection: z.string(),
  /** The live physical index (Chroma collections `<base>--<group>`, records `…:idx:<base>:…`). */
  base: z.string(),
  redis: z.object({
    file: relPath,
    keys: z.number().int().min(0),
    /** RESTORE accepts DUMP payloads of its own Redis version or older. */
    version: z.string(),
    /** The backup paused the indexing queue: the copied queue state says paused, and restore resumes it. */
    queuePausedByBackup: z.boolean(),
  }),
  chroma: z.object({
    collections: z.array(z.object({ name: z.string(), group: z.string(), records: z.number().int().min(0), file: relPath })),
  }),
  /** The serving process's lexical snapshot, if it had one (a cache: checked against the records when loaded). */
  snapshot: relPath.optional(),
  config: relPath.optional(),
  /** Every file above, with its size and SHA-256: restore reads nothing that does not match. */
  files: z.record(relPath, fileEntry),
});

export type Manifest = z.infer<typeof manifestSchema>;
export type FileEntry = z.infer<typeof fileEntry>;

/** A collection file's name inside the backup. */
export const collectionFile = (name: string) => `chroma/${name}.jsonl.gz`;

/**
 * Whether a key under the namespace `ns` belongs in a backup of the live index `base`. Left out:
 * what describes running processes (presence, the repair lock, BullMQ job locks, a backup's own
 * lease), and the records of other physical indexes, whose collections are not copied (a rebuild
 * switched away from them; the list of retired ones goes too).
 */
export function keptInBackup(key: string, ns: string, base: string): boolean {
  if (!key.startsWith(`${ns}:`)) return false;
  const rest = key.slice(ns.length + 1);
  if (rest === 'processes' || rest === 'retired' || rest.startsWith('backup:')) return false;
  if (rest.startsWith('idx:')) {
    const [keyBase, ...tail] = rest.slice('idx:'.length).split(':');
    return keyBase === base && tail.join(':') !== 'repair';
  }
  if (rest.startsWith('bull:') && rest.endsWith(':lock')) return false;
  return true;
}

/** One Redis key in the backup: its name and DUMP payload (base64) and when it expires (ms since epoch; 0: never). */
export const keyLine = z.object({ k: z.string(), x: z.number().int().min(0), v: z.string() });
export type KeyLine = z.infer<typeof keyLine>;

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const metadataValue = z.union([scalar, z.array(z.string()), z.array(z.number()), z.array(z.boolean())]);

/** The first line of a collection file. */
export const collectionHeader = z.object({
  name: z.string(),
  metadata: z.record(z.string(), metadataValue).nullable(),
  hnsw: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
  records: z.number().int().min(0),
});
export type CollectionHeader = z.infer<typeof collectionHeader>;

/** The following lines: records with their vectors. */
export const recordBatch = z.object({
  ids: z.array(z.string()),
  dim: z.number().int().min(1),
  /** Every record's vector, float32 little-endian, concatenated, base64. */
  vectors: z.string(),
  metadatas: z.array(z.record(z.string(), metadataValue).nullable()),
  documents: z.array(z.string().nullable()),
});
export type RecordBatch = z.infer<typeof recordBatch>;

/** Vectors -> base64 float32 LE. Chroma keeps float32, so nothing is lost. */
export function encodeVectors(rows: ArrayLike<number>[]): { dim: number; vectors: string } {
  const dim = rows[0]?.length ?? 0;
  const buf = Buffer.alloc(rows.length * dim * 4);
  rows.forEach((row, i) => {
    if (row.length !== dim) throw new Error(`vectors of different lengths in one batch (${dim} and ${row.length})`);
    for (let j = 0; j < dim; j++) buf.writeFloatLE(row[j], (i * dim + j) * 4);
  });
  return { dim, vectors: buf.toString('base64') };
}

export function decodeVectors(dim: number, vectors: string, count: number): number[][] {
  const buf = Buffer.from(vectors, 'base64');
  if (buf.length !== count * dim * 4) throw new Error(`a record batch holds ${buf.length} bytes of vectors, not ${count} x ${dim} float32`);
  const out: number[][] = [];
  for (let i = 0; i < count; i++) {
    const row = new Array<number>(dim);
    for (let j = 0; j < dim; j++) row[j] = buf.readFloatLE((i * dim + j) * 4);
    out.push(row);
  }
  return out;
}
