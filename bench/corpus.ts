// Synthetic lab corpus for benchmarks: heading-less "papers" made of real sentences drawn from
// the PubMedQA abstracts (deterministic PRNG), so text statistics are realistic at any size.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { mulberry32 } from './prng.ts';

export function loadSentences(pubmedqaDir: string): string[] {
  const docs = path.join(pubmedqaDir, 'docs');
  const out: string[] = [];
  for (const f of readdirSync(docs)) {
    const body = readFileSync(path.join(docs, f), 'utf8')
      .replace(/^---[\s\S]*?---/, '')
      .replace(/^##.*$/gm, ' ');
    for (const s of body.split(/(?<=[.!?])\s+(?=[A-Z])/)) {
      const t = s.replace(/\s+/g, ' ').trim();
      if (t.length > 30) out.push(t);
    }
  }
  return out;
}

export function loadQuestions(pubmedqaDir: string, n: number): string[] {
  return readFileSync(path.join(pubmedqaDir, 'questions.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .slice(0, n)
    .map((l) => (JSON.parse(l) as { question: string }).question);
}

/** Writes `count` documents of ~`chars` characters each into dir; returns their total size. */
export function writeCorpus(
  dir: string,
  sentences: string[],
  opts: { count: number; chars: number; seed: number; prefix: string },
): number {
  mkdirSync(dir, { recursive: true });
  const rand = mulberry32(opts.seed);
  let total = 0;
  for (let d = 0; d < opts.count; d++) {
    const paras: string[] = [];
    let len = 0;
    while (len < opts.chars) {
      const n = 3 + Math.floor(rand() * 4);
      const para: string[] = [];
      for (let i = 0; i < n; i++) para.push(sentences[Math.floor(rand() * sentences.length)]);
      const p = para.join(' ');
      paras.push(p);
      len += p.length + 2;
    }
    const id = `${opts.prefix}-${d}`;
    const text = `---\nid: "${id}"\ntitle: "Synthetic paper ${d}"\nkind: paper\nyear: ${1990 + (d % 35)}\n---\n\n${paras.join('\n\n')}\n`;
    writeFileSync(path.join(dir, `${id}.md`), text);
    total += text.length;
  }
  return total;
}
