// Writes a zotero.sqlite with Zotero's own table layout (the tables and columns labbot reads, as
// resource/schema/userdata.sql has them in Zotero 10 (schema 129) and Zotero 6 (schema 120), or in
// Zotero 4 (schema 77) for the refusal), using the same SQLite library labbot reads it with.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sqlite from 'node-sqlite3-wasm';

export type Layout = 'zotero10' | 'zotero6' | 'zotero4';

export interface LocalItem {
  key: string;
  itemType: string;
  fields?: Record<string, string>;
  creators?: [string, string][];
  tags?: string[];
  collections?: string[];
  trashed?: boolean;
  /** For attachments: linkMode 0 imported_file, 1 imported_url, 2 linked_file. */
  attachment?: { parent?: string; linkMode: number; contentType: string; path: string };
  modified?: string;
}

const ITEM_TYPES = ['journalArticle', 'book', 'attachment', 'note', 'preprint', 'annotation'];
const FIELDS = ['title', 'date', 'DOI', 'url', 'abstractNote', 'publicationTitle', 'extra', 'bookTitle'];
const CREATOR_TYPES = ['author', 'editor', 'contributor'];

function ddl(layout: Layout): string {
  const z10 = layout === 'zotero10';
  if (layout === 'zotero4') {
    return (
      `
CREATE TABLE version (schema TEXT PRIMARY KEY, version INT NOT NULL);
CREATE ` +
      `TABLE itemTypes (itemTypeID INTEGER PRIMARY KEY, typeName TEXT, templateItemTypeID ` +
      `INT, display INT DEFAULT 1);
CREATE TABLE fields (fieldID INTEGER PRIMARY ` +
      `KEY, fieldName TEXT, fieldFormatID INT);
CREATE TABLE items (itemID INTEGER ` +
      `PRIMARY KEY, itemTypeID INT NOT NULL, dateAdded TIMESTAMP NOT NULL DEFAULT ` +
      `CURRENT_TIMESTAMP, dateModified TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, ` +
      `clientDateModified TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, libraryID ` +
      `INT, key TEXT NOT NULL);
CREATE TABLE itemAttachments (itemID INTEGER ` +
      `PRIMARY KEY, sourceItemID INT, linkMode INT, mimeType TEXT, charsetID ` +
      `INT, path TEXT, originalPath TEXT, syncState INT DEFAULT 0, storageModTime ` +
      `INT, storageHash TEXT);
CREATE TABLE creatorData (creatorDataID INTEGER ` +
      `PRIMARY KEY, firstName TEXT, lastName TEXT, shortName TEXT, fieldMode ` +
      `INT, birthYear INT);
CREATE TABLE creators (creatorID INTEGER PRIMARY ` +
      `KEY, creatorDataID INT NOT NULL, dateAdded TIMESTAMP, dateModified TIMESTAMP, ` +
      `clientDateModified TIMESTAMP, libraryID INT, key TEXT NOT NULL);
CREATE ` +
      `TABLE libraries (libraryID INTEGER PRIMARY KEY, libraryType TEXT NOT NULL);`
    );
  }
  return (
    `
CREATE TABLE version (schema TEXT PRIMARY KEY, version INT NOT NULL);
CREATE ` +
    `TABLE settings (setting TEXT, key TEXT, value, PRIMARY KEY (setting, key));
CREATE ` +
    `TABLE itemTypes (itemTypeID INTEGER PRIMARY KEY, typeName TEXT, templateItemTypeID ` +
    `INT, display INT DEFAULT 1);
CREATE TABLE itemTypesCombined (itemTypeID ` +
    `INT NOT NULL, typeName TEXT NOT NULL, display INT DEFAULT 1 NOT NULL, ` +
    `custom INT NOT NULL, PRIMARY KEY (itemTypeID));
CREATE TABLE fields (fieldID ` +
    `INTEGER PRIMARY KEY, fieldName TEXT, fieldFormatID INT);
CREATE TABLE ` +
    `fieldsCombined (fieldID INT NOT NULL, fieldName TEXT NOT NULL, label TEXT, ` +
    `fieldFormatID INT, custom INT NOT NULL, PRIMARY KEY (fieldID));
CREATE ` +
    `TABLE creatorTypes (creatorTypeID INTEGER PRIMARY KEY, creatorType TEXT);
CREATE ` +
    `TABLE libraries (libraryID INTEGER PRIMARY KEY, type TEXT NOT NULL, editable ` +
    `INT NOT NULL, filesEditable INT NOT NULL, version INT NOT NULL DEFAULT ` +
    `0, ${z10 ? 'clientVersion INT NOT NULL DEFAULT 0, ' : ''}storageVersion ` +
    `INT NOT NULL DEFAULT 0, lastSync INT NOT NULL DEFAULT 0, archived INT ` +
    `NOT NULL DEFAULT 0${z10 ? ', isAdmin INT' : ''});
CREATE TABLE groups ` +
    `(groupID INTEGER PRIMARY KEY, libraryID INT NOT NULL UNIQUE, name TEXT ` +
    `NOT NULL, description TEXT NOT NULL, version INT NOT NULL);
CREATE TABLE ` +
    `items (itemID INTEGER PRIMARY KEY, itemTypeID INT NOT NULL, dateAdded ` +
    `TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, dateModified TIMESTAMP NOT ` +
    `NULL DEFAULT CURRENT_TIMESTAMP, clientDateModified TIMESTAMP NOT NULL ` +
    `DEFAULT CURRENT_TIMESTAMP, libraryID INT NOT NULL, key TEXT NOT NULL, ` +
    `version INT NOT NULL DEFAULT 0, ${z10 ? 'clientVersion INT NOT NULL DEFAULT 0, ' : ''}synced ` +
    `INT NOT NULL DEFAULT 0, UNIQUE (libraryID, key));
CREATE TABLE itemDataValues ` +
    `(valueID INTEGER PRIMARY KEY, value UNIQUE${z10 ? ', valueNormalized TEXT' : ''});
CREATE ` +
    `TABLE itemData (itemID INT, fieldID INT, valueID, PRIMARY KEY (itemID, ` +
    `fieldID));
CREATE TABLE itemNotes (itemID INTEGER PRIMARY KEY, parentItemID ` +
    `INT, note TEXT, title TEXT);
CREATE TABLE itemAttachments (itemID INTEGER ` +
    `PRIMARY KEY, parentItemID INT, linkMode INT, contentType TEXT, charsetID ` +
    `INT, path TEXT, syncState INT DEFAULT 0, storageModTime INT, storageHash ` +
    `TEXT, lastProcessedModificationTime INT${z10 ? ', lastRead INT' : ''});
CREATE ` +
    `TABLE tags (tagID INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE${z10 ? ', nameNormalized TEXT' : ''});
CREATE ` +
    `TABLE itemTags (itemID INT NOT NULL, tagID INT NOT NULL, type INT NOT ` +
    `NULL, PRIMARY KEY (itemID, tagID));
CREATE TABLE creators (creatorID INTEGER ` +
    `PRIMARY KEY, firstName TEXT, lastName TEXT, fieldMode INT${z10 ? ', firstNameNormalized TEXT, lastNameNormalized TEXT' : ''}, ` +
    `UNIQUE (lastName, firstName, fieldMode));
CREATE TABLE itemCreators (itemID ` +
    `INT NOT NULL, creatorID INT NOT NULL, creatorTypeID INT NOT NULL DEFAULT ` +
    `1, orderIndex INT NOT NULL DEFAULT 0, PRIMARY KEY (itemID, creatorID, ` +
    `creatorTypeID, orderIndex), UNIQUE (itemID, orderIndex));
CREATE TABLE ` +
    `collections (collectionID INTEGER PRIMARY KEY, collectionName TEXT NOT ` +
    `NULL, parentCollectionID INT DEFAULT NULL, clientDateModified TIMESTAMP ` +
    `NOT NULL DEFAULT CURRENT_TIMESTAMP, libraryID INT NOT NULL, key TEXT NOT ` +
    `NULL, version INT NOT NULL DEFAULT 0, ${z10 ? 'clientVersion INT NOT NULL DEFAULT 0, ' : ''}synced ` +
    `INT NOT NULL DEFAULT 0, UNIQUE (libraryID, key));
CREATE TABLE collectionItems ` +
    `(collectionID INT NOT NULL, itemID INT NOT NULL, orderIndex INT NOT NULL ` +
    `DEFAULT 0, PRIMARY KEY (collectionID, itemID));
CREATE TABLE deletedItems ` +
    `(itemID INTEGER PRIMARY KEY, dateDeleted DEFAULT CURRENT_TIMESTAMP NOT ` +
    `NULL);
${z10 ? 'CREATE TABLE deletedCollections (collectionID INTEGER PRIMARY KEY, dateDeleted DEFAULT CURRENT_TIMESTAMP NOT NULL);' : ''}`
  );
}

export interface ZoteroDb {
  dir: string;
  db: InstanceType<typeof sqlite.Database>;
  itemId(key: string): number;
  /** Sets a field of an item and marks it modified, as Zotero does on an edit. */
  setField(key: string, field: string, value: string): void;
  trash(key: string): void;
  erase(key: string): void;
  close(): void;
}

/** A Zotero data folder: zotero.sqlite (left open in WAL mode like a running Zotero 10 when `keepOpen`) and storage/. */
export function makeZoteroDataDir(
  dir: string,
  layout: Layout,
  items: LocalItem[],
  opts: { collections?: { key: string; name: string; parent?: string }[]; files?: Record<string, Uint8Array | string> } = {},
): ZoteroDb {
  mkdirSync(dir, { recursive: true });
  for (const [rel, bytes] of Object.entries(opts.files ?? {})) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), bytes);
  }
  const db = new sqlite.Database(path.join(dir, 'zotero.sqlite'));
  if (layout === 'zotero10') {
    // As Zotero 10 opens it: exclusive lock, WAL, no automatic checkpoint while the test runs.
    db.exec('PRAGMA locking_mode=EXCLUSIVE');
    db.all('PRAGMA journal_mode=WAL');
    db.exec('PRAGMA wal_autocheckpoint=0');
  }
  db.exec(ddl(layout));
  const schema = { zotero10: 129, zotero6: 120, zotero4: 77 }[layout];
  db.run("INSERT INTO version VALUES ('userdata', ?)", [schema]);
  ITEM_TYPES.forEach((t, i) => db.run('INSERT INTO itemTypes (itemTypeID, typeName) VALUES (?, ?)', [i + 1, t]));
  FIELDS.forEach((f, i) => db.run('INSERT INTO fields (fieldID, fieldName) VALUES (?, ?)', [i + 1, f]));
  const ids = new Map<string, number>();
  if (layout === 'zotero4') {
    db.run("INSERT INTO libraries VALUES (1, 'user')");
    items.forEach((it, i) =>
      db.run('INSERT INTO items (itemID, itemTypeID, libraryID, key) VALUES (?, ?, 1, ?)', [
        i + 1,
        ITEM_TYPES.indexOf(it.itemType) + 1,
        it.key,
      ]),
    );
    return { dir, db, itemId: () => 0, setField: () => undefined, trash: () => undefined, erase: () => undefined, close: () => db.close() };
  }
  db.exec(
    'INSERT INTO itemTypesCombined SELECT itemTypeID, typeName, 1, 0 FROM itemTypes; INSERT ' +
      'INTO fieldsCombined SELECT fieldID, fieldName, NULL, NULL, 0 FROM fields;',
  );
  CREATOR_TYPES.forEach((t, i) => db.run('INSERT INTO creatorTypes VALUES (?, ?)', [i + 1, t]));
  db.run("INSERT INTO libraries (libraryID, type, editable, filesEditable) VALUES (1, 'user', 1, 1)");
  const collectionIds = new Map<string, number>();
  (opts.collections ?? []).forEach((c, i) => collectionIds.set(c.key, i + 1));
  for (const c of opts.collections ?? []) {
    db.run('INSERT INTO collections (collectionID, collectionName, parentCollectionID, libraryID, key) VALUES (?, ?, ?, 1, ?)', [
      collectionIds.get(c.key)!,
      c.name,
      c.parent ? collectionIds.get(c.parent)! : null,
      c.key,
    ]);
  }
  const value = (v: string) => {
    db.run('INSERT OR IGNORE INTO itemDataValues (value) VALUES (?)', [v]);
    return Number(db.get('SELECT valueID FROM itemDataValues WHERE value = ?', [v])!.valueID);
  };
  items.forEach((it, i) => {
    const id = i + 1;
    ids.set(it.key, id);
    db.run('INSERT INTO items (itemID, itemTypeID, dateAdded, clientDateModified, libraryID, key) VALUES (?, ?, ?, ?, 1, ?)', [
      id,
      ITEM_TYPES.indexOf(it.itemType) + 1,
      '2024-01-01 00:00:00',
      it.modified ?? '2024-01-01 00:00:00',
      it.key,
    ]);
    for (const [f, v] of Object.entries(it.fields ?? {}))
      db.run('INSERT INTO itemData VALUES (?, ?, ?)', [id, FIELDS.indexOf(f) + 1, value(v)]);
    (it.creators ?? []).forEach(([first, last], n) => {
      db.run('INSERT OR IGNORE INTO creators (firstName, lastName, fieldMode) VALUES (?, ?, 0)', [first, last]);
      const cid = Number(db.get('SELECT creatorID FROM creators WHERE firstName = ? AND lastName = ?', [first, last])!.creatorID);
      db.run('INSERT INTO itemCreators VALUES (?, ?, 1, ?)', [id, cid, n]);
    });
    for (const t of it.tags ?? []) {
      db.run('INSERT OR IGNORE INTO tags (name) VALUES (?)', [t]);
      db.run('INSERT INTO itemTags SELECT ?, tagID, 0 FROM tags WHERE name = ?', [id, t]);
    }
    for (const c of it.collections ?? []) db.run('INSERT INTO collectionItems VALUES (?, ?, 0)', [collectionIds.get(c)!, id]);
    if (it.trashed) db.run('INSERT INTO deletedItems (itemID) VALUES (?)', [id]);
  });
  for (const it of items) {
    const a = it.attachment;
    if (a)
      db.run('INSERT INTO itemAttachments (itemID, parentItemID, linkMode, contentType, path) VALUES (?, ?, ?, ?, ?)', [
        ids.get(it.key)!,
        a.parent ? ids.get(a.parent)! : null,
        a.linkMode,
        a.contentType,
        a.path,
      ]);
  }
  let tick = 0;
  const touch = (id: number) =>
    db.run('UPDATE items SET clientDateModified = ? WHERE itemID = ?', [`2025-01-01 00:00:${String(++tick).padStart(2, '0')}`, id]);
  return {
    dir,
    db,
    itemId: (key) => ids.get(key)!,
    setField(key, field, v) {
      const id = ids.get(key)!;
      db.run('INSERT OR REPLACE INTO itemData VALUES (?, ?, ?)', [id, FIELDS.indexOf(field) + 1, value(v)]);
      touch(id);
    },
    trash(key) {
      db.run('INSERT INTO deletedItems (itemID) VALUES (?)', [ids.get(key)!]);
      touch(ids.get(key)!);
    },
    erase(key) {
      const id = ids.get(key)!;
      for (const t of ['itemData', 'itemCreators', 'itemTags', 'collectionItems', 'deletedItems', 'itemAttachments'])
        db.run(`DELETE FROM ${t} WHERE itemID = ?`, [id]);
      db.run('DELETE FROM items WHERE itemID = ?', [id]);
    },
    close: () => db.close(),
  };
}
