// A Zotero Web API v3 on 127.0.0.1, as strict as the real one where a client can go wrong
// (checked against the API documentation and the dataserver's own parameter handling):
// - the API key is required (Zotero-API-Key or Authorization: Bearer), else 403;
// - `limit` is 1-100 (more is cut to 100, as the server does; default 25), `start` pages, with
//   Total-Results and Link headers; `itemKey` takes at most 50 keys (the documented limit);
// - format=versions has no limit; `since` must be a number; `deleted` needs `since`, and answers
//   409 when `since` is older than the start of its delete log;
// - Last-Modified-Version on every library response, 304 for If-Modified-Since-Version when the
//   library has not changed; trashed items only with includeTrashed=1;
// - items/<key>/file redirects (302) to a storage server on another port, which records any
//   request that carries the API key; 404 when no file is stored, 400 for a non-attachment;
// - 429 with Retry-After and Backoff headers on demand; a request sent before such a wait is
//   over is recorded as a violation (and refused again with 429);
// - requests in flight at once are counted (each response can be delayed).
import { createHash } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeItemData {
  key: string;
  itemType: string;
  title?: string;
  creators?: { creatorType: string; firstName?: string; lastName?: string; name?: string }[];
  date?: string;
  DOI?: string;
  url?: string;
  abstractNote?: string;
  publicationTitle?: string;
  tags?: { tag: string; type?: number }[];
  collections?: string[];
  parentItem?: string;
  linkMode?: string;
  contentType?: string;
  filename?: string;
  md5?: string | null;
  dateAdded?: string;
  deleted?: number;
  [field: string]: unknown;
}

interface StoredItem {
  version: number;
  data: FakeItemData;
}

export interface RequestLog {
  path: string;
  query: Record<string, string>;
  status: number;
  at: number;
}

export interface FakeZotero {
  url: string;
  storageUrl: string;
  library: string;
  readonly version: number;
  requests: RequestLog[];
  /** Requests the storage host received that carried the API key or an Authorization header. */
  keyLeaks: string[];
  /** Requests sent while a Retry-After or Backoff wait was still running. */
  violations: RequestLog[];
  maxInFlight: number;
  /** Adds or replaces items (one write: one new library version). */
  put(items: FakeItemData[]): number;
  /** Changes fields of an item (a new version). */
  edit(key: string, patch: Partial<FakeItemData>): number;
  /** Removes items for good (recorded in the delete log). */
  remove(keys: string[]): number;
  trash(key: string): number;
  setFile(attachmentKey: string, bytes: Uint8Array): void;
  setFulltext(attachmentKey: string, content: string): void;
  putCollection(key: string, name: string, parent?: string): number;
  /** The delete log now starts at the current version: an older `since` gets 409. */
  purgeDeleteLog(): void;
  /** The next `n` API requests are answered 429 with this Retry-After (seconds; undefined: none). */
  rateLimit(n: number, retryAfter?: number): void;
  /** The next response carries `Backoff: seconds`. */
  backoff(seconds: number): void;
  /** The storage host answers 500 for this attachment's file the next `n` times. */
  failStorage(attachmentKey: string, n: number): void;
  /** Delay before each response, so concurrency can be seen. */
  delayMs: number;
  resetLog(): void;
  close(): Promise<void>;
}

const md5 = (b: Uint8Array) => createHash('md5').update(b).digest('hex');
const KEY = /^[23456789ABCDEFGHIJKLMNPQRSTUVWXYZ]{8}$/;

export async function startFakeZotero(opts: { library?: string; apiKey?: string } = {}): Promise<FakeZotero> {
  const library = opts.library ?? 'groups/4711';
  const apiKey = opts.apiKey ?? 'fake-zotero-key-0123456789';
  let version = 1;
  let deleteLogStart = 0;
  const items = new Map<string, StoredItem>();
  const collections = new Map<string, { version: number; name: string; parent?: string }>();
  const deleteLog: { key: string; version: number; kind: 'items' | 'collections' }[] = [];
  const files = new Map<string, { bytes: Uint8Array; md5: string }>();
  const fulltexts = new Map<string, string>();
  const tokens = new Map<string, string>();
  let limited: { n: number; retryAfter?: number } = { n: 0 };
  let backoffNext: number | undefined;
  let waitUntil = 0;
  let inFlight = 0;
  const storageFailures = new Map<string, number>();

  const fake: FakeZotero = {
    url: '',
    storageUrl: '',
    library,
    get version() {
      return version;
    },
    requests: [],
    keyLeaks: [],
    violations: [],
    maxInFlight: 0,
    delayMs: 0,
    put(list) {
      version += 1;
      for (const d of list) items.set(d.key, { version, data: { ...d } });
      return version;
    },
    edit(key, patch) {
      const it = items.get(key);
      if (!it) throw new Error(`no item ${key}`);
      version += 1;
      items.set(key, { version, data: { ...it.data, ...patch } });
      return version;
    },
    remove(keys) {
      version += 1;
      for (const k of keys) {
        items.delete(k);
        deleteLog.push({ key: k, version, kind: 'items' });
      }
      return version;
    },
    trash(key) {
      return fake.edit(key, { deleted: 1 });
    },
    setFile(key, bytes) {
      files.set(key, { bytes, md5: md5(bytes) });
      const it = items.get(key);
      if (it) fake.edit(key, { md5: md5(bytes), mtime: Date.now() });
    },
    setFulltext(key, content) {
      fulltexts.set(key, content);
    },
    putCollection(key, name, parent) {
      version += 1;
      collections.set(key, { version, name, parent });
      return version;
    },
    purgeDeleteLog() {
      deleteLogStart = version;
    },
    rateLimit(n, retryAfter) {
      limited = { n, retryAfter };
    },
    backoff(seconds) {
      backoffNext = seconds;
    },
    failStorage(key, n) {
      storageFailures.set(key, n);
    },
    resetLog() {
      fake.requests.length = 0;
      fake.violations.length = 0;
      fake.keyLeaks.length = 0;
      fake.maxInFlight = 0;
    },
    close: async () => {
      await Promise.all([new Promise((r) => api.close(r)), new Promise((r) => storage.close(r))]);
    },
  };

  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', 'last-modified-version': String(version), ...headers });
    res.end(JSON.stringify(body));
  };
  const fail = (res: ServerResponse, status: number, message: string) => {
    res.writeHead(status, { 'content-type': 'text/plain' });
    res.end(message);
  };

  const apiItem = (key: string, it: StoredItem) => ({
    key,
    version: it.version,
    library: { type: library.startsWith('groups') ? 'group' : 'user', id: Number(library.split('/')[1]), name: 'Lab library' },
    links: {
      self: { href: `${fake.url}/${library}/items/${key}`, type: 'application/json' },
      alternate: { href: `https://www.zotero.org/${library}/items/${key}`, type: 'text/html' },
    },
    meta: {},
    data: { ...it.data, version: it.version },
  });

  /** Paging as the API does it: limit 1-100 (default 25, more is cut to 100), start, Total-Results, Link. */
  function page<T>(res: ServerResponse, q: Record<string, string>, all: T[], forcedLimit?: number) {
    const asked = q.limit === undefined ? 25 : Number.parseInt(q.limit, 10);
    const limit = forcedLimit ?? (Number.isFinite(asked) && asked > 0 ? Math.min(asked, 100) : 25);
    const start = Math.max(0, Number.parseInt(q.start ?? '0', 10) || 0);
    const slice = all.slice(start, start + limit);
    const headers: Record<string, string> = { 'total-results': String(all.length) };
    if (start + limit < all.length) headers.link = `<${fake.url}/${library}/items?limit=${limit}&start=${start + limit}>; rel="next"`;
    json(res, 200, slice, headers);
  }

  function handleItems(req: IncomingMessage, res: ServerResponse, q: Record<string, string>) {
    const format = q.format ?? 'json';
    if (!['json', 'versions', 'keys'].includes(format)) return fail(res, 400, `Invalid 'format' value '${format}'`);
    if (q.since !== undefined && !/^\d+$/.test(q.since)) return fail(res, 400, "Invalid value for 'since' parameter");
    const ims = req.headers['if-modified-since-version'];
    if (typeof ims === 'string' && /^\d+$/.test(ims) && version <= Number(ims)) {
      res.writeHead(304, { 'last-modified-version': String(version) });
      return res.end();
    }
    let list = [...items.entries()];
    if (q.includeTrashed !== '1') list = list.filter(([, it]) => !it.data.deleted);
    if (q.since !== undefined) list = list.filter(([, it]) => it.version > Number(q.since));
    let forced: number | undefined;
    if (q.itemKey !== undefined) {
      const keys = q.itemKey.split(',').filter(Boolean);
      if (keys.length > 50) return fail(res, 400, 'Cannot request more than 50 items by key');
      const wanted = new Set(keys.filter((k) => KEY.test(k)));
      list = list.filter(([k]) => wanted.has(k));
      forced = 100;
    }
    list.sort((a, b) => b[1].version - a[1].version || a[0].localeCompare(b[0]));
    if (format === 'versions') return json(res, 200, Object.fromEntries(list.map(([k, it]) => [k, it.version])));
    if (format === 'keys') {
      res.writeHead(200, { 'content-type': 'text/plain', 'last-modified-version': String(version) });
      return res.end(list.map(([k]) => k).join('\n'));
    }
    return page(
      res,
      q,
      list.map(([k, it]) => apiItem(k, it)),
      forced,
    );
  }

  function handleCollections(res: ServerResponse, q: Record<string, string>) {
    if (q.since !== undefined && !/^\d+$/.test(q.since)) return fail(res, 400, "Invalid value for 'since' parameter");
    const list = [...collections.entries()].filter(([, c]) => q.since === undefined || c.version > Number(q.since));
    if (q.format === 'versions') return json(res, 200, Object.fromEntries(list.map(([k, c]) => [k, c.version])));
    return page(
      res,
      q,
      list.map(([key, c]) => ({
        key,
        version: c.version,
        data: { key, version: c.version, name: c.name, parentCollection: c.parent ?? false },
      })),
    );
  }

  function route(req: IncomingMessage, res: ServerResponse, url: URL) {
    const q = Object.fromEntries(url.searchParams);
    const prefix = `/${library}`;
    if (!url.pathname.startsWith(`${prefix}/`)) return fail(res, 404, 'Not found');
    const rest = url.pathname.slice(prefix.length);
    if (rest === '/items' || rest === '/items/top') return handleItems(req, res, q);
    if (rest === '/collections') return handleCollections(res, q);
    if (rest === '/deleted') {
      if (q.since === undefined) return fail(res, 400, "'since' parameter must be provided");
      if (!/^\d+$/.test(q.since)) return fail(res, 400, "Invalid value for 'since' parameter");
      if (Number(q.since) < deleteLogStart) return fail(res, 409, "'since' value is earlier than the beginning of the delete log");
      const since = Number(q.since);
      const of = (kind: 'items' | 'collections') => deleteLog.filter((d) => d.kind === kind && d.version > since).map((d) => d.key);
      return json(res, 200, { collections: of('collections'), items: of('items'), searches: [], tags: [], settings: [] });
    }
    const m = /^\/items\/([A-Z0-9]{8})\/(file|fulltext)$/.exec(rest);
    if (m) {
      const it = items.get(m[1]);
      if (!it) return fail(res, 404, 'Item not found');
      if (m[2] === 'fulltext') {
        const ft = fulltexts.get(m[1]);
        return ft === undefined ? fail(res, 404, 'Not found') : json(res, 200, { content: ft, indexedPages: 1, totalPages: 1 });
      }
      if (it.data.itemType !== 'attachment') return fail(res, 400, 'Item is not an attachment');
      const f = files.get(m[1]);
      if (!f) return fail(res, 404, 'Not found');
      const token = createHash('sha1').update(`${m[1]}:${Math.random()}`).digest('hex');
      tokens.set(token, m[1]);
      res.writeHead(302, {
        location: `${fake.storageUrl}/${token}?signature=abc`,
        'zotero-file-md5': f.md5,
        'zotero-file-size': String(f.bytes.length),
        'zotero-file-compressed': 'No',
      });
      return res.end();
    }
    return fail(res, 404, 'Not found');
  }

  const api = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const log: RequestLog = { path: url.pathname, query: Object.fromEntries(url.searchParams), status: 0, at: Date.now() };
    fake.requests.push(log);
    inFlight += 1;
    fake.maxInFlight = Math.max(fake.maxInFlight, inFlight);
    res.on('finish', () => {
      log.status = res.statusCode;
      inFlight -= 1;
    });
    setTimeout(() => {
      if (Date.now() < waitUntil) {
        fake.violations.push(log);
        res.writeHead(429, { 'retry-after': String(Math.ceil((waitUntil - Date.now()) / 1000)) });
        return res.end();
      }
      const key = req.headers['zotero-api-key'] ?? /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (key !== apiKey) return fail(res, 403, 'Forbidden');
      if (req.headers['zotero-api-version'] !== '3') return fail(res, 400, 'this fake wants Zotero-API-Version: 3');
      if (limited.n > 0) {
        limited.n -= 1;
        if (limited.retryAfter !== undefined) waitUntil = Date.now() + limited.retryAfter * 1000;
        res.writeHead(429, limited.retryAfter !== undefined ? { 'retry-after': String(limited.retryAfter) } : {});
        return res.end('Too many requests');
      }
      if (backoffNext !== undefined) {
        res.setHeader('backoff', String(backoffNext));
        waitUntil = Date.now() + backoffNext * 1000;
        backoffNext = undefined;
      }
      route(req, res, url);
    }, fake.delayMs);
  });

  const storage = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.headers['zotero-api-key'] || req.headers.authorization) fake.keyLeaks.push(url.pathname);
    const key = tokens.get(url.pathname.slice(1));
    const f = key ? files.get(key) : undefined;
    if (key && (storageFailures.get(key) ?? 0) > 0) {
      storageFailures.set(key, storageFailures.get(key)! - 1);
      res.writeHead(500);
      return res.end('Internal error');
    }
    if (!f) {
      res.writeHead(403);
      return res.end('Request has expired');
    }
    res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': String(f.bytes.length) });
    res.end(Buffer.from(f.bytes));
  });

  await Promise.all([
    new Promise<void>((r) => api.listen(0, '127.0.0.1', () => r())),
    new Promise<void>((r) => storage.listen(0, '127.0.0.1', () => r())),
  ]);
  fake.url = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  // Another origin than the API's (another host name and port), as the real storage host is.
  fake.storageUrl = `http://localhost:${(storage.address() as AddressInfo).port}`;
  return fake;
}

/** A journal article with authors, a date, a DOI and tags, as the Zotero web library holds one. */
export function articleItem(
  key: string,
  o: {
    title: string;
    authors: [string, string][];
    date: string;
    doi?: string;
    journal?: string;
    tags?: string[];
    collections?: string[];
    abstract?: string;
  },
): FakeItemData {
  return {
    key,
    itemType: 'journalArticle',
    title: o.title,
    creators: o.authors.map(([firstName, lastName]) => ({ creatorType: 'author', firstName, lastName })),
    date: o.date,
    DOI: o.doi ?? '',
    publicationTitle: o.journal ?? '',
    abstractNote: o.abstract ?? '',
    url: '',
    tags: (o.tags ?? []).map((tag) => ({ tag })),
    collections: o.collections ?? [],
    relations: {},
    dateAdded: '2024-01-01T00:00:00Z',
    dateModified: '2024-01-01T00:00:00Z',
  };
}

export function pdfAttachment(
  key: string,
  parent: string | undefined,
  o: { title?: string; filename?: string; linkMode?: string; dateAdded?: string } = {},
): FakeItemData {
  return {
    key,
    itemType: 'attachment',
    ...(parent ? { parentItem: parent } : {}),
    linkMode: o.linkMode ?? 'imported_file',
    title: o.title ?? 'Full Text PDF',
    contentType: 'application/pdf',
    filename: o.filename ?? `${key}.pdf`,
    md5: null,
    tags: [],
    collections: [],
    dateAdded: o.dateAdded ?? '2024-01-01T00:00:00Z',
  };
}

const KEY_ALPHABET = '23456789ABCDEFGHIJKLMNPQRSTUVWXYZ';
/** The n-th valid Zotero item key with a one-letter tag ("P" for items, "A" for attachments): 8 characters of Zotero's alphabet. */
export function zoteroKey(n: number, tag: string): string {
  let s = '';
  for (let i = 0, x = n; i < 7; i++, x = Math.floor(x / KEY_ALPHABET.length)) s += KEY_ALPHABET[x % KEY_ALPHABET.length];
  return `${tag}${s}`;
}
