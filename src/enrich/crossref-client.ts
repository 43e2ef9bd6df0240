// The Crossref REST API client: `GET {CROSSREF_API_URL}/works/{doi}` in the polite pool (`mailto`
// parameter and a User-Agent naming it), paced by the limits Crossref sends with every response.
//
// Crossref's limits (crossref.org, access and authentication; changed 1 December 2025): public pool
// 5 requests/s and 1 at a time, polite pool 10/s and 5 at a time, announced per response in
// `x-rate-limit-limit` / `x-rate-limit-interval` and `x-concurrency-limit`; over them is a 429.
// The pacing is written here because it must change while it runs (each response can announce
// other limits, a 429 pauses every request): p-queue fixes its interval cap when it is created,
// and Bottleneck has not been maintained since 2019.
//
// Retractions: one request per DOI. Since 2024 a work's record lists its notices in `updated-by`
// (the inverse of each notice's `update-to`), from the publisher and from Retraction Watch alike,
// so the list query `works?filter=updates:{doi}` (the slower list pool) would only repeat it.
import { parseCrossrefWork } from '../ingest/metadata/crossref.ts';
import type { DoiLookup } from '../ingest/metadata/enrich.ts';

/** `retryAfterMs`: how long Crossref asked to be left alone (its Retry-After), when it said. */
export type CrossrefOutcome = DoiLookup & { retryAfterMs?: number };

export interface CrossrefClient {
  work(doi: string): Promise<CrossrefOutcome>;
  /** The limits Crossref announced last (the public pool's until it has announced any). */
  limits(): { perInterval: number; intervalMs: number; concurrency: number };
  /** Requests sent, for tests and logs. */
  sent(): number;
}

export interface CrossrefClientOptions {
  apiUrl: string;
  mailto: string;
  timeoutMs?: number;
  /** How often a 429 or 5xx is retried before the lookup counts as unavailable. */
  retries?: number;
  fetch?: typeof fetch;
  userAgent?: string;
}

function parseInterval(v: string | null): number | undefined {
  const m = v ? /^(\d+(?:\.\d+)?)\s*(ms|s|m)?$/.exec(v.trim()) : null;
  if (!m) return undefined;
  const ms = Number(m[1]) * { ms: 1, s: 1000, m: 60_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm'];
  return ms > 0 && ms <= 3_600_000 ? ms : undefined;
}

const positiveInt = (v: string | null, max: number): number | undefined => {
  const n = v && /^\d+$/.test(v.trim()) ? Number(v) : undefined;
  return n !== undefined && n >= 1 ? Math.min(n, max) : undefined;
};

/** Seconds or an HTTP date, as Retry-After allows; capped at an hour. */
function retryAfterMs(v: string | null): number | undefined {
  if (!v) return undefined;
  const s = /^\d+$/.test(v.trim()) ? Number(v) * 1000 : Date.parse(v) - Date.now();
  return Number.isFinite(s) ? Math.min(Math.max(s, 0), 3_600_000) : undefined;
}

/**
 * Starts are spaced this much wider than the announced rate allows: requests sent exactly at the
 * limit arrive bunched when the event loop or the network delays some, and Crossref counts
 * arrivals (a loaded machine drew a 429 from the test's fake, which counts them as Crossref does).
 */
const PACE_MARGIN = 1.1;

function createPacer() {
  const limits = { perInterval: 5, intervalMs: 1000, concurrency: 1 };
  let inFlight = 0;
  let nextStart = 0;
  let pausedUntil = 0;
  let timer: NodeJS.Timeout | undefined;
  const waiting: (() => void)[] = [];
  const pump = () => {
    timer = undefined;
    while (waiting.length && inFlight < limits.concurrency) {
      const wait = Math.max(nextStart, pausedUntil) - Date.now();
      if (wait > 0) {
        timer = setTimeout(pump, wait);
        return;
      }
      nextStart = Date.now() + (PACE_MARGIN * limits.intervalMs) / limits.perInterval;
      inFlight += 1;
      waiting.shift()!();
    }
  };
  return {
    limits,
    async acquire(): Promise<() => void> {
      await new Promise<void>((resolve) => {
        waiting.push(resolve);
        if (!timer) pump();
      });
      let released = false;
      return () => {
        if (released) return;
        released = true;
        inFlight -= 1;
        if (!timer) pump();
      };
    },
    learn(h: Headers) {
      limits.perInterval = positiveInt(h.get('x-rate-limit-limit'), 1000) ?? limits.perInterval;
      limits.intervalMs = parseInterval(h.get('x-rate-limit-interval')) ?? limits.intervalMs;
      limits.concurrency = positiveInt(h.get('x-concurrency-limit'), 20) ?? limits.concurrency;
    },
    pause(ms: number) {
      pausedUntil = Math.max(pausedUntil, Date.now() + ms);
    },
    pausedFor: () => Math.max(0, pausedUntil - Date.now()),
  };
}

export function createCrossrefClient(opts: CrossrefClientOptions): CrossrefClient {
  const doFetch = opts.fetch ?? fetch;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const retries = opts.retries ?? 2;
  const pacer = createPacer();
  const headers = { accept: 'application/json', 'user-agent': `${opts.userAgent ?? 'labbot/0.1'} (mailto:${opts.mailto})` };
  let sent = 0;

  const once = async (doi: string): Promise<CrossrefOutcome & { retryInMs?: number }> => {
    const url = `${opts.apiUrl}/works/${encodeURIComponent(doi)}?mailto=${encodeURIComponent(opts.mailto)}`;
    // Told to wait long (an hour's Retry-After): say so now rather than hold an ingest for an hour.
    const paused = pacer.pausedFor();
    if (paused > 10_000)
      return { status: 'unavailable', reason: 'Crossref asked to be left alone for a while (429)', retryAfterMs: paused };
    const release = await pacer.acquire();
    try {
      sent += 1;
      const res = await doFetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
      pacer.learn(res.headers);
      if (res.status === 404) {
        await res.body?.cancel();
        return { status: 'not-found' };
      }
      if (res.status === 429 || res.status >= 500) {
        await res.body?.cancel();
        const asked = retryAfterMs(res.headers.get('retry-after'));
        const wait = asked ?? (res.status === 429 ? pacer.limits.intervalMs : 1000);
        if (res.status === 429) pacer.pause(wait);
        return {
          status: 'unavailable',
          reason: `Crossref answered ${res.status}`,
          retryInMs: wait,
          ...(asked !== undefined ? { retryAfterMs: asked } : {}),
        };
      }
      if (!res.ok) {
        await res.body?.cancel();
        // 400 and the like: this DOI cannot be looked up as written; asking again will not help.
        return { status: 'not-found' };
      }
      const body: unknown = await res.json().catch(() => undefined);
      const message = typeof body === 'object' && body !== null ? (body as { message?: unknown }).message : undefined;
      const record = parseCrossrefWork(message);
      return record ? { status: 'found', record } : { status: 'not-found' };
    } catch (err) {
      const e = err as Error & { cause?: { code?: string } };
      const reason =
        e.name === 'TimeoutError'
          ? `Crossref did not answer within ${timeoutMs} ms`
          : `Crossref unreachable (${e.cause?.code ?? e.message})`;
      return { status: 'unavailable', reason };
    } finally {
      release();
    }
  };

  return {
    async work(doi) {
      let out = await once(doi);
      // A short wait is waited here; a long one (an hour's Retry-After) is the caller's to keep.
      for (let attempt = 0; out.retryInMs !== undefined && out.retryInMs <= 10_000 && attempt < retries; attempt++) {
        await new Promise((r) => setTimeout(r, out.retryInMs));
        out = await once(doi);
      }
      const { retryInMs: _wait, ...rest } = out;
      return rest;
    },
    limits: () => ({ ...pacer.limits }),
    sent: () => sent,
  };
}
