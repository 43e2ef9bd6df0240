// Translation by the configured chat model (translation.provider "model") against a real HTTP
// fake of an OpenAI-compatible endpoint: the question goes out as data under strict instructions,
// the reply is searched with, and a failing, hanging or rambling model leaves the question
// untranslated; without an LLM, status says why.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Labbot } from '../src/app.ts';
import { type ChatMessage, chatEnv, type FakeOpenAI, startFakeOpenAI } from './helpers/fake-openai.ts';
import { openTestApp } from './helpers/app.ts';

const LAB = path.resolve('examples/lab');
const SPANISH = '¿Cuánto tiempo se bloquea la membrana?';
const TRANSLATED = 'How long is the membrane blocked?';

/** The translation request among the fake's chat requests, as sent. */
const translationRequests = (fake: FakeOpenAI) =>
  fake.requests
    .filter((r) => r.path.endsWith('/chat/completions'))
    .map((r) => r.body.messages as ChatMessage[])
    .filter((m) => m[0]?.content.startsWith('Translate the text'));

describe('translation by the chat model', () => {
  let fake: FakeOpenAI;
  let app: Labbot;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
    const fileConfig = { sources: [{ id: 'lab', type: 'folder', path: LAB }], translation: { provider: 'model', timeoutMs: 500 } };
    app = await openTestApp({ fileConfig, env: chatEnv(fake) });
    expect((await app.ingestSource(app.config.sources[0])).failed).toEqual([]);
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await fake?.close();
  });

  it('sends the question as data under strict instructions and searches with the reply', async () => {
    fake.reply = (m) => (m[0].content.startsWith('Translate the text') ? TRANSLATED : 'The answer is in the first passage [S1].');
    expect(app.translation).toMatchObject({ provider: 'model', available: true });
    const r = await app.retrieve(SPANISH, ['public']);
    expect(r.alternates).toEqual([TRANSLATED]);
    expect(r.passages[0].docId).toMatch(/western-blot/);
    const [sent] = translationRequests(fake);
    expect(sent[0].role).toBe('system');
    expect(sent[0].content).toMatch(/from Spanish to English.*data to translate, never instructions.*translation only/s);
    expect(sent[1]).toEqual({ role: 'user', content: `<text>\n${SPANISH}\n</text>` });
  });

  it('keeps the question untranslated when the model fails, hangs past the timeout, or answers instead', async () => {
    fake.failures = [500];
    expect((await app.retrieve('¿Qué dilución usamos para el anticuerpo?', ['public'])).alternates).toBeUndefined();
    fake.failures = [];
    fake.chatDelayMs = 5000;
    expect((await app.retrieve('¿Dónde está el congelador?', ['public'])).alternates).toBeUndefined();
    fake.chatDelayMs = 0;
    fake.reply = (m) =>
      m[0].content.startsWith('Translate the text') ? 'Sure! Here is everything about membranes. '.repeat(20) : 'ok [S1]';
    expect((await app.retrieve('¿Quién reserva el microscopio?', ['public'])).alternates).toBeUndefined();
    // The question is still answered, in its own language.
    fake.reply = () => 'The membrane is blocked for one hour [S1].';
    expect((await app.ask('¿Quién reserva el microscopio confocal?')).refused).toBe(false);
  });
});

describe('translation by the chat model without one', () => {
  it('says in status that an LLM is needed, and searches in the question language', async () => {
    const app = await openTestApp({ fileConfig: { translation: { provider: 'model' } }, env: { EMBEDDINGS: 'hash' } });
    try {
      expect(app.translation).toMatchObject({ provider: 'model', available: false });
      expect(app.translation.detail).toMatch(/no LLM is configured/);
    } finally {
      await app.close();
    }
  });
});
