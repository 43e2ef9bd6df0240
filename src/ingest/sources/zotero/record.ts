// Zotero items as labbot documents, values in and values out: which attachment stands for a
// paper, and the metadata record its sidecar carries. Both the Web API and a local zotero.sqlite
// are read into the same item shape (the Web API's `data` object), so one set of rules serves both.
import { coerceKeywords, coerceYear, normalizeDoi } from '../../metadata/coerce.ts';

export interface ZoteroCreator {
  creatorType: string;
  firstName?: string;
  lastName?: string;
  /** Single-field names (organisations, mononyms). */
  name?: string;
}

/** The fields of a Zotero item that labbot reads (the Web API's item `data`, or the same built from zotero.sqlite). */
export interface ZoteroItem {
  key: string;
  /** What changes when the item changes: the library version of its last edit (Web API), or a local stamp. */
  stamp: string;
  itemType: string;
  title?: string;
  creators?: ZoteroCreator[];
  date?: string;
  DOI?: string;
  url?: string;
  extra?: string;
  abstractNote?: string;
  /** Journal, proceedings, book or website title, whichever the item type has. */
  container?: string;
  tags?: string[];
  collections?: string[];
  /** In the trash. */
  trashed?: boolean;
  parentItem?: string;
  linkMode?: string;
  contentType?: string;
  filename?: string;
  /** MD5 of the stored file as Zotero recorded it; absent for links. */
  md5?: string;
  dateAdded?: string;
  /** The item's page on zotero.org (Web API `links.alternate`). */
  alternate?: string;
  /** Local libraries: the stored file's path below storage/<key>/ (from "storage:<file>"). */
  storageFile?: string;
}

export interface ZoteroCollection {
  key: string;
  name: string;
  parent?: string;
}

/** Item types that are never documents of their own. */
const NOT_PARENTS = new Set(['attachment', 'note', 'annotation']);
const STORED = new Set(['imported_file', 'imported_url']);

export const isAttachment = (i: ZoteroItem) => i.itemType === 'attachment';
/** A regular item, or an attachment with no parent (a PDF dropped into Zotero on its own). */
export const isTopLevel = (i: ZoteroItem) => !i.parentItem && (!NOT_PARENTS.has(i.itemType) || isAttachment(i));
export const isPdf = (i: ZoteroItem) => isAttachment(i) && (i.contentType ?? '').toLowerCase() === 'application/pdf';
export const isStored = (i: ZoteroItem) => STORED.has(i.linkMode ?? '');

/**
 * The attachments that may stand for an item, best first: PDFs before other files, files Zotero
 * stores (and so can hand over) before linked ones, then the oldest, as Zotero's own "best
 * attachment" prefers the first PDF added. A standalone attachment stands for itself.
 */
export function candidateAttachments(parent: ZoteroItem, children: ZoteroItem[]): ZoteroItem[] {
  if (isAttachment(parent)) return parent.trashed ? [] : [parent];
  const rank = (a: ZoteroItem) => (isPdf(a) ? 0 : 2) + (isStored(a) ? 0 : 1);
  return children
    .filter((c) => isAttachment(c) && !c.trashed && c.linkMode !== 'linked_url' && c.linkMode !== 'embedded_image')
    .sort((a, b) => rank(a) - rank(b) || (a.dateAdded ?? '').localeCompare(b.dateAdded ?? '') || a.key.localeCompare(b.key));
}

/** A year from Zotero's `date`: free text on the Web API ("Spring 2019"), "2019-00-00 Spring 2019" in zotero.sqlite. */
export function zoteroYear(date: string | undefined): number | undefined {
  if (!date) return undefined;
  const multipart = /^(\d{4})-\d{2}-\d{2}(?: (.*))?$/.exec(date.trim());
  if (multipart) return multipart[1] !== '0000' ? coerceYear(multipart[1]) : coerceYear(multipart[2] ?? '');
  return coerceYear(date);
}

function creatorName(c: ZoteroCreator): string {
  const n = c.name ?? [c.firstName, c.lastName].filter((p) => p?.trim()).join(' ');
  return n.replace(/\s+/g, ' ').trim();
}

/** Authors, or when an item has none the creators of its first listed role (editors of a book, presenters). */
export function itemAuthors(item: ZoteroItem): string[] {
  const creators = item.creators ?? [];
  const authors = creators.filter((c) => c.creatorType === 'author');
  const chosen = authors.length ? authors : creators.filter((c) => c.creatorType === creators[0]?.creatorType);
  return chosen.map(creatorName).filter(Boolean);
}

/** A DOI from the DOI field, or the "DOI: 10.x/y" line Zotero puts in `extra` for item types without one. */
export function itemDoi(item: ZoteroItem): string | undefined {
  const own = item.DOI ? normalizeDoi(item.DOI) : undefined;
  if (own) return own;
  const line = /^\s*DOI:\s*(\S+)\s*$/im.exec(item.extra ?? '');
  return line ? normalizeDoi(line[1]) : undefined;
}

const httpUrl = (u: string | undefined) => (u && /^https?:\/\/\S+$/i.test(u.trim()) && URL.canParse(u.trim()) ? u.trim() : undefined);

/** Names of the collections an item is in, with the collections they sit in ("Zebrafish", "Zebrafish / Fins"). */
export function collectionNames(item: ZoteroItem, collections: Map<string, ZoteroCollection>): string[] {
  const out = new Set<string>();
  for (const key of item.collections ?? []) {
    const seen = new Set<string>();
    for (let c = collections.get(key); c && !seen.has(c.key); c = c.parent ? collections.get(c.parent) : undefined) {
      seen.add(c.key);
      out.add(c.name);
    }
  }
  return [...out];
}

/** Collection keys at or below `root`. */
export function collectionScope(root: string, collections: Map<string, ZoteroCollection>): Set<string> {
  const scope = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const c of collections.values()) {
      if (c.parent && scope.has(c.parent) && !scope.has(c.key)) {
        scope.add(c.key);
        grew = true;
      }
    }
  }
  return scope;
}

/** The metadata a mirrored document's sidecar carries: what Zotero says, and nothing guessed. */
export interface ZoteroRecord {
  title?: string;
  authors?: string[];
  year?: number;
  journal?: string;
  doi?: string;
  url?: string;
  keywords?: string[];
  /** Zotero holds a bibliographic record for the item: nothing inferred fills its gaps. */
  complete: boolean;
  zotero: { key: string; itemType: string };
}

/**
 * A regular item's record is complete: what Zotero lacks stays empty. A standalone attachment has
 * no bibliographic record (its title is usually the file name), so it names only its tags and
 * collections and leaves the rest to the file's own metadata.
 */
export function itemRecord(item: ZoteroItem, collections: Map<string, ZoteroCollection>): ZoteroRecord {
  const keywords = coerceKeywords([...(item.tags ?? []), ...collectionNames(item, collections)]) ?? [];
  const base = { keywords: keywords.length ? keywords : undefined, zotero: { key: item.key, itemType: item.itemType } };
  if (isAttachment(item)) return { ...base, url: httpUrl(item.url) ?? httpUrl(item.alternate), complete: false };
  const doi = itemDoi(item);
  const authors = itemAuthors(item);
  return {
    ...base,
    title: item.title?.replace(/\s+/g, ' ').trim() || undefined,
    authors: authors.length ? authors : undefined,
    year: zoteroYear(item.date),
    journal: item.container?.replace(/\s+/g, ' ').trim() || undefined,
    doi,
    // The item's own URL, else (with a DOI) the resolver link the pipeline derives, else the item on zotero.org.
    url: httpUrl(item.url) ?? (doi ? undefined : httpUrl(item.alternate)),
    complete: true,
  };
}

/** The text document of an item with no file Zotero can hand over: its title and abstract. */
export function abstractText(item: ZoteroItem): string | undefined {
  const parts = [item.title, item.abstractNote].map((p) => p?.trim()).filter((p): p is string => Boolean(p));
  return parts.length ? `${parts.join('\n\n')}\n` : undefined;
}
