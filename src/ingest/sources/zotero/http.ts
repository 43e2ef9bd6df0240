// HTTP to the Zotero Web API v3 as its documentation asks of a client: the API version header,
// the key in a header (and only ever to the API's own host: file downloads are redirected to a
// storage host), at most 4 requests in flight, `Backoff` and `Retry-After` obeyed for every
// request at once, 429 and 503 retried after the wait they name. Written by hand because the
// JavaScript clients for this API (zotero-api-client) leave throttling and redirects to the caller.

export class ZoteroHttpError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

export interface ZoteroResponse {
  status: number;
  headers: Headers;
  body: Buffer;
}

export interface ZoteroHttpOptions {
  /** Base URL of the API, e.g. https://api.zotero.org. */
  apiUrl: string;
  apiKey?: string;
  /** Requests in flight at once (the API asks for no more than 4). */
  maxInFlight?: number;
  /** Longest total wait for one request across 429/503 retries before it fails. */
  maxWaitMs?: number;
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** Called before each wait the server asked for, with its reason. */
  onWait?: (ms: number, why: string) => void;
}

export interface ZoteroHttp {
  /** GET a path below the API root ("/groups/1/items?..."); follows redirects, never sending the key off the API's host. */
  get(pathAndQuery: string, opts?: { headers?: Record<string, string>; maxBytes?: number; okStatuses?: number[] }): Promise<ZoteroResponse>;
  /** Requests sent, redirects and retries included. */
  readonly requests: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Seconds in a Backoff or Retry-After header (an integer, or an HTTP date for Retry-After). */
export function waitSeconds(value: string | null): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - Date.now()) / 1000);
}

class TooLarge extends Error {}

async function readCapped(res: Response, maxBytes: number | undefined): Promise<Buffer> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (maxBytes !== undefined && declared > maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    throw new TooLarge(`${declared} bytes`);
  }
  if (!res.body) return Buffer.alloc(0);
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    size += chunk.byteLength;
    if (maxBytes !== undefined && size > maxBytes) throw new TooLarge(`over ${maxBytes} bytes`);
    parts.push(Buffer.from(chunk));
  }
  return Buffer.concat(parts);
}

export function createZoteroHttp(opts: ZoteroHttpOptions): ZoteroHttp {
  const api = new URL(opts.apiUrl.endsWith('/') ? opts.apiUrl : `${opts.apiUrl}/`);
  const doFetch = opts.fetch ?? fetch;
  const maxInFlight = opts.maxInFlight ?? 4;
  const maxWaitMs = opts.maxWaitMs ?? 15 * 60_000;
  const timeoutMs = opts.timeoutMs ?? 120_000;
  let inFlight = 0;
  const queue: (() => void)[] = [];
  // One pause for every request: a Backoff or Retry-After seen on any response holds them all.
  let pausedUntil = 0;
  let requests = 0;

  const acquire = async () => {
    if (inFlight >= maxInFlight) await new Promise<void>((r) => queue.push(r));
    inFlight += 1;
  };
  const release = () => {
    inFlight -= 1;
    queue.shift()?.();
  };
  const pause = (seconds: number, why: string) => {
    const until = Date.now() + seconds * 1000;
    if (until > pausedUntil) {
      pausedUntil = until;
      opts.onWait?.(seconds * 1000, why);
    }
  };

  async function once(
    url: URL,
    headers: Record<string, string>,
    maxBytes: number | undefined,
  ): Promise<ZoteroResponse & { location?: URL }> {
    await acquire();
    try {
      while (Date.now() < pausedUntil) await sleep(pausedUntil - Date.now());
      requests += 1;
      const sameHost = url.origin === api.origin;
      const h: Record<string, string> = { ...(sameHost ? { 'Zotero-API-Version': '3', ...headers } : {}) };
      if (sameHost && opts.apiKey) h['Zotero-API-Key'] = opts.apiKey;
      const res = await doFetch(url, { headers: h, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
      const backoff = waitSeconds(res.headers.get('backoff'));
      if (backoff) pause(backoff, 'Backoff');
      const loc = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && loc) {
        await res.body?.cancel().catch(() => undefined);
        return { status: res.status, headers: res.headers, body: Buffer.alloc(0), location: new URL(loc, url) };
      }
      const ok = res.status >= 200 && res.status < 300;
      const body = ok ? await readCapped(res, maxBytes) : await readCapped(res, 64 * 1024).catch(() => Buffer.alloc(0));
      return { status: res.status, headers: res.headers, body };
    } finally {
      release();
    }
  }

  async function get(
    pathAndQuery: string,
    o: { headers?: Record<string, string>; maxBytes?: number; okStatuses?: number[] } = {},
  ): Promise<ZoteroResponse> {
    let url = new URL(pathAndQuery.replace(/^\//, ''), api);
    const started = Date.now();
    let redirects = 0;
    let delay = 1;
    for (;;) {
      let res: Awaited<ReturnType<typeof once>>;
      try {
        res = await once(url, o.headers ?? {}, o.maxBytes);
      } catch (err) {
        if (err instanceof TooLarge) throw new ZoteroHttpError(`file is too large (${err.message}; ingest.maxFileMb)`, 413);
        throw new ZoteroHttpError(`Zotero API request failed: ${(err as Error).message}`, 0);
      }
      if (res.location) {
        if (++redirects > 5) throw new ZoteroHttpError('too many redirects', res.status);
        if (!/^https?:$/.test(res.location.protocol)) throw new ZoteroHttpError(`redirected to a ${res.location.protocol} URL`, res.status);
        url = res.location;
        continue;
      }
      const retryAfter = waitSeconds(res.headers.get('retry-after'));
      if (res.status === 429 || (res.status === 503 && retryAfter !== undefined)) {
        // 429 without Retry-After: exponential backoff, as the API documentation asks.
        const wait = retryAfter ?? Math.min(delay, 60);
        delay *= 2;
        if (Date.now() - started + wait * 1000 > maxWaitMs)
          throw new ZoteroHttpError(
            `Zotero API kept answering ${res.status}; gave up after ${Math.round((Date.now() - started) / 1000)} s`,
            res.status,
          );
        pause(wait, `${res.status}`);
        continue;
      }
      if (res.status >= 200 && res.status < 300) return res;
      if (o.okStatuses?.includes(res.status)) return res;
      const detail = res.body.toString('utf8').trim().slice(0, 200);
      const what = res.status === 403 ? ' (is the API key right, and does it give access to this library?)' : '';
      throw new ZoteroHttpError(`Zotero API answered ${res.status} for ${url.pathname}${what}${detail ? `: ${detail}` : ''}`, res.status);
    }
  }

  return {
    get,
    get requests() {
      return requests;
    },
  };
}
