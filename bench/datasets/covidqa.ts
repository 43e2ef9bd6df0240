// `npx tsx bench/datasets/covidqa.ts <200423_covidQA.json> <out dir>`
// Converts COVID-QA (Möller et al., "COVID-QA: A Question Answering Dataset for COVID-19", ACL
// NLP-COVID workshop 2020; github.com/deepset-ai/COVID-QA, file
// data/question-answering/200423_covidQA.json, Apache-2.0; the articles are CORD-19 papers under
// their own open licences) into a labbot evaluation set:
//   <out>/docs/covidqa-<document_id>.md  98 full papers: YAML front matter from the article's
//                                       header lines (title, URL, authors, date, DOI, licence),
//                                       then the text from "Abstract:" on, unchanged
//   <out>/questions.jsonl                1,380 expert questions {id, question, doc_id, answers}
// `answers` holds the annotated answer text: a span of the paper, so `labbot eval --answers` can
// check whether an answer states it. The source file is read unchanged; rerunning the script
// rewrites the same files byte for byte. The data stays outside the repository.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

const source = z.object({
  data: z.array(
    z.object({
      paragraphs: z.array(
        z.object({
          context: z.string(),
          document_id: z.union([z.number(), z.string()]),
          qas: z.array(
            z.object({ id: z.union([z.number(), z.string()]), question: z.string(), answers: z.array(z.object({ text: z.string() })) }),
          ),
        }),
      ),
    }),
  ),
});

export interface ConvertedDoc {
  file: string;
  text: string;
}
export interface ConvertedQuestion {
  id: string;
  question: string;
  doc_id: string;
  answers: string[];
}

/** The article header (title, URL, authors, date, DOI, licence lines) and the body after it. */
export function splitHeader(context: string): { meta: Record<string, unknown>; body: string } {
  const at = context.search(/^Abstract:/m);
  const head = (at > 0 ? context.slice(0, at) : '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const body = at > 0 ? context.slice(at) : context;
  const url = head.find((l) => /^https?:\/\//.test(l));
  const date = head.find((l) => /^\d{4}-\d{2}-\d{2}$/.test(l));
  const doi = head.find((l) => /^DOI:/i.test(l))?.replace(/^DOI:\s*/i, '');
  const licence = head.find((l) => /^License:/i.test(l))?.replace(/^License:\s*/i, '');
  const authors = head.find((l, i) => i > 0 && l !== url && l !== date && !/^(DOI|License):/i.test(l));
  return {
    meta: {
      title: head[0] ?? null,
      authors: authors ? authors.split(/;\s*/).filter(Boolean) : [],
      year: date ? Number(date.slice(0, 4)) : null,
      doi: doi || null,
      url: url ?? null,
      license: licence ?? null,
    },
    body,
  };
}

export function convert(json: unknown): { docs: ConvertedDoc[]; questions: ConvertedQuestion[]; answersOutsideBody: number } {
  const parsed = source.parse(json);
  const docs: ConvertedDoc[] = [];
  const questions: ConvertedQuestion[] = [];
  let answersOutsideBody = 0;
  for (const article of parsed.data) {
    for (const p of article.paragraphs) {
      const id = `covidqa-${p.document_id}`;
      const { meta, body } = splitHeader(p.context);
      const front = Object.entries({ id, ...meta, kind: 'paper', source: 'COVID-QA (deepset-ai/COVID-QA)' })
        .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
        .join('\n');
      docs.push({ file: `${id}.md`, text: `---\n${front}\n---\n\n${body.trim()}\n` });
      for (const q of p.qas) {
        const answers = [...new Set(q.answers.map((a) => a.text.trim()).filter(Boolean))];
        if (answers.some((a) => !body.includes(a))) answersOutsideBody += 1;
        questions.push({ id: `covidqa-q${q.id}`, question: q.question.trim(), doc_id: id, answers });
      }
    }
  }
  return { docs, questions, answersOutsideBody };
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const [input, out] = process.argv.slice(2);
  if (!input || !out) {
    console.error('usage: npx tsx bench/datasets/covidqa.ts <200423_covidQA.json> <out dir>');
    process.exit(2);
  }
  const { docs, questions, answersOutsideBody } = convert(JSON.parse(readFileSync(input, 'utf8')));
  mkdirSync(path.join(out, 'docs'), { recursive: true });
  for (const d of docs) writeFileSync(path.join(out, 'docs', d.file), d.text);
  writeFileSync(path.join(out, 'questions.jsonl'), `${questions.map((q) => JSON.stringify(q)).join('\n')}\n`);
  console.log(
    `${docs.length} documents, ${questions.length} questions written to ${out}; ${answersOutsideBody} ` +
      `questions have an answer that is not in the document body`,
  );
}
