// The fake's HTTP side on 127.0.0.1: Web API methods at /api/<method> (form-encoded or JSON
// bodies), response_url endpoints at /response/<id>, and Socket Mode's WebSocket at /ws. Every
// call is recorded before it is answered; a test can make the next calls of a method fail, or hold
// their answers like a slow Slack.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { refuse, type Body, type Method } from './args.ts';
import { validateBlocks } from './blocks.ts';
import type { ConversationStore } from './conversation.ts';
import type { createOutgoingChecks } from './outgoing.ts';
import type { PostPacing, ResponseUrlGate } from './rate-limits.ts';
import { acceptSocketMode } from './socket-mode.ts';

export interface SlackCall {
  method: string;
  body: Body;
  at: number;
}

export interface ResponseUrlCall {
  id: string;
  body: Body;
  at: number;
}

export type Failure = { status: 429; retryAfter: number } | { error: string };

export interface Rejection {
  method: string;
  error: string;
  body: Body;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseBody(raw: string, contentType: string | undefined): Body {
  if (!raw) return {};
  if (contentType?.includes('application/json')) return JSON.parse(raw) as Body;
  const out: Body = {};
  for (const [k, v] of new URLSearchParams(raw)) {
    // The WebClient JSON-encodes structured arguments inside the form.
    out[k] = (k === 'blocks' || k === 'attachments' || k === 'metadata') && /^[[{]/.test(v) ? JSON.parse(v) : v;
  }
  return out;
}

const send = (res: ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(payload));
};

/** Calls held until released, matched by method and body. */
function createHolds() {
  const holds: { method: string; match: (body: Body) => boolean; gate: Promise<void>; released: boolean }[] = [];
  return {
    hold(method: string, match: (body: Body) => boolean = () => true): () => void {
      let release!: () => void;
      const h = { method, match, gate: new Promise<void>((r) => (release = r)), released: false };
      holds.push(h);
      return () => {
        h.released = true;
        release();
      };
    },
    async until(method: string, body: Body): Promise<void> {
      for (const h of holds) if (!h.released && h.method === method && h.match(body)) await h.gate;
    },
  };
}

/** Predicates checked on every call, each resolving its promise once it holds. */
function createWaiters() {
  const waiters = new Set<() => void>();
  return {
    notify() {
      for (const w of [...waiters]) w();
    },
    waitFor<T>(predicate: () => T | undefined | false, timeoutMs = 15_000): Promise<T> {
      return new Promise((resolve, reject) => {
        const check = () => {
          const v = predicate();
          if (v !== undefined && v !== false) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(v);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`fake Slack: condition not met within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
}

interface ServerDeps {
  methods: Record<string, Method>;
  conversation: ConversationStore;
  gate: ResponseUrlGate;
  pacing: PostPacing;
  outgoing: ReturnType<typeof createOutgoingChecks>;
}

export async function startServer(deps: ServerDeps) {
  const { conversation, gate, pacing, outgoing } = deps;
  const methods = new Map(Object.entries(deps.methods));
  const calls: SlackCall[] = [];
  const responses: ResponseUrlCall[] = [];
  const rejected: Rejection[] = [];
  const rateLimited: SlackCall[] = [];
  const failures = new Map<string, Failure[]>();
  const held = createHolds();
  const waiters = createWaiters();

  function responseUrlPost(id: string, body: Body, res: ServerResponse) {
    // Block Kit limits apply here too; the cumulative msg_blocks_too_long does not (slackapi/bolt-js#2867:
    // the same blocks that chat.postMessage refused went through respond()).
    const refused = gate.check(id) ?? validateBlocks(body.blocks) ?? conversation.respond(id, body);
    if (refused) {
      rejected.push({ method: 'response_url', error: refused, body });
      send(res, refused === 'invalid_blocks' ? 400 : 404, { ok: false, error: refused });
    } else {
      outgoing.check('response_url', body);
      responses.push({ id, body, at: performance.now() });
      send(res, 200, { ok: true });
    }
    waiters.notify();
  }

  async function apiCall(method: string, body: Body, res: ServerResponse) {
    const retryAfter = method === 'chat.postMessage' ? pacing.retryAfter(body) : undefined;
    if (retryAfter) {
      rateLimited.push({ method, body, at: performance.now() });
      send(res, 429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(retryAfter) });
      waiters.notify();
      return;
    }
    calls.push({ method, body, at: performance.now() });
    outgoing.check(method, body);
    waiters.notify();
    await held.until(method, body);
    const failure = failures.get(method)?.shift();
    if (failure && 'status' in failure) {
      send(res, 429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(failure.retryAfter) });
    } else if (failure) {
      send(res, 200, { ok: false, error: failure.error });
    } else {
      const result = methods.get(method)?.(body) ?? refuse('unknown_method');
      if (result.ok === false) rejected.push({ method, error: String(result.error), body });
      send(res, 200, result);
    }
    waiters.notify();
  }

  const server = createServer(async (req, res) => {
    const raw = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    let body: Body;
    try {
      body = parseBody(raw, req.headers['content-type']);
    } catch {
      send(res, 400, { ok: false, error: 'invalid_json' });
      return;
    }
    if (url.pathname.startsWith('/response/')) responseUrlPost(url.pathname.slice('/response/'.length), body, res);
    else await apiCall(url.pathname.replace(/^\/api\//, ''), body, res);
  });
  const socketMode = acceptSocketMode(server, waiters.notify);

  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    calls,
    responses,
    rejected,
    rateLimited,
    socketMode,
    notify: waiters.notify,
    waitFor: waiters.waitFor,
    hold: held.hold,
    failNext(method: string, failure: Failure) {
      failures.set(method, [...(failures.get(method) ?? []), failure]);
    },
    close: () =>
      new Promise<void>((r) => {
        socketMode.close();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
