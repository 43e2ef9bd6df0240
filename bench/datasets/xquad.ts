// `npx tsx bench/datasets/xquad.ts <xquad.en.json> <xquad.es.json> <out dir>`
// Converts XQuAD (Artetxe et al., "On the Cross-lingual Transferability of Monolingual
// Representations", ACL 2020; github.com/google-deepmind/xquad, CC BY-SA 4.0: 48 Wikipedia
// articles, 240 paragraphs and 1,190 questions from SQuAD v1.1, professionally translated, the
// same questions and spans in every language) into labbot evaluation sets of general text in
// English and Spanish, and across the two:
//   <out>/en/docs/xquad-<n>.md         one document per article (title, paragraphs), English
//   <out>/en/questions.jsonl           English questions with English spans
//   <out>/en/questions-es.jsonl        the same questions in Spanish, over the English documents
//   <out>/es/docs/xquad-<n>.md         the same articles in Spanish
//   <out>/es/questions.jsonl           Spanish questions with Spanish spans
//   <out>/es/questions-en.jsonl        the same questions in English, over the Spanish documents
// An article has the same id in both languages, so it is on the same side of the dev/test split
// (src/eval/split.ts) in every set. Rerunning rewrites the same files; the data stays outside
// the repository.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

const source = z.object({
  data: z.array(
    z.object({
      title: z.string(),
      paragraphs: z.array(
        z.object({
          context: z.string(),
          qas: z.array(z.object({ id: z.string(), question: z.string(), answers: z.array(z.object({ text: z.string() })) })),
        }),
      ),
    }),
  ),
});
type Source = z.infer<typeof source>;

interface Question {
  id: string;
  question: string;
  doc_id: string;
  answers: string[];
  lang: 'en' | 'es';
}

const [enFile, esFile, out] = process.argv.slice(2);
if (!enFile || !esFile || !out) {
  console.error('usage: npx tsx bench/datasets/xquad.ts <xquad.en.json> <xquad.es.json> <out dir>');
  process.exit(2);
}
const read = (file: string): Source => source.parse(JSON.parse(readFileSync(file, 'utf8')));
const sets = { en: read(enFile), es: read(esFile) };
if (sets.en.data.length !== sets.es.data.length) throw new Error('the two files do not hold the same articles');

const docId = (n: number) => `xquad-${n + 1}`;
// Article titles are Wikipedia page names ("Super_Bowl_50"); the Spanish file keeps the English ones.
const title = (t: string) => t.replace(/_/g, ' ');

function questions(set: Source, lang: 'en' | 'es', spans: Source): Question[] {
  const spanOf = new Map<string, string[]>();
  for (const a of spans.data)
    for (const p of a.paragraphs)
      for (const q of p.qas)
        spanOf.set(
          q.id,
          q.answers.map((x) => x.text),
        );
  const qs: Question[] = [];
  set.data.forEach((a, n) => {
    for (const p of a.paragraphs)
      for (const q of p.qas)
        qs.push({ id: `xquad-q${q.id}`, question: q.question, doc_id: docId(n), answers: spanOf.get(q.id) ?? [], lang });
  });
  return qs;
}

const jsonl = (qs: Question[]) => qs.map((q) => JSON.stringify(q)).join('\n') + '\n';
for (const lang of ['en', 'es'] as const) {
  const other = lang === 'en' ? 'es' : 'en';
  const dir = path.join(out, lang);
  mkdirSync(path.join(dir, 'docs'), { recursive: true });
  sets[lang].data.forEach((a, n) => {
    const meta = {
      id: docId(n),
      title: title(a.title),
      language: lang,
      kind: 'wiki',
      source: 'XQuAD (google-deepmind/xquad)',
      license: 'CC BY-SA 4.0',
    };
    const front = Object.entries(meta)
      .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
      .join('\n');
    writeFileSync(
      path.join(dir, 'docs', `${docId(n)}.md`),
      `---\n${front}\n---\n\n${a.paragraphs.map((p) => p.context.trim()).join('\n\n')}\n`,
    );
  });
  writeFileSync(path.join(dir, 'questions.jsonl'), jsonl(questions(sets[lang], lang, sets[lang])));
  // The other language's questions, scored against this language's spans.
  writeFileSync(path.join(dir, `questions-${other}.jsonl`), jsonl(questions(sets[other], other, sets[lang])));
}
console.error(`${sets.en.data.length} articles and ${questions(sets.en, 'en', sets.en).length} questions per language written to ${out}`);
