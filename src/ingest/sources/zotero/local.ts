// A local Zotero library: the data folder's zotero.sqlite and storage/<key>/ files. Zotero holds
// the database open with an exclusive lock while it runs, and Zotero 10 keeps recent changes in
// zotero.sqlite-wal until it checkpoints; so labbot never opens Zotero's own file. It copies the
// database and its WAL (until two reads agree) and opens the copy, where SQLite replays the WAL.
// node-sqlite3-wasm is SQLite compiled to WebAssembly with a file-system VFS: no native build,
// and pages are read from disk as queries need them, so a large database is not held in memory.
//
// Supported: the schema of Zotero 5.0 to 10 (userdata schema 95 and later; checked against
// Zotero's resource/schema/userdata.sql at each release). Zotero 4 databases (sourceItemID,
// mimeType, creatorData) are refused with a message; Zotero upgrades them when it opens them.
import { createHash, randomUUID } from 'node:crypto';
import { copyFile, lstat, mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import sqlite from 'node-sqlite3-wasm';
import { readInside } from '../folder.ts';
import { ItemError, type LibraryChanges, type ZoteroLibrary } from './library.ts';
import type { ZoteroCollection, ZoteroCreator, ZoteroItem } from './record.ts';

export const MIN_USERDATA_SCHEMA = 95;
const LINK_MODES = ['imported_file', 'imported_url', 'linked_file', 'linked_url', 'embedded_image'];
const CONTAINER_FIELDS = [
  'publicationTitle',
  'proceedingsTitle',
  'bookTitle',
  'websiteTitle',
  'blogTitle',
  'forumTitle',
  'encyclopediaTitle',
  'dictionaryTitle',
];

/** Columns labbot reads, per table: a database without them is refused with the list. */
const REQUIRED: Record<string, string[]> = {
  items: ['itemID', 'itemTypeID', 'dateAdded', 'clientDateModified', 'libraryID', 'key'],
  itemData: ['itemID', 'fieldID', 'valueID'],
  itemDataValues: ['valueID', 'value'],
  itemAttachments: ['itemID', 'parentItemID', 'linkMode', 'contentType', 'path', 'storageHash', 'storageModTime'],
  itemCreators: ['itemID', 'creatorID', 'creatorTypeID', 'orderIndex'],
  creators: ['creatorID', 'firstName', 'lastName', 'fieldMode'],
  creatorTypes: ['creatorTypeID', 'creatorType'],
  itemTags: ['itemID', 'tagID'],
  tags: ['tagID', 'name'],
  collections: ['collectionID', 'collectionName', 'parentCollectionID', 'libraryID', 'key'],
  collectionItems: ['collectionID', 'itemID'],
  deletedItems: ['itemID'],
  libraries: ['libraryID', 'type'],
  groups: ['groupID', 'libraryID'],
  version: ['schema', 'version'],
};

export class ZoteroDatabaseError extends Error {
  constructor(
    message: string,
    /** Retrying will not help until someone acts (a database from an unsupported Zotero). */
    readonly permanent = false,
  ) {
    super(message);
  }
}

type Row = Record<string, string | number | bigint | Uint8Array | null>;
type Db = InstanceType<typeof sqlite.Database>;
type Param = string | number;
const rows = (db: Db, sql: string, params?: Param[]) => db.all(sql, params) as Row[];
const row = (db: Db, sql: string, params?: Param[]) => (db.get(sql, params) as Row | null) ?? undefined;
const text = (v: Row[string]) =>
  typeof v === 'string' && v.trim() !== '' ? v : typeof v === 'number' || typeof v === 'bigint' ? String(v) : undefined;

/** Copies zotero.sqlite and its WAL until the copy is of one moment: same sizes and times before and after. */
async function stableCopy(src: string, dest: string): Promise<void> {
  const sig = async () => {
    const parts: string[] = [];
    for (const f of [src, `${src}-wal`]) {
      const st = await stat(f).catch(() => undefined);
      parts.push(st ? `${st.size}:${st.mtimeMs}` : '-');
    }
    return parts.join('|');
  };
  for (let attempt = 0; attempt < 6; attempt++) {
    const before = await sig();
    await copyFile(src, dest);
    await rm(`${dest}-wal`, { force: true });
    if ((await stat(`${src}-wal`).catch(() => undefined))?.size) await copyFile(`${src}-wal`, `${dest}-wal`);
    if ((await sig()) === before) return;
    await new Promise((r) => setTimeout(r, 250 * (attempt + 1)));
  }
  throw new ZoteroDatabaseError('zotero.sqlite kept changing while it was copied; trying again at the next sync');
}

function checkSchema(db: Db): void {
  const tables = new Set(rows(db, "SELECT name FROM sqlite_master WHERE type = 'table'").map((r) => String(r.name)));
  const cols = (t: string) => new Set(rows(db, `PRAGMA table_info(${t})`).map((r) => String(r.name)));
  if (tables.has('itemAttachments') && cols('itemAttachments').has('sourceItemID')) {
    throw new ZoteroDatabaseError('zotero.sqlite is from Zotero 4 or older; open it once in Zotero 5 or newer, which upgrades it', true);
  }
  const missing: string[] = [];
  for (const [t, need] of Object.entries(REQUIRED)) {
    if (!tables.has(t)) missing.push(`table ${t}`);
    else for (const c of need.filter((c) => !cols(t).has(c))) missing.push(`${t}.${c}`);
  }
  if (!tables.has('fields') && !tables.has('fieldsCombined')) missing.push('table fields');
  if (!tables.has('itemTypes') && !tables.has('itemTypesCombined')) missing.push('table itemTypes');
  if (missing.length)
    throw new ZoteroDatabaseError(`zotero.sqlite lacks ${missing.slice(0, 6).join(', ')}: not a Zotero 5-10 database`, true);
  const v = Number(row(db, "SELECT version FROM version WHERE schema = 'userdata'")?.version ?? NaN);
  if (Number.isFinite(v) && v < MIN_USERDATA_SCHEMA)
    throw new ZoteroDatabaseError(
      `zotero.sqlite has userdata schema ${v}, older than Zotero 5 (${MIN_USERDATA_SCHEMA}); open it once in Zotero 5 or newer`,
      true,
    );
}

/** A table Zotero fills at start-up from the built-in and custom tables, or the built-in one when it is empty. */
function combined(db: Db, name: 'fields' | 'itemTypes'): string {
  const c = `${name}Combined`;
  const has = row(db, "SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = ?", [c]);
  return has && row(db, `SELECT 1 AS x FROM ${c} LIMIT 1`) ? c : name;
}

function libraryId(db: Db, library: string | undefined): number {
  const group = library?.startsWith('groups/') ? Number(library.slice(7)) : undefined;
  const found =
    group !== undefined
      ? row(db, 'SELECT libraryID FROM groups WHERE groupID = ?', [group])
      : row(db, "SELECT libraryID FROM libraries WHERE type = 'user' ORDER BY libraryID LIMIT 1");
  if (!found)
    throw new ZoteroDatabaseError(group !== undefined ? `this Zotero has no group library ${group}` : 'zotero.sqlite has no user library');
  return Number(found.libraryID);
}

interface ReadLibrary {
  items: ZoteroItem[];
  collections: ZoteroCollection[];
}

function readItems(db: Db, lib: number): ReadLibrary {
  const types = combined(db, 'itemTypes');
  const fields = combined(db, 'fields');
  const base = rows(
    db,
    `SELECT i.itemID, i.key, i.dateAdded, i.clientDateModified, t.typeName FROM items i JOIN ${types} t ON t.itemTypeID = i.itemTypeID WHERE i.libraryID = ?`,
    [lib],
  );
  const byId = new Map<number, ZoteroItem>();
  for (const r of base)
    byId.set(Number(r.itemID), {
      key: String(r.key),
      stamp: String(r.clientDateModified ?? ''),
      itemType: String(r.typeName),
      dateAdded: text(r.dateAdded),
    });
  const mine = `(SELECT itemID FROM items WHERE libraryID = ${lib})`;
  for (const r of rows(
    db,
    `SELECT d.itemID, f.fieldName, v.value FROM itemData d JOIN ${fields} ` +
      `f ON f.fieldID = d.fieldID JOIN itemDataValues v ON v.valueID = d.valueID ` +
      `WHERE d.itemID IN ${mine}`,
  )) {
    const item = byId.get(Number(r.itemID));
    const name = String(r.fieldName);
    const value = text(r.value);
    if (!item || value === undefined) continue;
    if (name === 'title' || name === 'date' || name === 'DOI' || name === 'url' || name === 'extra' || name === 'abstractNote')
      item[name] = value;
    else if (CONTAINER_FIELDS.includes(name)) item.container ??= value;
  }
  for (const r of rows(
    db,
    `SELECT ic.itemID, c.firstName, c.lastName, c.fieldMode, ct.creatorType ` +
      `FROM itemCreators ic JOIN creators c ON c.creatorID = ic.creatorID JOIN ` +
      `creatorTypes ct ON ct.creatorTypeID = ic.creatorTypeID WHERE ic.itemID ` +
      `IN ${mine} ORDER BY ic.itemID, ic.orderIndex`,
  )) {
    const item = byId.get(Number(r.itemID));
    if (!item) continue;
    // fieldMode 1: a single-field name, kept in lastName.
    const c: ZoteroCreator =
      Number(r.fieldMode) === 1
        ? { creatorType: String(r.creatorType), name: text(r.lastName) }
        : { creatorType: String(r.creatorType), firstName: text(r.firstName), lastName: text(r.lastName) };
    (item.creators ??= []).push(c);
  }
  for (const r of rows(db, `SELECT it.itemID, t.name FROM itemTags it JOIN tags t ON t.tagID = it.tagID WHERE it.itemID IN ${mine}`)) {
    const item = byId.get(Number(r.itemID));
    if (item && text(r.name)) (item.tags ??= []).push(String(r.name));
  }
  const trashedCollections = new Set(
    row(db, "SELECT 1 AS x FROM sqlite_master WHERE name = 'deletedCollections'")
      ? rows(db, 'SELECT collectionID FROM deletedCollections').map((r) => Number(r.collectionID))
      : [],
  );
  const collectionRows = rows(db, 'SELECT collectionID, key, collectionName, parentCollectionID FROM collections WHERE libraryID = ?', [
    lib,
  ]);
  const collectionKey = new Map(collectionRows.map((r) => [Number(r.collectionID), String(r.key)]));
  const collections = collectionRows
    .filter((r) => !trashedCollections.has(Number(r.collectionID)))
    .map((r) => ({
      key: String(r.key),
      name: String(r.collectionName),
      parent: r.parentCollectionID === null ? undefined : collectionKey.get(Number(r.parentCollectionID)),
    }));
  for (const r of rows(db, `SELECT collectionID, itemID FROM collectionItems WHERE itemID IN ${mine}`)) {
    const item = byId.get(Number(r.itemID));
    const key = collectionKey.get(Number(r.collectionID));
    if (item && key && !trashedCollections.has(Number(r.collectionID))) (item.collections ??= []).push(key);
  }
  for (const r of rows(db, 'SELECT itemID FROM deletedItems')) {
    const item = byId.get(Number(r.itemID));
    if (item) item.trashed = true;
  }
  for (const r of rows(
    db,
    `SELECT a.itemID, p.key AS parentKey, a.linkMode, a.contentType, a.path, ` +
      `a.storageHash, a.storageModTime FROM itemAttachments a LEFT JOIN items ` +
      `p ON p.itemID = a.parentItemID WHERE a.itemID IN ${mine}`,
  )) {
    const item = byId.get(Number(r.itemID));
    if (!item) continue;
    item.parentItem = text(r.parentKey);
    item.linkMode = LINK_MODES[Number(r.linkMode)] ?? 'unknown';
    item.contentType = text(r.contentType);
    const p = text(r.path);
    // Stored files are "storage:<file name>" below storage/<attachment key>/; linked files point
    // anywhere on the disk and are not read (only Zotero's text of them).
    if (p?.startsWith('storage:') && (item.linkMode === 'imported_file' || item.linkMode === 'imported_url')) {
      const file = p.slice('storage:'.length);
      if (file && !file.includes('/') && !file.includes('\\') && file !== '..') item.storageFile = file;
    }
    item.md5 = text(r.storageHash);
    item.stamp = `${item.stamp}|${text(r.storageHash) ?? ''}|${text(r.storageModTime) ?? ''}`;
  }
  return { items: [...byId.values()], collections };
}

export interface LocalLibraryOptions {
  /** The Zotero data folder (holding zotero.sqlite and storage/). */
  dataDir: string;
  /** "groups/<id>" for a group library synced into this Zotero; the user library otherwise. */
  library?: string;
  /** Where the database is copied to while it is read. */
  workDir: string;
}

export function openLocalLibrary(opts: LocalLibraryOptions): ZoteroLibrary {
  const storage = (key: string, name: string) => path.join(opts.dataDir, 'storage', key, name);
  /** A stored file's size and time: a file replaced without Zotero's record changing still counts as changed. */
  const fileStamp = async (i: ZoteroItem) => {
    if (!i.storageFile) return '';
    const st = await lstat(storage(i.key, i.storageFile)).catch(() => undefined);
    return st?.isFile() ? `${st.size}:${Math.round(st.mtimeMs)}` : 'missing';
  };

  async function read(): Promise<ReadLibrary> {
    const src = path.join(opts.dataDir, 'zotero.sqlite');
    if (!(await stat(src).catch(() => undefined))?.isFile())
      throw new ZoteroDatabaseError(
        `no zotero.sqlite in ${opts.dataDir} (is "path" Zotero's data folder? Zotero shows it under Settings > Advanced > Files and Folders)`,
      );
    const dir = path.join(opts.workDir, `.zotero-db-${randomUUID()}`);
    await mkdir(dir, { recursive: true });
    try {
      const copy = path.join(dir, 'zotero.sqlite');
      await stableCopy(src, copy);
      let db: Db | undefined;
      try {
        db = new sqlite.Database(copy);
        // Before the first read: the WAL index is then kept in memory, with no -shm file.
        db.exec('PRAGMA locking_mode=EXCLUSIVE');
        checkSchema(db);
        return readItems(db, libraryId(db, opts.library));
      } catch (err) {
        if (err instanceof ZoteroDatabaseError) throw err;
        throw new ZoteroDatabaseError(`cannot read zotero.sqlite: ${(err as Error).message}`);
      } finally {
        db?.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  return {
    identity: `zotero-local:${createHash('sha256')
      .update(`${opts.dataDir}\u0000${opts.library ?? 'user'}`)
      .digest('hex')
      .slice(0, 24)}`,
    async changes(since, known): Promise<LibraryChanges | 'unchanged'> {
      const lib = await read();
      for (const i of lib.items) if (i.storageFile) i.stamp = `${i.stamp}|${await fileStamp(i)}`;
      const digest = createHash('sha256');
      for (const i of [...lib.items].sort((a, b) => a.key.localeCompare(b.key)))
        digest.update(`${i.key}\u0000${i.stamp}\u0000${i.trashed ? 1 : 0}\n`);
      for (const c of [...lib.collections].sort((a, b) => a.key.localeCompare(b.key)))
        digest.update(`c\u0000${c.key}\u0000${c.name}\u0000${c.parent ?? ''}\n`);
      const version = digest.digest('hex').slice(0, 16);
      if (since === version) return 'unchanged';
      const present = new Set(lib.items.map((i) => i.key));
      // Trash state is part of what the mirror compares, so an item moved to the trash counts as changed.
      const changed = lib.items.filter((i) => known.get(i.key) !== i.stamp || since === undefined);
      return {
        version,
        changed,
        deleted: [...known.keys()].filter((k) => !present.has(k)),
        collections: lib.collections,
        listedInFull: true,
      };
    },
    async file(att, maxBytes) {
      if (!att.storageFile) return { absent: 'no stored file (a linked file is not read)' };
      const p = storage(att.key, att.storageFile);
      const st = await lstat(p).catch(() => undefined);
      if (!st?.isFile()) return { absent: `storage/${att.key}/${att.storageFile} is not there` };
      if (st.size > maxBytes) throw new ItemError(`file is ${(st.size / 1048576).toFixed(1)} MB, over the limit (ingest.maxFileMb)`, false);
      try {
        return { bytes: await readInside(opts.dataDir, p) };
      } catch (err) {
        throw new ItemError(`cannot read storage/${att.key}/${att.storageFile}: ${(err as Error).message}`, true);
      }
    },
    async fulltext(att) {
      const p = storage(att.key, '.zotero-ft-cache');
      if (!(await lstat(p).catch(() => undefined))?.isFile()) return undefined;
      const t = (await readInside(opts.dataDir, p).catch(() => undefined))?.toString('utf8');
      return t?.trim() ? t : undefined;
    },
  };
}
