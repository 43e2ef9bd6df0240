// Reading Office files (ZIP containers) without letting a small file expand into gigabytes.
// Two guards: the sizes the archive declares are checked before anything is inflated, and every
// entry we read is counted while it inflates, because declared sizes can lie.
import JSZip from 'jszip';
import { ParseError, formatMb } from './errors.ts';

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;

const u64 = (view: DataView, at: number) => view.getUint32(at, true) + view.getUint32(at + 4, true) * 2 ** 32;

export interface ZipEntryInfo {
  name: string;
  uncompressedSize: number;
}

/** List entries with their declared uncompressed sizes, from the central directory. */
export function listZipEntries(bytes: Uint8Array, what = 'ZIP archive'): ZipEntryInfo[] {
  const corrupt = () => new ParseError(`not a valid ${what} (truncated or corrupt)`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let eocd = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 0xffff); i--) {
    if (view.getUint32(i, true) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw corrupt();

  let count = view.getUint16(eocd + 10, true);
  let offset = view.getUint32(eocd + 16, true);
  if ((count === 0xffff || offset === 0xffffffff) && eocd >= 20 && view.getUint32(eocd - 20, true) === ZIP64_LOCATOR) {
    const at = u64(view, eocd - 20 + 8);
    if (at + 56 > bytes.length || view.getUint32(at, true) !== ZIP64_EOCD) throw corrupt();
    count = u64(view, at + 32);
    offset = u64(view, at + 48);
  }

  const decoder = new TextDecoder('utf-8');
  const entries: ZipEntryInfo[] = [];
  let p = offset;
  for (let n = 0; n < count; n++) {
    if (p + 46 > bytes.length || view.getUint32(p, true) !== CENTRAL) throw corrupt();
    let size = view.getUint32(p + 24, true);
    const nameLen = view.getUint16(p + 28, true);
    const extraLen = view.getUint16(p + 30, true);
    const commentLen = view.getUint16(p + 32, true);
    if (p + 46 + nameLen + extraLen > bytes.length) throw corrupt();
    const name = decoder.decode(bytes.subarray(p + 46, p + 46 + nameLen));
    if (size === 0xffffffff) {
      // The real size sits in the ZIP64 extended-information extra field.
      let e = p + 46 + nameLen;
      const end = e + extraLen;
      while (e + 4 <= end) {
        const id = view.getUint16(e, true);
        const len = view.getUint16(e + 2, true);
        if (id === 0x0001 && len >= 8) {
          size = u64(view, e + 4);
          break;
        }
        e += 4 + len;
      }
    }
    entries.push({ name, uncompressedSize: size });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

export interface ZipReader {
  has(path: string): boolean;
  paths(): string[];
  /** The entry's bytes, or undefined if absent. Counts against the archive's budget. */
  bytes(path: string): Promise<Uint8Array | undefined>;
}

/** One damaged entry: callers may skip it when the rest of the file is still useful. */
export class CorruptEntryError extends ParseError {
  constructor(reason: string, cause: unknown) {
    super(reason, { cause });
    this.name = 'CorruptEntryError';
  }
}

const bombError = (limit: number) => new ParseError(`archive expands beyond ${formatMb(limit)} MB (zip bomb?)`);

function inflateBounded(file: JSZip.JSZipObject, budget: { left: number }, limit: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let settled = false;
    const stream = file.nodeStream('nodebuffer');
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      // Pausing stops the flow; JSZip's worker then stalls on back-pressure instead of inflating on.
      stream.pause();
      stream.removeAllListeners('data');
      reject(err);
    };
    stream.on('data', (chunk: Uint8Array) => {
      budget.left -= chunk.length;
      if (budget.left < 0) return fail(bombError(limit));
      chunks.push(chunk);
    });
    stream.on('error', (err: unknown) => fail(err instanceof Error ? err : new Error(String(err))));
    stream.on('end', () => {
      if (settled) return;
      settled = true;
      const total = chunks.reduce((n, c) => n + c.length, 0);
      const out = new Uint8Array(total);
      let at = 0;
      for (const c of chunks) {
        out.set(c, at);
        at += c.length;
      }
      resolve(out);
    });
  });
}

/**
 * Open an Office container. `what` names the format in error messages ("PPTX", "DOCX").
 * Refuses archives whose declared total exceeds `maxUncompressedBytes`, and stops inflating as
 * soon as the bytes actually read exceed it.
 */
export async function openZip(bytes: Uint8Array, maxUncompressedBytes: number, what: string): Promise<ZipReader> {
  const entries = listZipEntries(bytes, what);
  const declared = entries.reduce((n, e) => n + e.uncompressedSize, 0);
  if (declared > maxUncompressedBytes) throw bombError(maxUncompressedBytes);

  let zip: JSZip;
  try {
    zip = await JSZip.loadAsync(bytes);
  } catch (cause) {
    throw new ParseError(`not a valid ${what} (truncated or corrupt)`, { cause });
  }
  const budget = { left: maxUncompressedBytes };
  return {
    has: (path) => zip.file(path) !== null,
    paths: () => Object.keys(zip.files).filter((p) => !zip.files[p].dir),
    async bytes(path) {
      const file = zip.file(path);
      if (!file) return undefined;
      try {
        return await inflateBounded(file, budget, maxUncompressedBytes);
      } catch (cause) {
        if (cause instanceof ParseError) throw cause;
        throw new CorruptEntryError(`not a valid ${what}: entry ${path} is corrupt`, cause);
      }
    },
  };
}

/** Resolve a relationship target against the part that declares it ("../notesSlides/x.xml"). */
export function resolvePartPath(fromPart: string, target: string): string {
  if (target.startsWith('/')) return target.slice(1);
  const parts = fromPart.split('/').slice(0, -1);
  for (const seg of target.split('/')) {
    if (seg === '..') parts.pop();
    else if (seg !== '.' && seg !== '') parts.push(seg);
  }
  return parts.join('/');
}

/** The .rels part that belongs to a part: ppt/slides/slide1.xml -> ppt/slides/_rels/slide1.xml.rels */
export function relsPathFor(part: string): string {
  const i = part.lastIndexOf('/');
  return `${part.slice(0, i + 1)}_rels/${part.slice(i + 1)}.rels`;
}
