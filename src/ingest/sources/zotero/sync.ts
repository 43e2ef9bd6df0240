// Brings a Zotero source's mirror up to date with its library and says which documents changed
// or went away, so the usual queue jobs index them. Only what changed since the mirror's version
// is fetched; an item whose chosen file is unchanged (same attachment, same MD5) is never
// downloaded again.
import { ItemError, type LibraryChanges, type ZoteroLibrary } from './library.ts';
import {
  damagedDocs,
  emptyManifest,
  ensureDir,
  loadManifest,
  removeFile,
  saveManifest,
  sha256,
  sidecarName,
  strayFiles,
  writeAtomic,
  type DocEntry,
  type Manifest,
} from './mirror.ts';
import {
  abstractText,
  candidateAttachments,
  collectionScope,
  isPdf,
  isStored,
  isTopLevel,
  itemRecord,
  type ZoteroCollection,
  type ZoteroItem,
} from './record.ts';

export interface MirrorProgress {
  phase: 'listing' | 'documents';
  done: number;
  total: number;
}

export interface MirrorSyncOptions {
  /** Largest file downloaded or copied (ingest.maxFileMb). */
  maxFileBytes: number;
  /** List the whole library and check every document, whatever the manifest says. */
  full?: boolean;
  /** Only items in this collection or its subcollections. */
  collection?: string;
  onProgress?: (p: MirrorProgress) => void;
  /** Documents made at once (file downloads go through the library's own limit of requests). */
  concurrency?: number;
}

export interface MirrorSyncResult {
  /** The version the mirror was at before this sync; undefined when there was no usable mirror. */
  from: string | undefined;
  version: string;
  /** Document paths (relative to the mirror) written: new, or with a new file or record. */
  changed: string[];
  /** Document paths removed from the mirror. */
  removed: string[];
  /** Items that could not be made, with the path they would have, and why. */
  problems: { path: string; reason: string }[];
  /** Paths of items that had failed before and were made this time (their problem rows are over). */
  resolved: string[];
  /** Whether the mirror had to be compared in full (no manifest, another library, files that disagreed with it). */
  repaired: boolean;
  /** Why, when repaired. */
  repairReason?: string;
  /** Nothing changed in the library and the mirror was intact. */
  unchanged: boolean;
  requests?: number;
}

const utf8 = (s: string) => new TextEncoder().encode(s);

/** A mirror document: what it is made from, and its bytes unless the file already there is it. */
interface Planned {
  file: string;
  plan: string;
  bytes?: Uint8Array;
}

/** Its first line is never blank or "---", so text from Zotero can never be read as front matter (which may claim an access group). */
function textDocument(item: ZoteroItem, body: string): Uint8Array {
  const title = item.title?.replace(/\s+/g, ' ').trim();
  const head = title && !title.startsWith('-') ? title : `Zotero item ${item.key}`;
  return utf8(`${head}\n\n${body.trim()}\n`);
}

async function planDocument(
  lib: ZoteroLibrary,
  item: ZoteroItem,
  children: ZoteroItem[],
  old: DocEntry | undefined,
  trustOld: boolean,
  maxBytes: number,
): Promise<Planned | undefined> {
  const candidates = candidateAttachments(item, children);
  const keep = (plan: string) => (trustOld && old?.plan === plan ? { file: old.file, plan } : undefined);
  for (const a of candidates.filter(isPdf)) {
    const plan = `pdf:${a.key}:${a.md5 ?? a.stamp}`;
    const kept = keep(plan);
    if (kept) return kept;
    if (!isStored(a)) continue;
    const got = await lib.file(a, maxBytes);
    if ('bytes' in got) return { file: `${item.key}.pdf`, plan, bytes: got.bytes };
  }
  for (const a of candidates) {
    const plan = `text:${a.key}:${a.stamp}`;
    const kept = keep(plan);
    if (kept) return kept;
    const text = await lib.fulltext(a);
    if (text) return { file: `${item.key}.txt`, plan, bytes: textDocument(item, text) };
  }
  // No file or text Zotero can hand over: a regular item is still its title and abstract.
  if (item.itemType === 'attachment' || !abstractText(item)) return undefined;
  const bytes = textDocument(item, item.abstractNote ?? '');
  return keep(`abstract:${sha256(bytes)}`) ?? { file: `${item.key}.txt`, plan: `abstract:${sha256(bytes)}`, bytes };
}

/** Top-level items whose documents may have changed, from what the library says changed. */
function affectedItems(m: Manifest, changes: LibraryChanges | 'unchanged', everything: boolean): Set<string> {
  const out = new Set<string>(m.retry);
  const touch = (i: ZoteroItem | undefined) => {
    if (!i) return;
    if (isTopLevel(i)) out.add(i.key);
    if (i.parentItem) out.add(i.parentItem);
  };
  if (changes !== 'unchanged') {
    for (const c of changes.changed) {
      touch(m.items[c.key]);
      touch(c);
    }
    for (const d of changes.deleted) touch(m.items[d]);
  }
  if (everything || (changes !== 'unchanged' && changes.collections))
    for (const i of Object.values(m.items)) if (isTopLevel(i)) out.add(i.key);
  for (const key of Object.keys(m.docs)) if (everything) out.add(key);
  return out;
}

function applyChanges(m: Manifest, changes: LibraryChanges): void {
  for (const d of changes.deleted) delete m.items[d];
  for (const c of changes.changed) m.items[c.key] = c;
  if (changes.collections) m.collections = Object.fromEntries(changes.collections.map((c) => [c.key, c]));
  m.version = changes.version;
}

async function pool<T>(items: T[], n: number, fn: (t: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

export async function syncMirror(dir: string, lib: ZoteroLibrary, opts: MirrorSyncOptions): Promise<MirrorSyncResult> {
  await ensureDir(dir);
  const scope = opts.collection ?? '';
  const loaded = await loadManifest(dir, lib.identity);
  let repairReason = loaded.reason;
  const m = loaded.manifest ?? emptyManifest(lib.identity, scope);
  const from = loaded.manifest?.version || undefined;
  const damaged = await damagedDocs(dir, m);
  if (damaged.length) repairReason = `${damaged.length} document(s) missing or changed on disk`;
  if (m.scope !== scope) repairReason = 'its collection changed';
  m.scope = scope;
  const everything = Boolean(repairReason) || opts.full === true;

  opts.onProgress?.({ phase: 'listing', done: 0, total: 1 });
  const known = new Map(Object.values(m.items).map((i) => [i.key, i.stamp]));
  const changes = await lib.changes(opts.full || !from ? undefined : from, known);
  opts.onProgress?.({ phase: 'listing', done: 1, total: 1 });
  const affected = affectedItems(m, changes, everything);
  for (const k of damaged) affected.add(k);
  if (changes !== 'unchanged') applyChanges(m, changes);
  const strays = await strayFiles(dir, m);
  const result: MirrorSyncResult = {
    from,
    version: m.version,
    changed: [],
    removed: [],
    problems: [],
    resolved: [],
    repaired: Boolean(repairReason),
    repairReason,
    unchanged: false,
  };
  if (changes === 'unchanged' && affected.size === 0 && strays.length === 0) {
    return { ...result, unchanged: true, requests: lib.requests };
  }

  const children = new Map<string, ZoteroItem[]>();
  for (const i of Object.values(m.items)) if (i.parentItem) children.set(i.parentItem, [...(children.get(i.parentItem) ?? []), i]);
  const collections = new Map<string, ZoteroCollection>(Object.entries(m.collections));
  const inScope = scope ? collectionScope(scope, collections) : undefined;
  const wanted = (i: ZoteroItem | undefined): i is ZoteroItem =>
    Boolean(i && isTopLevel(i) && !i.trashed && (!inScope || (i.collections ?? []).some((c) => inScope.has(c))));

  const retry = new Set<string>();
  const failedBefore = new Set(m.retry);
  const damagedSet = new Set(damaged);
  const keys = [...affected].sort();
  let done = 0;
  await pool(keys, opts.concurrency ?? 4, async (key) => {
    const item = m.items[key];
    const old = m.docs[key];
    try {
      const planned = wanted(item)
        ? await planDocument(lib, item, children.get(key) ?? [], old, !damagedSet.has(key), opts.maxFileBytes)
        : undefined;
      if (!planned) {
        if (old) {
          await removeFile(dir, old.file);
          await removeFile(dir, sidecarName(key));
          delete m.docs[key];
          result.removed.push(old.file);
        }
        return;
      }
      const record = utf8(`${JSON.stringify(itemRecord(item!, collections), null, 1)}\n`);
      const entry: DocEntry =
        old?.file === planned.file && !planned.bytes
          ? { ...old, plan: planned.plan }
          : {
              file: planned.file,
              plan: planned.plan,
              size: planned.bytes!.length,
              sha256: sha256(planned.bytes!),
              sidecarSize: old?.sidecarSize ?? -1,
              sidecarSha: old?.sidecarSha ?? '',
            };
      let wrote = false;
      if (planned.bytes && (old?.file !== planned.file || old.sha256 !== entry.sha256 || damagedSet.has(key))) {
        await writeAtomic(dir, planned.file, planned.bytes);
        wrote = true;
      }
      const recordSha = sha256(record);
      if (recordSha !== entry.sidecarSha || damagedSet.has(key)) {
        await writeAtomic(dir, sidecarName(key), record);
        wrote = true;
      }
      entry.sidecarSha = recordSha;
      entry.sidecarSize = record.length;
      if (old && old.file !== planned.file) {
        await removeFile(dir, old.file);
        result.removed.push(old.file);
      }
      m.docs[key] = entry;
      if (wrote) result.changed.push(planned.file);
      if (failedBefore.has(key)) result.resolved.push(planned.file);
    } catch (err) {
      if (!(err instanceof ItemError)) throw err;
      result.problems.push({ path: old?.file ?? `${key}.pdf`, reason: `from Zotero item ${key}: ${err.message}` });
      if (err.retry) retry.add(key);
    } finally {
      opts.onProgress?.({ phase: 'documents', done: ++done, total: keys.length });
    }
  });
  m.retry = [...retry];
  // Files no entry accounts for (after this sync's writes) leave the mirror, and so the index.
  for (const name of await strayFiles(dir, m)) {
    await removeFile(dir, name);
    if (!name.startsWith('.') && !name.endsWith('.json')) result.removed.push(name);
  }
  await saveManifest(dir, m);
  return { ...result, version: m.version, requests: lib.requests };
}
