// A Zotero library over the Web API v3, synced the way Zotero's own client does it: the versions
// of items changed since the last library version (304 when nothing changed), then those items by
// key, 50 at a time, and the delete log since that version (409 when the log no longer reaches
// back that far: then everything is listed and compared). Files come from items/<key>/file, which
// redirects to a storage host; text from items/<key>/fulltext.
import { createHash } from 'node:crypto';
import { createZoteroHttp, ZoteroHttpError, type ZoteroHttp, type ZoteroHttpOptions } from './http.ts';
import { ItemError, type LibraryChanges, type ZoteroLibrary } from './library.ts';
import type { ZoteroCollection, ZoteroCreator, ZoteroItem } from './record.ts';

/** The API's documented limit for `itemKey` (the server itself takes up to 100). */
export const ITEM_KEYS_PER_REQUEST = 50;
/** The API's largest page (`limit` 1-100). */
export const PAGE_LIMIT = 100;

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

type Json = Record<string, unknown>;
const str = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

/** An item of the API's JSON (`{key, version, links, data}`) in the shape the mirror reads. */
export function itemFromApi(raw: unknown): ZoteroItem | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const r = raw as Json;
  const d = (r.data ?? {}) as Json;
  const key = str(d.key) ?? str(r.key);
  if (!key || typeof d.itemType !== 'string') return undefined;
  const links = (r.links ?? {}) as Json;
  const alternate = str(((links.alternate ?? {}) as Json).href);
  const creators = Array.isArray(d.creators)
    ? (d.creators as Json[])
        .filter((c) => c && typeof c === 'object')
        .map(
          (c): ZoteroCreator => ({
            creatorType: str(c.creatorType) ?? 'author',
            firstName: str(c.firstName),
            lastName: str(c.lastName),
            name: str(c.name),
          }),
        )
    : undefined;
  const tags = Array.isArray(d.tags) ? (d.tags as Json[]).map((t) => str(t?.tag)).filter((t): t is string => Boolean(t)) : undefined;
  const collections = Array.isArray(d.collections)
    ? (d.collections as unknown[]).filter((c): c is string => typeof c === 'string')
    : undefined;
  return {
    key,
    stamp: String(d.version ?? r.version ?? ''),
    itemType: d.itemType,
    title: str(d.title),
    creators,
    date: str(d.date),
    DOI: str(d.DOI),
    url: str(d.url),
    extra: str(d.extra),
    abstractNote: str(d.abstractNote),
    container: CONTAINER_FIELDS.map((f) => str(d[f])).find(Boolean),
    tags,
    collections,
    trashed: d.deleted === true || d.deleted === 1 || d.deleted === '1',
    parentItem: str(d.parentItem),
    linkMode: str(d.linkMode),
    contentType: str(d.contentType),
    filename: str(d.filename),
    md5: str(d.md5),
    dateAdded: str(d.dateAdded),
    alternate,
  };
}

function parseJson(body: Buffer, what: string): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new ZoteroHttpError(`Zotero API sent ${what} that is not JSON`, 200);
  }
}

function versionsOf(body: Buffer): Map<string, string> {
  const v = parseJson(body, 'item versions');
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new ZoteroHttpError('Zotero API sent item versions that are not an object', 200);
  return new Map(Object.entries(v as Json).map(([k, n]) => [k, String(n)]));
}

function libraryVersion(res: { headers: Headers }): string {
  const v = res.headers.get('last-modified-version');
  if (!v || !/^\d+$/.test(v)) throw new ZoteroHttpError('Zotero API response has no Last-Modified-Version', 200);
  return v;
}

export interface WebLibraryOptions extends Pick<ZoteroHttpOptions, 'fetch' | 'onWait' | 'maxWaitMs'> {
  apiUrl: string;
  library: string;
  apiKey?: string;
}

export function openWebLibrary(opts: WebLibraryOptions): ZoteroLibrary {
  const http: ZoteroHttp = createZoteroHttp({
    apiUrl: opts.apiUrl,
    apiKey: opts.apiKey,
    fetch: opts.fetch,
    onWait: opts.onWait,
    maxWaitMs: opts.maxWaitMs,
  });
  const prefix = `/${opts.library}`;

  async function pages(pathAndQuery: string): Promise<unknown[]> {
    const out: unknown[] = [];
    for (let start = 0; ; start += PAGE_LIMIT) {
      const res = await http.get(`${pathAndQuery}${pathAndQuery.includes('?') ? '&' : '?'}limit=${PAGE_LIMIT}&start=${start}`);
      const page = parseJson(res.body, 'a page');
      if (!Array.isArray(page)) throw new ZoteroHttpError('Zotero API sent a page that is not a list', 200);
      out.push(...page);
      const total = Number(res.headers.get('total-results') ?? NaN);
      if (page.length < PAGE_LIMIT || (Number.isFinite(total) && out.length >= total)) return out;
    }
  }

  async function collections(): Promise<ZoteroCollection[]> {
    return (await pages(`${prefix}/collections`)).flatMap((raw) => {
      const d = ((raw as Json)?.data ?? {}) as Json;
      const key = str(d.key);
      return key ? [{ key, name: str(d.name) ?? key, parent: str(d.parentCollection) }] : [];
    });
  }

  async function itemsByKey(keys: string[]): Promise<ZoteroItem[]> {
    const batches: string[][] = [];
    for (let i = 0; i < keys.length; i += ITEM_KEYS_PER_REQUEST) batches.push(keys.slice(i, i + ITEM_KEYS_PER_REQUEST));
    // The HTTP layer keeps at most 4 in flight.
    const got = await Promise.all(
      batches.map(async (b) => {
        const res = await http.get(`${prefix}/items?itemKey=${b.join(',')}&includeTrashed=1&limit=${ITEM_KEYS_PER_REQUEST}`);
        const list = parseJson(res.body, 'items');
        if (!Array.isArray(list)) throw new ZoteroHttpError('Zotero API sent items that are not a list', 200);
        return list.map(itemFromApi).filter((i): i is ZoteroItem => Boolean(i));
      }),
    );
    return got.flat();
  }

  return {
    identity: `zotero-web:${createHash('sha256').update(`${opts.apiUrl}\u0000${opts.library}`).digest('hex').slice(0, 24)}:${opts.library}`,
    get requests() {
      return http.requests;
    },
    async changes(since, known): Promise<LibraryChanges | 'unchanged'> {
      let versions: Map<string, string>;
      let version: string;
      let deleted: string[] | undefined;
      let collectionsChanged = true;
      if (since !== undefined && /^\d+$/.test(since)) {
        const res = await http.get(`${prefix}/items?since=${since}&format=versions&includeTrashed=1`, {
          headers: { 'If-Modified-Since-Version': since },
          okStatuses: [304],
        });
        if (res.status === 304) return 'unchanged';
        versions = versionsOf(res.body);
        version = libraryVersion(res);
        const del = await http.get(`${prefix}/deleted?since=${since}`, { okStatuses: [409] });
        if (del.status !== 409) {
          const d = parseJson(del.body, 'the delete log') as { items?: unknown; collections?: unknown };
          deleted = Array.isArray(d.items) ? d.items.filter((k): k is string => typeof k === 'string') : [];
          const deletedCollections = Array.isArray(d.collections) ? d.collections.length : 0;
          const changedCollections = versionsOf((await http.get(`${prefix}/collections?since=${since}&format=versions`)).body);
          collectionsChanged = deletedCollections > 0 || changedCollections.size > 0;
        }
      }
      const listedInFull = deleted === undefined;
      if (deleted === undefined) {
        // No version to start from, or the delete log no longer reaches back to it: list every
        // item's version; whatever the mirror holds that is not listed was deleted.
        const res = await http.get(`${prefix}/items?format=versions&includeTrashed=1`);
        versions = versionsOf(res.body);
        version = libraryVersion(res);
        deleted = [...known.keys()].filter((k) => !versions.has(k));
      }
      const wanted = [...versions!].filter(([k, v]) => known.get(k) !== v).map(([k]) => k);
      const changed = await itemsByKey(wanted);
      return {
        version: version!,
        changed,
        deleted,
        collections: collectionsChanged ? await collections() : undefined,
        listedInFull,
      };
    },
    async file(att, maxBytes) {
      let res: Awaited<ReturnType<ZoteroHttp['get']>>;
      try {
        res = await http.get(`${prefix}/items/${att.key}/file`, { okStatuses: [404], maxBytes });
      } catch (err) {
        const e = err as ZoteroHttpError;
        if (e.status === 413) throw new ItemError(e.message, false);
        // A storage host that fails for one file must not fail the whole library.
        if (e.status === 0 || e.status >= 500 || e.status === 403) throw new ItemError(`download failed: ${e.message}`, true);
        throw err;
      }
      if (res.status === 404) return { absent: 'the file is not stored on zotero.org' };
      if (/^yes$/i.test(res.headers.get('zotero-file-compressed') ?? ''))
        return { absent: 'the file is stored compressed, which is not read' };
      const expected = res.headers.get('zotero-file-md5') ?? att.md5;
      if (expected && createHash('md5').update(res.body).digest('hex') !== expected.toLowerCase()) {
        throw new ItemError(`downloaded file does not match its MD5 (${expected})`, true);
      }
      return { bytes: res.body };
    },
    async fulltext(att) {
      const res = await http.get(`${prefix}/items/${att.key}/fulltext`, { okStatuses: [404] });
      if (res.status === 404) return undefined;
      const ft = parseJson(res.body, 'full text') as { content?: unknown };
      return typeof ft.content === 'string' && ft.content.trim() ? ft.content : undefined;
    },
  };
}
