// The context budget on every answer path, and `labbot eval --answers` as a user runs it (the
// real bin), extractive and with an OpenAI-compatible model (fake server on 127.0.0.1), on real Chroma.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Labbot } from '../src/app.ts';
import { refusalText } from '../src/answer/messages.ts';
import { runEval, type EvalReport } from '../src/eval/run.ts';
import { passageLine, startFakeOpenAI, type ChatMessage, type FakeOpenAI } from './helpers/fake-openai.ts';
import { openTestApp, testEnv } from './helpers/app.ts';

const BIN = path.resolve('bin/labbot.js');
// The fake runs in this process, so the CLI must not block the event loop: spawn, not spawnSync.
function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const BUDGET = 500;
// Six short documents that all match "buffer": together far over the budget.
const BUFFERS = Array.from({ length: 6 }, (_, i) => [
  `buffer-${i}.md`,
  `---\nid: buffer-${i}\ntitle: Buffer note ${i}\n---\n\n# Buffer note ${i}\n\nThe ` +
    `wash buffer for assay ${i} is TBS-T with ${i + 1} mM EDTA, made fresh ` +
    `each week by the rota. ` +
    `Store the buffer at room temperature for at most ${i + 2} days and label the bottle with the date.\n`,
]);
const DOCS: Record<string, string> = {
  ...Object.fromEntries(BUFFERS),
  'centrifuge.md':
    '---\nid: centrifuge\ntitle: Centrifuge booking\n---\n\n# Centrifuge booking\n\nBook the ' +
    'Sorvall centrifuge on the shared calendar at least one day ahead. Rotor F14 must be balanced to 0.1 g.\n',
  'freezer.md':
    '---\nid: freezer\ntitle: Freezer map\n---\n\n# Freezer map\n\nThe minus eighty freezer in ' +
    'room 214 holds plasmid stocks on shelf two and competent cells on shelf three.\n',
};
const fileConfig = (dir: string) => ({ sources: [{ id: 'notes', type: 'folder', path: dir }], retrieval: { contextChars: BUDGET } });

const textChars = (ps: { text: string }[]) => ps.reduce((n, p) => n + p.text.length, 0);
const between = (text: string, open: string, close: string) => text.slice(text.indexOf(open) + open.length, text.indexOf(close));

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-evalans-'));
  for (const [name, text] of Object.entries(DOCS)) writeFileSync(path.join(dir, name), text);
});

describe('one context budget for every answer path', () => {
  let fake: FakeOpenAI;
  let model: Labbot;
  let extractive: Labbot;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
    model = await openTestApp({
      fileConfig: fileConfig(dir),
      env: { OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'sk-test', EMBEDDINGS: 'hash', LLM_MODEL: 'fake-chat' },
    });
    await model.ingestSource(model.config.sources[0]);
    extractive = await openTestApp({ fileConfig: fileConfig(dir) });
    await extractive.ingestSource(extractive.config.sources[0]);
  });
  afterAll(async () => {
    await model?.reset();
    await model?.close();
    await extractive?.reset();
    await extractive?.close();
    await fake?.close();
  });

  it('sends the model only the passages that fit retrieval.contextChars', async () => {
    const question = 'Which wash buffer do we use and how long is the buffer stored?';
    const retrieved = await model.retrieve(question, ['public']);
    expect(textChars(retrieved.passages)).toBeGreaterThan(BUDGET);
    const r = await model.ask(question);
    const prompt = fake.requests.filter((x) => x.path.endsWith('/chat/completions')).at(-1)!;
    const user = (prompt.body.messages as ChatMessage[]).find((m) => m.role === 'user')!.content;
    const sent = user.match(/<passage id="S\d+">/g) ?? [];
    expect(sent.length).toBe(r.passages.length);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.length).toBeLessThan(retrieved.passages.length);
    expect(textChars(r.passages)).toBeLessThanOrEqual(BUDGET);
  });

  it('gives the extractive answerer the same budgeted passages', async () => {
    const question = 'Which wash buffer do we use and how long is the buffer stored?';
    const retrieved = await extractive.retrieve(question, ['public']);
    const r = await extractive.ask(question);
    expect(r.model).toBe('extractive');
    expect(r.passages.length).toBeLessThan(retrieved.passages.length);
    expect(textChars(r.passages)).toBeLessThanOrEqual(BUDGET);
    expect(r.passages.map((p) => p.chunk_id)).toEqual(retrieved.passages.slice(0, r.passages.length).map((p) => p.chunkId));
  });

  it('weighs question terms by the index on the eval path as on app.ask, so both refuse alike', async () => {
    // "stored" is in six buffer notes, "violin" in none: weighed by the index, "violin" is the
    // question's telling word and no note answers it (weighed alike, "stored" and a duration would).
    const question = 'How long is the violin stored?';
    const asked = await extractive.ask(question);
    expect(asked.refused).toBe(true);
    const report = await runEval(extractive, [], {
      k: extractive.config.retrieval.k,
      groups: ['public'],
      answers: true,
      offCorpus: [{ id: 'u1', question }],
    });
    expect(report.unanswerable?.false_answer_rate).toBe(0);
    expect(report.results.find((x) => x.id === 'u1')?.refused).toBe(true);
    // The notes answer the question they do hold.
    expect((await extractive.ask('How long is the buffer stored?')).refused).toBe(false);
  });
});

describe('labbot eval --answers', () => {
  const questions = [
    { id: 'q1', question: 'How far ahead must the centrifuge be booked?', doc_id: 'centrifuge', answers: ['one day ahead'] },
    { id: 'q2', question: 'Which shelf of the minus eighty freezer has plasmid stocks?', doc_id: 'freezer', answers: ['shelf two'] },
    { id: 'q3', question: 'What is the wash buffer for assay 3?', doc_id: 'buffer-3', answers: ['4 mM EDTA'] },
  ];
  const offCorpus = [
    { id: 'u1', question: 'What is the capital city of Mongolia?' },
    { id: 'u2', question: 'Who painted the ceiling of the Sistine Chapel?' },
  ];
  let qFile: string;
  let uFile: string;
  beforeAll(() => {
    qFile = path.join(dir, 'questions.jsonl');
    uFile = path.join(dir, 'unanswerable.jsonl');
    writeFileSync(qFile, questions.map((q) => JSON.stringify(q)).join('\n'));
    writeFileSync(uFile, offCorpus.map((q) => JSON.stringify(q)).join('\n'));
  });

  it('scores extractive answers end to end and the false-answer rate, in JSON and as a table', async () => {
    const env = testEnv({ fileConfig: fileConfig(dir) });
    expect((await run(['ingest', '--json'], env)).code).toBe(0);
    const r = await run(['eval', qFile, '--answers', '--unanswerable', uFile, '--json'], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as EvalReport;
    expect(out.settings).toMatchObject({ k: 8, context_chars: BUDGET, answerer: 'extractive (no model)', split: 'all' });
    expect(out.metrics.k).toBe(8);
    expect(out.metrics.doc_recall_at_1).toBe(1);
    const a = out.answers!;
    expect(a.questions).toBe(3);
    expect(a.with_spans).toBe(3);
    expect(a.answered).toBe(3);
    expect(a.answer_has_span).toBe(1);
    expect(a.cites_gold_doc).toBe(1);
    expect(a.citation_precision).toBeGreaterThan(0);
    expect(a.median_answer_chars).toBeGreaterThan(10);
    expect(a.ms.p95).toBeGreaterThanOrEqual(a.ms.p50);
    expect(out.unanswerable).toMatchObject({ questions: 2, false_answer_rate: 0 });
    const rows = out.results.filter((x) => x.unanswerable);
    expect(rows.map((x) => x.answer)).toEqual([refusalText('en'), refusalText('en')]);
    const q1 = out.results.find((x) => x.id === 'q1')!;
    expect(q1.answer).toContain('one day ahead');
    expect(q1.cited).toContain('centrifuge');

    const table = await run(['eval', qFile, '--answers', '--unanswerable', uFile], env);
    expect(table.stdout).toMatch(/refusal rate\s+0\.0%/);
    expect(table.stdout).toMatch(/answer contains a gold span\s+100\.0%/);
    expect(table.stdout).toMatch(/false-answer rate\s+0\.0%/);
  });

  it('scores a configured OpenAI-compatible model the same way', async () => {
    const fake = await startFakeOpenAI();
    // The fake model restates S1 and cites it, except for two off-corpus questions: one gets an
    // uncited claim (labbot's citation check turns it into the refusal), the other a cited
    // restatement of S1 that does not answer it: a false answer the eval must count.
    fake.reply = (messages) => {
      const user = messages.find((m) => m.role === 'user')!.content;
      const question = between(user, '<question>\n', '\n</question>');
      if (question.includes('Mongolia')) return 'The capital of Mongolia is Ulaanbaatar.';
      if (question.includes('Sistine')) return `Painted: ${passageLine(messages, 'S1')} [S1]`;
      return `${passageLine(messages, 'S1').slice(0, 300)} [S1]`;
    };
    try {
      const env = testEnv({
        fileConfig: fileConfig(dir),
        env: { OPENAI_BASE_URL: fake.baseURL, OPENAI_API_KEY: 'sk-test', EMBEDDINGS: 'hash', LLM_MODEL: 'fake-chat' },
      });
      expect((await run(['ingest', '--json'], env)).code).toBe(0);
      const r = await run(['eval', qFile, '--answers', '--unanswerable', uFile, '--json'], env);
      expect(r.code).toBe(0);
      const out = JSON.parse(r.stdout) as EvalReport;
      expect(out.settings.answerer).toBe('fake-chat');
      expect(fake.requests.filter((x) => x.path.endsWith('/chat/completions'))).toHaveLength(5);
      expect(out.answers).toMatchObject({ questions: 3, answered: 3, refusal_rate: 0, cites_gold_doc: 1 });
      expect(out.unanswerable).toMatchObject({ questions: 2, false_answer_rate: 0.5 });
      expect(out.results.find((x) => x.id === 'u2')!.answer).toMatch(/^Painted: .+\[S1\]$/);
    } finally {
      await fake.close();
    }
  });

  it('evaluates one side of the dev/test split, and needs some questions', async () => {
    const env = testEnv({ fileConfig: fileConfig(dir) });
    expect((await run(['ingest', '--json'], env)).code).toBe(0);
    const dev = JSON.parse((await run(['eval', qFile, '--split', 'dev', '--json'], env)).stdout) as EvalReport;
    const test = JSON.parse((await run(['eval', qFile, '--split', 'test', '--json'], env)).stdout) as EvalReport;
    expect(dev.settings.split).toBe('dev');
    expect(dev.metrics.questions + test.metrics.questions).toBe(3);
    expect(dev.results.map((x) => x.id).some((id) => test.results.some((y) => y.id === id))).toBe(false);
    const none = await run(['eval'], env);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/questions file/);
  });
});
