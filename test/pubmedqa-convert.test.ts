import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { convert, splitOf } from '../bench/datasets/pubmedqa.ts';

const DIR = path.resolve('datasets/pubmedqa');
const lines = (f: string) => readFileSync(path.join(DIR, f), 'utf8').split('\n').filter(Boolean);

const entry = (over: Record<string, unknown> = {}) => ({
  QUESTION: 'Does it work?',
  CONTEXTS: ['Some background.', 'Some "results".'],
  LABELS: ['BACKGROUND', 'RESULTS'],
  MESHES: ['Humans'],
  YEAR: '2001',
  reasoning_required_pred: 'yes',
  reasoning_free_pred: 'yes',
  final_decision: 'yes',
  LONG_ANSWER: 'It works.',
  ...over,
});

describe('PubMedQA converter', () => {
  it('writes front matter as JSON values and one heading per context, in PMID order', () => {
    const c = convert(JSON.stringify({ '200': entry({ YEAR: null }), '30': entry() }));
    expect([...c.docs.keys()]).toEqual(['pubmedqa-30.md', 'pubmedqa-200.md']);
    expect(c.docs.get('pubmedqa-30.md')).toBe(
      [
        '---',
        'id: "pubmedqa-30"',
        'title: "PMID 30"',
        'authors: []',
        'year: 2001',
        'doi: null',
        'url: "https://pubmed.ncbi.nlm.nih.gov/30/"',
        'pmid: "30"',
        'mesh: ["Humans"]',
        'source: "PubMedQA PQA-L (github.com/pubmedqa/pubmedqa, data/ori_pqal.json)"',
        'license: "MIT"',
        '---',
        '',
        '## BACKGROUND',
        '',
        'Some background.',
        '',
        '## RESULTS',
        '',
        'Some "results".',
        '',
      ].join('\n'),
    );
    expect(c.docs.get('pubmedqa-200.md')).toContain('\nyear: null\n');
    expect(c.questions.map((l) => JSON.parse(l).id)).toEqual(['pubmedqa-q30', 'pubmedqa-q200']);
    expect(JSON.parse(c.questions[0]!)).toEqual({
      id: 'pubmedqa-q30',
      question: 'Does it work?',
      doc_id: 'pubmedqa-30',
      answers: [],
      final_decision: 'yes',
      long_answer: 'It works.',
    });
  });

  it('refuses a source whose labels and contexts do not pair up, naming the PMID', () => {
    expect(() => convert(JSON.stringify({ '7': entry({ LABELS: ['ONLY'] }) }))).toThrow(/PMID 7: 1 labels for 2 contexts/);
  });

  it('splits by document hash: the committed dev and test files partition questions.jsonl', () => {
    const all = lines('questions.jsonl');
    const dev = lines('questions.dev.jsonl');
    const test = lines('questions.test.jsonl');
    expect(all).toHaveLength(1000);
    expect(dev.length + test.length).toBe(all.length);
    // Both halves are real halves, not everything on one side.
    expect(Math.min(dev.length, test.length)).toBeGreaterThan(400);
    const splitOfLine = (l: string) => splitOf(JSON.parse(l).doc_id);
    expect(dev.every((l) => splitOfLine(l) === 'dev')).toBe(true);
    expect(test.every((l) => splitOfLine(l) === 'test')).toBe(true);
    expect(new Set([...dev, ...test])).toEqual(new Set(all));
  });

  it('has a document for every question and a question for every document', () => {
    const docs = readdirSync(path.join(DIR, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => f.slice(0, -3));
    const asked = lines('questions.jsonl').map((l) => JSON.parse(l).doc_id as string);
    expect(new Set(docs)).toEqual(new Set(asked));
  });
});
