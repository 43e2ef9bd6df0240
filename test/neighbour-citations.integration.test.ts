// Each sentence cites the chunk it came from. The best hits reach the answer step with their
// neighbouring chunks; each of those keeps its own step, slide, section and page in the prompt,
// in the extractive answer, in the citation check and in the Sources that Slack, the CLI and the
// API show. On the old code a sentence of step 5 was cited as "Step 6" (the sample lab's Western
// blot), a bullet of slide 4 as "Slide 3", and a model's claim from step 4 kept the label of step 3.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AskResult } from '../src/answer/answer.ts';
import type { Labbot } from '../src/app.ts';
import { sourcesBlocks } from '../src/slack/format.ts';
import { makeSlidesPptx, type SlideSpec } from './fixtures/make.ts';
import { MINIPREP, TRANSFORMATION, makeProtocolDocx, protocolMarkdown } from './fixtures/protocols.ts';
import { chatEnv, startFakeOpenAI, type ChatMessage, type FakeOpenAI } from './helpers/fake-openai.ts';
import { openTestApp } from './helpers/app.ts';

const LAB = path.resolve('examples/lab');
const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

const SLIDES: SlideSpec[] = [
  {
    title: 'CRISPR screen update',
    bullets: ['Genome-wide knockout screen in HEK293T', 'Status after round two'],
    notes: 'Welcome everyone; this is the March update.',
  },
  {
    title: 'Library and transduction',
    bullets: ['Brunello library, 4 guides per gene', 'MOI 0.3, 500x coverage'],
    notes: 'Coverage dropped to 350x in replicate B because of a counting error.',
  },
  {
    title: 'Hits so far',
    bullets: ['Top hit: VPS35', 'Second: RAB7A', 'Retromer genes enriched'],
    notes: 'VPS35 validation is the priority for April.',
  },
  {
    title: 'Validation plan',
    bullets: ['Individual guides for the top 10 hits', 'Arrayed library from the core'],
    notes: 'The arrayed library quote from the core was 4,200 euros.',
  },
  {
    title: 'Open questions',
    bullets: ['Why is replicate B weaker?', 'Do we need a second cell line?'],
    notes: 'RPE-1 would be the second line if the budget allows.',
  },
];

/**
 * Every quote shown under a source sits in a chunk of that document whose section is the one the
 * source names, and every label in the answer points at a passage of the section its source shows.
 */
function expectOwnPlaces(app: Labbot, r: AskResult, question: string): void {
  for (const c of r.citations) {
    const chunks = app.catalog.doc(c.doc_id)!.chunkIds.map((id) => app.catalog.chunk(id)!);
    for (const quote of c.quotes) {
      const holders = chunks.filter((ch) => squash(ch.text).includes(squash(quote)));
      expect(holders.length, `${question}: "${quote}"`).toBeGreaterThan(0);
      expect(
        holders.map((h) => h.section),
        `${question}: "${quote}" cited as ${c.label}`,
      ).toContain(c.section);
    }
    for (const ref of c.refs) expect(r.passages.find((p) => p.label === ref)?.section, `${question}: ${ref}`).toBe(c.section);
  }
}

describe('neighbouring chunks keep their own labels (no model)', () => {
  let app: Labbot;
  beforeAll(async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-neighbours-'));
    writeFileSync(path.join(dir, 'screen-update.pptx'), await makeSlidesPptx(SLIDES));
    writeFileSync(path.join(dir, 'transformation.md'), protocolMarkdown(TRANSFORMATION));
    writeFileSync(path.join(dir, 'miniprep.docx'), await makeProtocolDocx(MINIPREP));
    app = await openTestApp({
      fileConfig: {
        sources: [
          { id: 'lab', type: 'folder', path: LAB },
          { id: 'new', type: 'folder', path: dir },
        ],
        access: { default: 'public', channels: {} },
      },
    });
    for (const s of app.config.sources) expect((await app.ingestSource(s)).failed).toEqual([]);
  });
  afterAll(async () => app?.close());

  it('cites each quoted step of the sample lab by its own step (step 5 was cited as "Step 6", step 4 as "Step 3")', async () => {
    const western = await app.ask('In the western blot protocol, at what voltage and for how long is the transfer to PVDF run?');
    expect(western.refused).toBe(false);
    expectOwnPlaces(app, western, 'western');
    expect(western.citations.map((c) => c.section)).toContain('Step 6');
    const trizol = await app.ask('¿A qué velocidad se centrifuga después de añadir el cloroformo?');
    expect(trizol.refused).toBe(false);
    expectOwnPlaces(app, trizol, 'trizol');
    const spin = trizol.citations.find((c) => c.quotes.some((q) => q.includes('12.000 × g durante 15 minutos')));
    expect(spin?.label).toMatch(/Step 4\]$/);
  });

  it("cites a bullet of the next slide by that slide, not the best hit's", async () => {
    const r = await app.ask('Which gene was the top hit of the screen?');
    expect(r.refused).toBe(false);
    expectOwnPlaces(app, r, 'top hit');
    const validation = r.citations.find((c) => c.quotes.some((q) => q.includes('Individual guides for the top 10 hits')));
    if (validation) expect(validation.section).toBe('Slide 4: Validation plan');
    expect(r.citations.find((c) => c.quotes.some((q) => q.includes('Top hit: VPS35')))?.section).toBe('Slide 3: Hits so far');
  });

  it("keeps every quote of the sample lab's questions in the section its source names", async () => {
    const questions = [
      'What is the catalogue number of the p53 antibody we use for western blots?',
      'At what dilution is the anti-MDM2 antibody sc-965 used?',
      'What was the p53 half-life in hypoxic HEK293T cells treated with P5091?',
      'By how much did MDM2 protein fall after P5091 treatment under hypoxia?',
      'How many-fold was HIF-1alpha induced after 16 h at 1% O2 in the 2020 study?',
      'At which passage number should a HEK293T culture be discarded?',
      'How long are the cells kept on ice after the heat shock?',
      'At what speed is the culture pelleted for the miniprep?',
    ];
    let answered = 0;
    for (const q of questions) {
      const r = await app.ask(q);
      if (!r.refused) answered++;
      expectOwnPlaces(app, r, q);
    }
    expect(answered).toBeGreaterThanOrEqual(6);
  });

  it("lists each neighbouring chunk as its own passage, and Slack shows the quoted step's own label", async () => {
    const r = await app.ask('How long is the heat shock at 42 °C?');
    const doc = [...app.catalog.docs()].find((d) => d.path === 'transformation.md')!;
    // The hit and its neighbours: three passages, three steps, each with its own chunk.
    const own = r.passages.slice(0, 3);
    expect(own.every((p) => p.doc_id === doc.id)).toBe(true);
    expect(new Set(own.map((p) => p.chunk_id)).size).toBe(3);
    expect(own.map((p) => p.section)).toEqual(['Step 3', 'Step 4', 'Step 5']);
    expect(r.citations[0].label).toMatch(/Step 4\]$/);
    const slack = JSON.stringify(sourcesBlocks(r.citations, 'en'));
    expect(slack).toContain('Step 4');
    expect(slack).not.toMatch(/Step [35]\b/);
  });
});

describe('neighbouring chunks keep their own labels (with a model)', () => {
  let app: Labbot;
  let fake: FakeOpenAI;
  let prompts: ChatMessage[][] = [];
  beforeAll(async () => {
    fake = await startFakeOpenAI({ dimensions: 64 });
    const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-neighbours-model-'));
    writeFileSync(path.join(dir, 'transformation.md'), protocolMarkdown(TRANSFORMATION));
    writeFileSync(path.join(dir, 'screen-update.pptx'), await makeSlidesPptx(SLIDES));
    app = await openTestApp({
      fileConfig: { sources: [{ id: 'lab', type: 'folder', path: dir }], access: { default: 'public', channels: {} } },
      env: chatEnv(fake),
    });
    expect((await app.ingestSource(app.config.sources[0])).failed).toEqual([]);
  });
  afterAll(async () => {
    await app?.close();
    await fake?.close();
  });

  /** Passage label -> its fields and text, as the model received them. */
  const passagesIn = (messages: ChatMessage[]) => {
    const user = messages
      .filter((m) => m.role === 'user')
      .map((m) => m.content)
      .join('\n');
    return [...user.matchAll(/<passage id="(S\d+)">\n([\s\S]*?)\ntext:\n([\s\S]*?)\n<\/passage>/g)].map((m) => ({
      label: m[1],
      fields: m[2],
      text: m[3],
    }));
  };

  it('gives each neighbouring chunk its own label, step and place in the prompt', async () => {
    prompts = [];
    fake.reply = (messages) => {
      prompts.push(messages);
      const own = passagesIn(messages).find((p) => p.text.includes('Heat shock at exactly 42 °C'))!;
      return `Heat shock at exactly 42 °C for 45 s [${own.label}].`;
    };
    const r = await app.ask('How long is the heat shock at 42 °C?');
    const sent = passagesIn(prompts.at(-1)!);
    const steps = sent.map((p) => /^step: (\d+)$/m.exec(p.fields)?.[1]).filter(Boolean);
    expect(steps).toEqual(expect.arrayContaining(['3', '4', '5']));
    // Step 4's passage holds step 4's text only, and says which passage it continues.
    const step4 = sent.find((p) => /^step: 4$/m.test(p.fields))!;
    expect(step4.text).toContain('Heat shock at exactly 42 °C');
    expect(step4.text).not.toContain('Incubate the mixture on ice');
    expect(step4.fields).toMatch(/^continues: S\d+$/m);
    expect(r.refused).toBe(false);
    expect(r.citations.map((c) => c.label)).toEqual([expect.stringMatching(/Step 4\]$/)]);
  });

  it('moves a claim a model pinned on the neighbouring step to the step that says it', async () => {
    fake.reply = (messages) => {
      const sent = passagesIn(messages);
      const own = sent.find((p) => p.text.includes('Heat shock at exactly 42 °C'));
      // The model cites the passage before it: step 3, whose header shares "heat shock" (the old
      // prompt had one passage for steps 3 to 5, labelled by step 3).
      const previous = /^continues: (S\d+)$/m.exec(own?.fields ?? '')?.[1] ?? 'S1';
      return `Heat shock at exactly 42 °C for 45 s [${previous}].`;
    };
    const r = await app.ask('How long is the heat shock at 42 °C?');
    expect(r.refused).toBe(false);
    const label = /\[(S\d+)\]/.exec(r.answer)![1];
    expect(r.passages.find((p) => p.label === label)?.section).toBe('Step 4');
    expect(r.citations.map((c) => c.label)).toEqual([expect.stringMatching(/Step 4\]$/)]);
  });

  it('cites a speaker note by its own slide when the model pinned it on the slide before', async () => {
    fake.reply = (messages) => {
      const sent = passagesIn(messages);
      const hit = sent.find((p) => p.text.includes('Top hit: VPS35'));
      // A model that cites the best hit (slide 3) for its own line and for the next slide's note.
      return `The top hit was VPS35 [${hit?.label ?? 'S1'}]. The arrayed library quote from the core was 4,200 euros [${hit?.label ?? 'S1'}].`;
    };
    const r = await app.ask('Which gene was the top hit of the screen?');
    expect(r.refused).toBe(false);
    expect(r.citations.map((c) => c.section)).toEqual(['Slide 3: Hits so far', 'Slide 4: Validation plan']);
    expect(r.citations[1].quotes).toEqual(['Speaker notes: The arrayed library quote from the core was 4,200 euros.']);
  });
});
