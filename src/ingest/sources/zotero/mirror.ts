// The folder a Zotero source is indexed from: one document per item (`<key>.pdf` or `<key>.txt`)
// with its Zotero record beside it (`<key>.json`), and a manifest (`.zotero-mirror.json`) of
// what the mirror holds and the library version it reflects. The manifest is checked against the
// files at every sync; a manifest that is missing, for another library, or that disagrees with
// the files sends the sync back to a full comparison instead of trusting it.
import { createHash, randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ZoteroCollection, ZoteroItem } from './record.ts';

export const MANIFEST = '.zotero-mirror.json';
const FORMAT = 1;

export interface DocEntry {
  /** The document's file name in the mirror. */
  file: string;
  /** What it was made from ("pdf:<attachment>:<md5>", "text:<attachment>:<stamp>", "abstract:<hash>"). */
  plan: string;
  size: number;
  sha256: string;
  sidecarSize: number;
  sidecarSha: string;
}

export interface Manifest {
  format: number;
  identity: string;
  /** The collection the mirror is limited to ('' for the whole library). */
  scope: string;
  version: string;
  items: Record<string, ZoteroItem>;
  collections: Record<string, ZoteroCollection>;
  /** Top-level item key -> its document. */
  docs: Record<string, DocEntry>;
  /** Items to make again at the next sync (a download failed). */
  retry: string[];
}

export const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');
export const sidecarName = (key: string) => `${key}.json`;

export function emptyManifest(identity: string, scope: string): Manifest {
  return { format: FORMAT, identity, scope, version: '', items: {}, collections: {}, docs: {}, retry: [] };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The manifest, or why it cannot be used. */
export async function loadManifest(dir: string, identity: string): Promise<{ manifest?: Manifest; reason?: string }> {
  let text: string;
  try {
    text = await readFile(path.join(dir, MANIFEST), 'utf8');
  } catch {
    return { reason: 'no mirror yet' };
  }
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch {
    return { reason: 'its manifest is not valid JSON' };
  }
  if (
    !isObject(m) ||
    m.format !== FORMAT ||
    !isObject(m.items) ||
    !isObject(m.docs) ||
    !isObject(m.collections) ||
    typeof m.version !== 'string' ||
    !Array.isArray(m.retry)
  ) {
    return { reason: 'its manifest is not one this version writes' };
  }
  if (m.identity !== identity) return { reason: 'it mirrors another library' };
  return { manifest: m as unknown as Manifest };
}

export async function saveManifest(dir: string, m: Manifest): Promise<void> {
  await writeAtomic(dir, MANIFEST, JSON.stringify(m));
}

/** Writes a file in the mirror through a temporary name, so a reader sees the old bytes or the new. */
export async function writeAtomic(dir: string, name: string, bytes: Uint8Array | string): Promise<void> {
  const tmp = path.join(dir, `.tmp-${randomUUID()}`);
  await writeFile(tmp, bytes);
  await rename(tmp, path.join(dir, name));
}

async function sizeOf(p: string): Promise<number | undefined> {
  try {
    const st = await lstat(p);
    return st.isFile() ? st.size : undefined;
  } catch {
    return undefined;
  }
}

/** Documents whose files are missing or not the size the manifest recorded. */
export async function damagedDocs(dir: string, m: Manifest): Promise<string[]> {
  const bad: string[] = [];
  for (const [key, d] of Object.entries(m.docs)) {
    const [doc, side] = await Promise.all([sizeOf(path.join(dir, d.file)), sizeOf(path.join(dir, sidecarName(key)))]);
    if (doc !== d.size || side !== d.sidecarSize) bad.push(key);
  }
  return bad;
}

/** Files in the mirror that no document entry accounts for (left by a crash, or by an older manifest). */
export async function strayFiles(dir: string, m: Manifest): Promise<string[]> {
  const wanted = new Set<string>();
  for (const [key, d] of Object.entries(m.docs)) wanted.add(d.file).add(sidecarName(key));
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    if (e.name === MANIFEST) continue;
    if (e.name.startsWith('.tmp-') || !wanted.has(e.name)) out.push(e.name);
  }
  return out;
}

export async function removeFile(dir: string, name: string): Promise<void> {
  await rm(path.join(dir, name), { force: true, recursive: true });
}

export async function ensureDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
}

/**
 * One sync of a mirror at a time across processes sharing a data dir (serve and a worker, or a
 * CLI ingest): a lock file created exclusively, taken over when its holder is gone or it is old.
 */
export async function withMirrorLock<T>(dir: string, fn: () => Promise<T>, waitMs = 10 * 60_000): Promise<T> {
  const lock = `${dir}.lock`;
  await mkdir(path.dirname(lock), { recursive: true });
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      const fh = await open(lock, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY);
      await fh.writeFile(JSON.stringify({ pid: process.pid, at: Date.now() }));
      await fh.close();
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (await staleLock(lock)) {
        await rm(lock, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`the Zotero mirror ${dir} is locked by another process`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    return await fn();
  } finally {
    await rm(lock, { force: true });
  }
}

async function staleLock(lock: string): Promise<boolean> {
  try {
    const held = JSON.parse(await readFile(lock, 'utf8')) as { pid?: number; at?: number };
    if (typeof held.at !== 'number' || Date.now() - held.at > 30 * 60_000) return true;
    if (typeof held.pid === 'number') process.kill(held.pid, 0);
    return false;
  } catch (err) {
    // ESRCH: the holder is gone; unreadable or half-written: treat as stale only when old enough.
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return true;
    const st = await lstat(lock).catch(() => undefined);
    return !st || Date.now() - st.mtimeMs > 60_000;
  }
}
