// What the mirror needs from a Zotero library, whether it is read over the Web API or from a
// local zotero.sqlite.
import type { ZoteroCollection, ZoteroItem } from './record.ts';

export interface LibraryChanges {
  /** The library's version now: what the next sync asks for changes since. */
  version: string;
  /** Items added or changed (every item whose stamp differs from the one the mirror knows). */
  changed: ZoteroItem[];
  /** Keys of items gone from the library. */
  deleted: string[];
  /** Every collection, when collections may have changed (else undefined). */
  collections?: ZoteroCollection[];
  /** The library was listed in full (no usable version to ask from, or it was too old). */
  listedInFull: boolean;
}

export type FileResult = { bytes: Uint8Array } | { absent: string };

export interface ZoteroLibrary {
  /** Who the library is, as stored in the mirror's manifest: a mirror of another library is not reused. */
  readonly identity: string;
  /**
   * What changed since `since` (undefined: everything). `known` maps the keys the mirror holds to
   * their stamps, so unchanged items are not fetched again. 'unchanged' when nothing changed.
   */
  changes(since: string | undefined, known: Map<string, string>): Promise<LibraryChanges | 'unchanged'>;
  /** The file Zotero stores for an attachment. */
  file(attachment: ZoteroItem, maxBytes: number): Promise<FileResult>;
  /** Zotero's own extracted text of an attachment, when it has one. */
  fulltext(attachment: ZoteroItem): Promise<string | undefined>;
  /** Requests made so far (Web API); for the sync's report. */
  readonly requests?: number;
  close?(): Promise<void>;
}

/** A per-item failure that must not stop the sync (a file that cannot be downloaded, or is too large). */
export class ItemError extends Error {
  constructor(
    message: string,
    /** Worth trying again at the next sync (a network or server error), or not until the item changes. */
    readonly retry: boolean,
  ) {
    super(message);
  }
}
