// Asking questions of the sample lab corpus on real Chroma: extractive answers, refusals,
// languages, access, and OpenAI-compatible providers against a local fake server.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Labbot } from '../src/app.ts';
import { passageLine, startFakeOpenAI, type FakeOpenAI } from './helpers/fake-openai.ts';
import { openTestApp } from './helpers/app.ts';

const LAB = path.resolve('examples/lab');
const fileConfig = {
  sources: [{ id: 'lab', type: 'folder', path: LAB }],
  access: { default: 'public', channels: { CPI: ['pi-only'] } },
};

describe('ask (extractive, no model)', () => {
  let app: Labbot;
  beforeAll(async () => {
    app = await openTestApp({ fileConfig });
    const s = await app.ingestSource(app.config.sources[0]);
    expect(s.failed).toEqual([]);
  });
  afterAll(async () => app?.close());

  it('answers from the lab material with valid citations and links', async () => {
    const r = await app.ask('What antibody dilution is used for the Western blot primary antibody?');
    expect(r.refused).toBe(false);
    expect(r.citations.length).toBeGreaterThan(0);
    const labels = r.passages.map((p) => p.label);
    for (const c of r.citations) {
      expect(c.label).toMatch(/^\[.+, (\d{4}|n\.d\.)/);
      expect(r.passages.some((p) => p.doc_id === c.doc_id)).toBe(true);
    }
    for (const m of r.answer.matchAll(/\[S(\d+)\]/g)) expect(labels).toContain(`S${m[1]}`);
    expect(r.model).toMatch(/extractive/);
  });

  it('answers from the source a question names, and says so when that source is not indexed', async () => {
    const named = await app.ask('In the Weber 2020 paper, how often was the chase sampled?');
    expect(named.source).toMatchObject({ restricts: true, documents: 1 });
    expect(named.source?.named).toEqual(expect.arrayContaining(['author Weber', 'year 2020']));
    expect(new Set(named.passages.map((p) => p.doc_id))).toEqual(new Set(['lab:papers/weber2020-hypoxia-p53.pdf']));
    expect(named.refused).toBe(false);
    // The words naming the source are not evidence: the answer is the sampling interval, not the byline.
    expect(named.answer.split('\n')[0]).toMatch(/every 30 minutes/);
    expect(named.citations.every((c) => c.doc_id === 'lab:papers/weber2020-hypoxia-p53.pdf')).toBe(true);

    const missing = await app.ask('In the Zhang 2019 paper, which antibody was used for p53?');
    expect(missing.refused).toBe(true);
    expect(missing.citations).toEqual([]);
    expect(missing.passages).toEqual([]);
    expect(missing.answer).toMatch(/Zhang 2019/);
    expect(missing.source).toMatchObject({ restricts: true, documents: 0 });
  });

  it('lifts passages of the kind a question names', async () => {
    const r = await app.ask('According to the protocol, which antibody is used at 1:1000?');
    expect(r.source).toMatchObject({ restricts: false });
    expect(r.source?.named).toContain('kind protocol');
    expect(app.catalog.doc(r.passages[0].doc_id)?.kind).toBe('protocol');
  });

  it('says honestly when the material does not contain the answer', async () => {
    const r = await app.ask('What is the boiling point of liquid helium on Jupiter moons?');
    expect(r.refused).toBe(true);
    expect(r.citations).toEqual([]);
    expect(r.answer).toMatch(/lab's material/i);
  });

  it('refuses in Spanish for a Spanish question', async () => {
    const r = await app.ask('¿Cuál es la capital de Mongolia según los jardineros?');
    expect(r.refused).toBe(true);
    expect(r.language).toBe('es');
    expect(r.answer).not.toMatch(/lab's material/i);
  });

  it('never shows a restricted document to a channel without its group', async () => {
    const restricted = [...app.catalog.docs()].filter((d) => d.access !== 'public');
    expect(restricted.length).toBeGreaterThan(0);
    for (const d of restricted) {
      const q = `${d.title} ${app.catalog.chunk(d.chunkIds[0])!.text.slice(0, 200)}`;
      const pub = await app.ask(q, { channel: 'CRANDOM' });
      expect(pub.passages.some((p) => p.doc_id === d.id)).toBe(false);
      const pi = await app.ask(q, { channel: 'CPI' });
      expect(pi.passages.some((p) => p.doc_id === d.id)).toBe(true);
    }
  });
});

describe('ask with an OpenAI-compatible model (fake server on 127.0.0.1)', () => {
  let app: Labbot;
  let fake: FakeOpenAI;
  beforeAll(async () => {
    fake = await startFakeOpenAI({ dimensions: 64 });
    app = await openTestApp({
      fileConfig,
      env: {
        OPENAI_BASE_URL: fake.baseURL,
        OPENAI_API_KEY: 'sk-test',
        MODEL_MAX_RETRIES: '2',
        EMBEDDING_MODEL: 'fake-embed',
        LLM_MODEL: 'fake-chat',
      },
    });
    await app.ingestSource(app.config.sources[0]);
  });
  afterAll(async () => {
    await app?.close();
    await fake?.close();
  });

  it('embeds through the endpoint as float arrays', () => {
    const emb = fake.requests.filter((r) => r.path.endsWith('/embeddings'));
    expect(emb.length).toBeGreaterThan(0);
    expect(emb[0].body.encoding_format).toBe('float');
    expect(emb[0].body.model).toBe('fake-embed');
  });

  it('sends fenced passages and keeps only citations that exist', async () => {
    fake.reply = () => 'Use ab32389 at 1:1000 [S1]. Also see [S9].';
    const r = await app.ask('Which antibody is used against p53?');
    const chat = fake.requests.filter((x) => x.path.endsWith('/chat/completions')).at(-1)!;
    const content = JSON.stringify(chat.body.messages);
    expect(content).toContain('S1');
    expect(chat.body.model).toBe('fake-chat');
    // Cited by the chunk that says it (S1 may be the neighbouring chunk handed over with it).
    const label = /^Use ab32389 at 1:1000 \[(S\d+)\]\.$/.exec(r.answer)?.[1];
    expect(r.passages.find((p) => p.label === label)?.text).toContain('ab32389');
    expect(r.answer).not.toContain('[S9]');
    expect(r.refused).toBe(false);
    expect(r.citations).toHaveLength(1);
    expect(r.model).toBe('fake-chat');
  });

  it('replaces an uncited factual answer with the refusal', async () => {
    fake.reply = () => 'The lab has no safety rules at all.';
    const r = await app.ask('What are the lab safety rules?');
    expect(r.refused).toBe(true);
    expect(r.citations).toEqual([]);
  });

  it('refuses a model answer that cites a passage which does not say it', async () => {
    fake.reply = () => 'Biohazard bins are collected on Tuesdays and Fridays before 9:00 [S1].';
    const r = await app.ask('How long do we block the membrane in the Western blot?');
    expect(r.passages[0].text).not.toMatch(/biohazard/i);
    expect(r.refused).toBe(true);
    expect(r.citations).toEqual([]);
    expect(r.answer).not.toMatch(/Biohazard/);
  });

  it('trims a model answer to its supported claims and quotes the passage they rest on', async () => {
    fake.reply = (messages) =>
      `${passageLine(messages, 'S1')} [S1]\nBiohazard bins are collected on Tuesdays and Fridays before 9:00 [S1].`;
    const r = await app.ask('How long do we block the membrane in the Western blot?');
    expect(r.refused).toBe(false);
    expect(r.answer).not.toMatch(/Biohazard/);
    expect(r.citations).toHaveLength(1);
    const quote = r.citations[0].quotes[0];
    expect(quote.length).toBeGreaterThan(10);
    expect(r.passages[0].text.replace(/\s+/g, ' ')).toContain(quote);
  });

  it('retries a 429 and a 500 and then answers', async () => {
    fake.reply = (messages) => `${passageLine(messages, 'S1')} [S1]`;
    fake.failures = [429, 500];
    const r = await app.ask('How do we passage cells?');
    expect(fake.failures).toEqual([]);
    expect(r.refused).toBe(false);
    expect(r.model).toBe('fake-chat');
  });

  it('falls back to an extractive answer, saying so, when the model keeps failing', async () => {
    // Three failures exhaust the query embedding (lexical-only retrieval), three more the chat model.
    fake.failures = [500, 500, 500, 500, 500, 500];
    const r = await app.ask('How do we passage cells?');
    expect(r.model).toMatch(/extractive \(model unavailable\)/);
    expect(r.answer.length).toBeGreaterThan(0);
    fake.failures = [];
  });
});

describe('retrieval with a /rerank HTTP endpoint', () => {
  it('reorders the head of the fused list by the endpoint, and survives it failing', async () => {
    const fake = await startFakeOpenAI();
    const app = await openTestApp({ fileConfig, env: { RERANK_URL: `${fake.baseURL}/rerank`, RERANK_MODEL: 'fake-rerank' } });
    try {
      await app.ingestSource(app.config.sources[0]);
      fake.rerankFavours = 'NIGHTJAR';
      const q = 'What is the lab meeting schedule and where are antibodies stored?';
      const r = await app.retrieve(q, ['public'], 5);
      const req = fake.requests.find((x) => x.path.endsWith('/rerank'))!;
      expect(req.body.model).toBe('fake-rerank');
      expect((req.body.documents as string[]).length).toBeGreaterThan(1);
      // Restricted text never reaches the reranker for a public question: nothing to favour.
      expect((req.body.documents as string[]).some((d) => d.includes('NIGHTJAR'))).toBe(false);
      fake.rerankFavours = 'Freezer B';
      const favoured = await app.retrieve(q, ['public'], 5);
      expect(favoured.passages[0].text).toContain('Freezer B');
      expect(favoured.passages[0].debug.rerank).toBe(0.9);
      fake.failures = [500];
      const fallback = await app.retrieve(q, ['public'], 5);
      expect(fallback.passages.map((p) => p.chunkId)).toEqual(r.passages.map((p) => p.chunkId).slice(0, fallback.passages.length));
    } finally {
      await app.close();
      await fake.close();
    }
  });
});
