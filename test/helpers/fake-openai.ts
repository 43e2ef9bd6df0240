// A small OpenAI-compatible HTTP server on 127.0.0.1 for tests: /v1/embeddings and
// /v1/chat/completions with the real wire format, so the real LangChain/OpenAI clients run.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HashEmbeddings } from '../../src/models/hash-embeddings.ts';

export interface ChatMessage {
  role: string;
  content: string;
}

export interface FakeOpenAI {
  baseURL: string;
  requests: { path: string; body: Record<string, unknown> }[];
  /** Decides the assistant's reply; default cites [S1]. */
  reply: (messages: ChatMessage[]) => string;
  /** /rerank puts documents containing this text first (Cohere-style response). */
  rerankFavours: string;
  /** HTTP statuses to return before answering normally (e.g. [429, 500]). */
  failures: number[];
  /** Delay before answering /embeddings (to catch a job in the middle). */
  embedDelayMs: number;
  /** Delay before answering /chat/completions (a model that hangs); a client that gives up ends it early. */
  chatDelayMs: number;
  /** Texts embedded by /embeddings so far (documents and queries). */
  embedded: string[];
  /** Texts sent as document batches (an array input), not single query strings. */
  embeddedDocuments: string[];
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
}

/** The environment that points labbot's chat model at this fake (hash embeddings, no retries). */
export function chatEnv(openai: FakeOpenAI): Record<string, string> {
  return {
    EMBEDDINGS: 'hash',
    LLM: 'openai',
    OPENAI_BASE_URL: openai.baseURL,
    OPENAI_API_KEY: 'sk-test',
    LLM_MODEL: 'fake-chat',
    MODEL_MAX_RETRIES: '0',
  };
}

export async function startFakeOpenAI(opts: { dimensions?: number } = {}): Promise<FakeOpenAI> {
  const embedder = new HashEmbeddings({ dimensions: opts.dimensions ?? 64 });
  const state: Omit<FakeOpenAI, 'close' | 'baseURL'> = {
    requests: [],
    reply: () => 'The answer is in the first passage [S1].',
    failures: [],
    rerankFavours: '',
    embedDelayMs: 0,
    chatDelayMs: 0,
    embedded: [],
    embeddedDocuments: [],
  };
  const server: Server = createServer(async (req, res) => {
    const body: Record<string, unknown> = await readBody(req).catch(() => ({}));
    const url = req.url ?? '';
    state.requests.push({ path: url, body });
    const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(payload));
    };
    const failure = state.failures.shift();
    if (failure) {
      send(failure, { error: { message: `fake failure ${failure}`, type: 'server_error' } }, failure === 429 ? { 'retry-after': '0' } : {});
      return;
    }
    if (req.method === 'POST' && url.endsWith('/embeddings')) {
      const input = Array.isArray(body.input) ? (body.input as string[]) : [String(body.input)];
      if (state.embedDelayMs) await new Promise((r) => setTimeout(r, state.embedDelayMs));
      state.embedded.push(...input);
      if (Array.isArray(body.input)) state.embeddedDocuments.push(...input);
      const vectors = await embedder.embedDocuments(input);
      send(200, {
        object: 'list',
        model: body.model,
        data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
        usage: { prompt_tokens: 1, total_tokens: 1 },
      });
      return;
    }
    if (req.method === 'POST' && url.endsWith('/chat/completions')) {
      const messages = (body.messages as ChatMessage[]) ?? [];
      if (state.chatDelayMs) {
        await new Promise<void>((r) => {
          const timer = setTimeout(r, state.chatDelayMs);
          res.once('close', () => {
            clearTimeout(timer);
            r();
          });
        });
        if (res.destroyed || res.writableEnded) return;
      }
      if (body.stream === true) {
        streamCompletion(res, String(body.model), state.reply(messages));
        return;
      }
      send(200, {
        id: 'chatcmpl-fake',
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: state.reply(messages) }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      });
      return;
    }
    if (req.method === 'POST' && url.endsWith('/rerank')) {
      const docs = (body.documents as string[]) ?? [];
      const results = docs
        .map((d, index) => ({ index, relevance_score: state.rerankFavours && d.includes(state.rerankFavours) ? 0.9 : 0.1 / (index + 1) }))
        .sort((a, b) => b.relevance_score - a.relevance_score);
      send(200, { results });
      return;
    }
    send(404, { error: { message: `no route ${url}` } });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  const fake = state as FakeOpenAI;
  fake.baseURL = `http://127.0.0.1:${port}/v1`;
  fake.close = () => new Promise((r) => server.close(() => r()));
  return fake;
}

// --- streamed chat completions (stream: true): server-sent events as OpenAI sends them ---
// One chunk per word-ish piece, then a chunk with finish_reason and `data: [DONE]`.
function streamCompletion(res: ServerResponse, model: string, reply: string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const chunk = (delta: Record<string, unknown>, finish: string | null) =>
    `data: ${JSON.stringify({
      id: 'chatcmpl-fake',
      object: 'chat.completion.chunk',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [{ index: 0, delta, finish_reason: finish }],
    })}\n\n`;
  res.write(chunk({ role: 'assistant', content: '' }, null));
  for (const piece of reply.match(/\S+\s*|\s+/g) ?? []) res.write(chunk({ content: piece }, null));
  res.write(chunk({}, 'stop'));
  res.end('data: [DONE]\n\n');
}

/**
 * The last line of passage `label`'s text in the prompt the model received: what a faithful model
 * would restate when citing that passage (answers are checked against their cited passages).
 */
export function passageLine(messages: ChatMessage[], label: string): string {
  const user = messages
    .filter((m) => m.role === 'user')
    .map((m) => m.content)
    .join('\n');
  const m = user.match(new RegExp(`<passage id="${label}">[\\s\\S]*?\\ntext:\\n([\\s\\S]*?)\\n</passage>`));
  return m
    ? m[1]
        .trim()
        .split('\n')
        .filter((l) => l.trim() !== '')
        .at(-1)!
        .trim()
    : '';
}
