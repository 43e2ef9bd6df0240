// A Crossref REST API on 127.0.0.1 for tests, as strict as the real one where labbot touches it:
// `GET /works/{doi}` (DOI percent-encoded or not, matched without regard to case) answers the
// work as `{status, message-type: "work", message}`, an unknown DOI is a 404 with a plain-text
// body, every response names its pool and limits (`x-api-pool`, `x-rate-limit-limit`,
// `x-rate-limit-interval`, `x-concurrency-limit`): the polite pool (10/s, 5 at a time) for a
// request with a valid `mailto` parameter or a User-Agent carrying "mailto:", else the public pool
// (5/s, 1 at a time); a request over either limit is a 429 (limits as announced on 1 Dec 2025).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeWorkInput {
  doi: string;
  title?: string;
  subtitle?: string;
  authors?: { given?: string; family?: string; name?: string }[];
  year?: number;
  month?: number;
  journal?: string;
  type?: string;
  /** Notices about this work, as Crossref lists them in `updated-by`. */
  updatedBy?: { doi: string; type: string; label?: string; source?: string; date?: [number, number, number] }[];
}

export interface FakeCrossrefRequest {
  method: string;
  path: string;
  doi?: string;
  mailto?: string;
  userAgent?: string;
  pool: 'polite' | 'public';
  status: number;
}

export interface FakeCrossref {
  url: string;
  requests: FakeCrossrefRequest[];
  /** Works the fake knows, by lower-case DOI, as full `message` objects. */
  works: Map<string, Record<string, unknown>>;
  addWork(w: FakeWorkInput): void;
  /** Statuses answered to the next requests before serving normally (429 carries rate-limit headers). */
  failures: number[];
  /** Retry-After sent with a 429, in seconds (none when undefined, as Crossref often does). */
  retryAfter?: number;
  /** Milliseconds before each answer (to see concurrency). */
  delayMs: number;
  /** Most requests in flight at once, per pool. */
  maxInFlight: Record<'polite' | 'public', number>;
  close(): Promise<void>;
}

const LIMITS = { polite: { rate: 10, concurrency: 5 }, public: { rate: 5, concurrency: 1 } } as const;
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

const dateParts = (y?: number, m?: number, d?: number) =>
  y ? { 'date-parts': [[y, ...(m ? [m] : []), ...(m && d ? [d] : [])]] } : undefined;

/** A work in the shape `works/{doi}` returns it (with the fields labbot ignores, as the real one has). */
export function crossrefMessage(w: FakeWorkInput): Record<string, unknown> {
  const issued = dateParts(w.year, w.month, 1) ?? { 'date-parts': [[null]] };
  return {
    indexed: { 'date-parts': [[2025, 6, 1]], 'date-time': '2025-06-01T10:00:00Z', timestamp: 1748772000000 },
    'reference-count': 42,
    publisher: 'Fake Publisher',
    DOI: w.doi,
    type: w.type ?? 'journal-article',
    created: { 'date-parts': [[w.year ?? 2020, 1, 2]], 'date-time': '2020-01-02T00:00:00Z', timestamp: 1577923200000 },
    source: 'Crossref',
    'is-referenced-by-count': 7,
    title: w.title === undefined ? [] : [w.title],
    ...(w.subtitle ? { subtitle: [w.subtitle] } : {}),
    prefix: w.doi.split('/')[0],
    author: (w.authors ?? []).map((a, i) => ({ ...a, sequence: i === 0 ? 'first' : 'additional', affiliation: [] })),
    member: '1234',
    reference: [{ key: 'ref1', 'doi-asserted-by': 'crossref', DOI: '10.9999/cited.1' }],
    'container-title': w.journal ? [w.journal] : [],
    issued,
    published: issued,
    ...(w.updatedBy?.length
      ? {
          'updated-by': w.updatedBy.map((u) => ({
            DOI: u.doi,
            type: u.type,
            label: u.label ?? u.type.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase()),
            source: u.source ?? 'publisher',
            updated: {
              'date-parts': [u.date ?? [2024, 3, 1]],
              'date-time': `${(u.date ?? [2024, 3, 1]).map((n, i) => (i ? String(n).padStart(2, '0') : n)).join('-')}T00:00:00Z`,
              timestamp: 0,
            },
            ...(u.source === 'retraction-watch' ? { 'record-id': '51234' } : {}),
          })),
        }
      : {}),
    URL: `https://doi.org/${w.doi}`,
    relation: {},
    score: 1,
  };
}

export async function startFakeCrossref(): Promise<FakeCrossref> {
  const windows: Record<'polite' | 'public', number[]> = { polite: [], public: [] };
  const inFlight = { polite: 0, public: 0 };
  const state: Omit<FakeCrossref, 'url' | 'close' | 'addWork'> = {
    requests: [],
    works: new Map(),
    failures: [],
    delayMs: 0,
    maxInFlight: { polite: 0, public: 0 },
  };
  const server: Server = createServer(async (req, res) => {
    const u = new URL(req.url ?? '/', 'http://fake');
    const mailto = u.searchParams.get('mailto') ?? undefined;
    const ua = req.headers['user-agent'];
    const uaMail = /mailto:([^\s);]+)/i.exec(ua ?? '')?.[1];
    const pool: 'polite' | 'public' = (mailto && EMAIL.test(mailto)) || (uaMail && EMAIL.test(uaMail)) ? 'polite' : 'public';
    const limits = LIMITS[pool];
    const headers: Record<string, string> = {
      'x-api-pool': pool,
      'x-rate-limit-limit': String(limits.rate),
      'x-rate-limit-interval': '1s',
      'x-concurrency-limit': String(limits.concurrency),
      'access-control-allow-origin': '*',
    };
    const entry: FakeCrossrefRequest = { method: req.method ?? 'GET', path: u.pathname, mailto, userAgent: ua, pool, status: 0 };
    state.requests.push(entry);
    const send = (status: number, body: string, type = 'application/json') => {
      entry.status = status;
      res.writeHead(status, { ...headers, 'content-type': type });
      res.end(body);
    };
    const now = Date.now();
    const win = windows[pool].filter((t) => now - t < 1000);
    win.push(now);
    windows[pool] = win;
    inFlight[pool] += 1;
    state.maxInFlight[pool] = Math.max(state.maxInFlight[pool], inFlight[pool]);
    try {
      if (state.delayMs) await new Promise((r) => setTimeout(r, state.delayMs));
      if (inFlight[pool] > limits.concurrency || win.length > limits.rate) {
        if (state.retryAfter !== undefined) headers['retry-after'] = String(state.retryAfter);
        return send(429, 'Too Many Requests', 'text/plain');
      }
      const failure = state.failures.shift();
      if (failure) {
        if (failure === 429 && state.retryAfter !== undefined) headers['retry-after'] = String(state.retryAfter);
        return send(failure, failure === 429 ? 'Too Many Requests' : 'Internal Server Error', 'text/plain');
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'Method Not Allowed', 'text/plain');
      const m = /^\/(?:v1\/)?works\/(.+)$/.exec(u.pathname);
      if (!m) return send(404, 'Resource not found.', 'text/plain');
      let doi: string;
      try {
        doi = decodeURIComponent(m[1]);
      } catch {
        return send(400, JSON.stringify({ status: 'error', 'message-type': 'validation-failure', message: [{ type: 'invalid-doi' }] }));
      }
      entry.doi = doi;
      const work = state.works.get(doi.toLowerCase());
      if (!work) return send(404, 'Resource not found.', 'text/plain');
      return send(200, JSON.stringify({ status: 'ok', 'message-type': 'work', 'message-version': '1.0.0', message: work }));
    } finally {
      inFlight[pool] -= 1;
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const fake = state as FakeCrossref;
  fake.url = `http://127.0.0.1:${port}`;
  fake.addWork = (w) => void state.works.set(w.doi.toLowerCase(), crossrefMessage(w));
  fake.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return fake;
}

/** An address where nothing listens: Crossref down (or no network). */
export async function deadCrossrefUrl(): Promise<string> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return `http://127.0.0.1:${port}`;
}
