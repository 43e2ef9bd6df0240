// The `labbot` CLI and `labbot serve` as a user runs them (the real bin), on real Chroma.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../src/store/chroma-server.ts';
import { testEnv } from './helpers/app.ts';

const BIN = path.resolve('bin/labbot.js');

function run(args: string[], env: Record<string, string>) {
  const r = spawnSync(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const DOCS: Record<string, string> = {
  'centrifuge.md':
    '---\nid: centrifuge\ntitle: Centrifuge booking\n---\n\n# Centrifuge booking\n\nBook the ' +
    'Sorvall centrifuge on the shared calendar at least one day ahead. Rotor F14 must be balanced to 0.1 g.\n',
  'freezer.md':
    '---\nid: freezer\ntitle: Freezer map\n---\n\n# Freezer map\n\nThe minus eighty freezer in ' +
    'room 214 holds plasmid stocks on shelf two and competent cells on shelf three.\n',
  'broken.pdf': '%PDF-1.7 this is not really a pdf',
};

describe('labbot CLI', () => {
  let dir: string;
  let env: Record<string, string>;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-cli-'));
    for (const [name, text] of Object.entries(DOCS)) writeFileSync(path.join(dir, name), text);
    env = testEnv();
  });

  it('ingest indexes the folder, reports the bad file and exits 1', () => {
    const r = run(['ingest', dir, '--source', 'notes', '--json'], env);
    expect(r.code).toBe(1);
    const s = JSON.parse(r.stdout);
    expect(s.documents.indexed).toBe(2);
    expect(s.failed).toHaveLength(1);
    expect(s.failed[0].path).toContain('broken.pdf');
    expect(s.failed[0].reason).toMatch(/pdf/i);
  });

  it('ask --json prints the answer, citations and passages', () => {
    const r = run(['ask', 'Where are the competent cells stored in the freezer?', '--json'], env);
    expect(r.code).toBe(0);
    const a = JSON.parse(r.stdout);
    expect(Object.keys(a)).toEqual(expect.arrayContaining(['answer', 'refused', 'citations', 'passages']));
    expect(a.refused).toBe(false);
    expect(a.passages[0]).toMatchObject({ label: 'S1', doc_id: 'freezer' });
    expect(Object.keys(a.passages[0])).toEqual(expect.arrayContaining(['label', 'doc_id', 'chunk_id', 'section', 'text', 'score']));
    expect(Object.keys(a.citations[0])).toEqual(expect.arrayContaining(['label', 'doc_id', 'title', 'authors', 'year', 'section', 'url']));
  });

  it('ask prints each source with the sentence it rests on', () => {
    const r = run(['ask', 'Where are the competent cells stored in the freezer?'], env);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    const at = lines.indexOf('Sources:');
    expect(at).toBeGreaterThan(0);
    const quote = lines.slice(at).find((l) => l.startsWith('    “'));
    expect(quote).toMatch(/^ {4}“.*competent.*”$/i);
  });

  it('status --json counts documents and chunks per source and kind', () => {
    const r = run(['status', '--json'], env);
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout);
    expect(s.documents).toBe(2);
    expect(s.bySource.notes.documents).toBe(2);
    expect(s.embeddings).toBe('hash:hash-v1');
    expect(s.chroma_url).toBe(env.CHROMA_URL);
  });

  it('eval --json computes metrics over a questions file', () => {
    const q = path.join(dir, 'questions.jsonl');
    writeFileSync(
      q,
      [
        { id: 'q1', question: 'How far ahead must the centrifuge be booked?', doc_id: 'centrifuge', answers: ['one day ahead'] },
        { id: 'q2', question: 'Which shelf has plasmid stocks?', doc_id: 'freezer', answers: ['shelf two'] },
      ]
        .map((o) => JSON.stringify(o))
        .join('\n'),
    );
    const r = run(['eval', q, '--json', '--k', '5'], env);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.metrics.doc_recall_at_1).toBe(1);
    expect(out.metrics.answer_in_context).toBe(1);
    expect(out.results[0].passages.length).toBeLessThanOrEqual(5);
    const table = run(['eval', q], env);
    expect(table.stdout).toMatch(/doc recall@1\s+100\.0%/);
  });

  it('ask on an empty index says so and how to fill it, instead of "not in the lab\'s material"', () => {
    const empty = testEnv();
    const r = run(['ask', 'Where are the competent cells stored?'], empty);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/index is empty.*labbot ingest/s);
    expect(r.stdout).not.toMatch(/not in the lab/i);
    const j = run(['ask', 'Where are the competent cells stored?', '--json'], empty);
    expect(j.code).toBe(1);
    expect(JSON.parse(j.stdout)).toMatchObject({ outcome: 'empty-index' });
  });

  it('a bad setting gives a clear message and exit code 2', () => {
    const r = run(['status'], { ...env, LABBOT_PORT: 'abc' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/LABBOT_PORT/);
  });
});

describe('labbot serve', () => {
  it('indexes configured sources, answers POST /api/ask, rejects bad bodies, stops on SIGTERM', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-serve-'));
    for (const [name, text] of Object.entries(DOCS)) if (name.endsWith('.md')) writeFileSync(path.join(dir, name), text);
    const port = await freePort();
    const env = testEnv({ fileConfig: { sources: [{ id: 'wiki', type: 'folder', path: dir }] }, env: { LABBOT_PORT: String(port) } });
    const child = spawn(process.execPath, [BIN, 'serve'], { env: { ...process.env, ...env }, stdio: 'ignore' });
    const base = `http://127.0.0.1:${port}`;
    try {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const ok = await fetch(`${base}/healthz`).then(
          (r) => r.ok,
          () => false,
        );
        if (ok) break;
        if (Date.now() > deadline || child.exitCode !== null) throw new Error('serve did not come up');
        await new Promise((r) => setTimeout(r, 200));
      }
      const res = await fetch(`${base}/api/ask`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ question: 'How far ahead do I book the Sorvall centrifuge?' }),
      });
      expect(res.status).toBe(200);
      const a = (await res.json()) as { refused: boolean; passages: { doc_id: string }[] };
      expect(a.refused).toBe(false);
      expect(a.passages[0].doc_id).toBe('centrifuge');

      const bad = await fetch(`${base}/api/ask`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"question":' });
      expect(bad.status).toBe(400);
      const empty = await fetch(`${base}/api/ask`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"question":"  "}',
      });
      expect(empty.status).toBe(400);
      expect(((await empty.json()) as { error: string }).error).toMatch(/question/);
    } finally {
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  });
});
