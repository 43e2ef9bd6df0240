// Whether a file is indexed as it is now: one rule, used where a sync plans its jobs
// (queue/sync-source.ts) and where the pipeline decides to skip a file (ingest/pipeline.ts). The
// hash covers everything that changes what would be indexed; a document indexed while Crossref
// could not be asked is current until Crossref may answer.
import { createHash } from 'node:crypto';
import type { IngestTarget } from '../types.ts';

const sha256 = (parts: (string | Uint8Array)[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest('hex');
};

/**
 * Bump when what labbot reads from a PDF's own bytes changes (its metadata), so the next sync reads
 * indexed PDFs again (their unchanged chunks keep their vectors). 2: page 1's layout, no year from
 * CreationDate.
 */
const PDF_READING = '2';

/**
 * The hash that decides whether a file changed: its bytes, its sidecars, what the source imposes,
 * the library entries that describe it (`libraries`, a match's signature: editing one entry of a
 * library changes the hash of its documents only), for a PDF how PDFs are read, and with
 * enrichment on its tag (`enrich`: the enricher's tag, or pendingTag of it for a document indexed
 * while the service could not be asked), so that turning enrichment on, or the service answering
 * again, re-indexes. Without enrichment or libraries the hash is what it always was.
 */
export function fileContentHash(
  bytes: Uint8Array,
  sidecars: { name: string; text: string }[],
  target: Pick<IngestTarget, 'kind' | 'access'>,
  defaultAccess: string,
  extra: { libraries?: string; fileName?: string; enrich?: string } = {},
): string {
  const imposed: (string | null)[] = [target.kind ?? null, target.access ?? null, defaultAccess];
  const pdf = extra.fileName && /\.pdf$/i.test(extra.fileName) ? ['\0pdf\0', PDF_READING] : [];
  return sha256([
    bytes,
    ...sidecars.flatMap((s) => [s.name, s.text]),
    JSON.stringify(extra.enrich ? [...imposed, extra.enrich] : imposed),
    ...(extra.libraries ? ['\0libraries\0', extra.libraries] : []),
    ...pdf,
  ]);
}

/** The tag of a document whose enrichment could not be done yet. */
export const pendingTag = (tag: string) => `${tag}:pending`;

export interface FileHashInput {
  bytes: Uint8Array;
  sidecars: { name: string; text: string }[];
  target: Pick<IngestTarget, 'kind' | 'access'>;
  defaultAccess: string;
  /** The signature of the library entries matched to the file. */
  libraries?: string;
  fileName: string;
}

export interface FileHashes {
  contentHash: string;
  /** With enrichment on: the hash it was indexed under if Crossref could not be asked (worked out only if asked). */
  pendingHash?: () => string;
}

/** The file's hash now, and (with enrichment on) the hash it would have been indexed under while Crossref was unreachable. */
export function fileHashes(f: FileHashInput, enrichTag: string | undefined): FileHashes {
  const extra = { libraries: f.libraries, fileName: f.fileName };
  const contentHash = fileContentHash(f.bytes, f.sidecars, f.target, f.defaultAccess, { ...extra, enrich: enrichTag });
  if (!enrichTag) return { contentHash };
  return {
    contentHash,
    pendingHash: () => fileContentHash(f.bytes, f.sidecars, f.target, f.defaultAccess, { ...extra, enrich: pendingTag(enrichTag) }),
  };
}

/**
 * The file is indexed as it is: its record carries its hash, or the pending hash while enrichment
 * is not available (asked only then).
 */
export async function isIndexedAsIs(
  indexedHash: string | undefined,
  now: FileHashes,
  enrichAvailable: () => boolean | Promise<boolean>,
): Promise<boolean> {
  if (indexedHash === undefined) return false;
  if (indexedHash === now.contentHash) return true;
  return now.pendingHash !== undefined && indexedHash === now.pendingHash() && !(await enrichAvailable());
}
