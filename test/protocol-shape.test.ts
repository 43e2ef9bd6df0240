// Protocols recognised from their shape, with no front matter: Markdown, DOCX (Word numbering as
// mammoth reads it) and PDF (steps that wrap, sub-steps, a step cut by a page break, protocols.io
// step numbers on lines of their own), each cut into one chunk per step with the right number.
// Look-alikes stay what they are: a wiki page with a short numbered list, a paper whose Methods
// number their steps.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunkDocument, detectKind } from '../src/ingest/chunk/index.ts';
import { parseFile } from '../src/ingest/parse/index.ts';
import { titleFromBlocks } from '../src/ingest/title.ts';
import type { Labbot } from '../src/app.ts';
import type { ChunkDraft, Kind } from '../src/types.ts';
import { makePaperPdf } from './fixtures/make.ts';
import {
  LONG_FORM,
  MINIPREP,
  PAPER_WITH_STEPS,
  PROTOCOLS_IO,
  TRANSFORMATION,
  WIKI_WITH_LIST,
  makeProtocolDocx,
  makeProtocolPdf,
  protocolMarkdown,
  type ProtocolSpec,
} from './fixtures/protocols.ts';
import { openTestApp } from './helpers/app.ts';

const utf8 = (s: string) => new TextEncoder().encode(s);

/** What the ingest pipeline does with a file that has no front matter: parse, detect, chunk. */
async function read(name: string, bytes: Uint8Array): Promise<{ kind: Kind; chunks: ChunkDraft[] }> {
  const parsed = await parseFile({ name, bytes });
  const kind = detectKind({ fileName: name, format: parsed.format, blocks: parsed.blocks });
  const title = parsed.meta.title ?? titleFromBlocks(parsed.blocks, parsed.format) ?? name;
  return { kind, chunks: chunkDocument({ title, kind, blocks: parsed.blocks }) };
}

const stepTexts = (spec: ProtocolSpec): string[] => spec.steps.flatMap((g) => g.steps.map((s) => s.text));
const squash = (s: string) => s.replace(/\s+/g, ' ').replace(/μ/g, 'µ').trim();

/** Every step of the spec is its own chunk, numbered as printed, holding that step's own text. */
function expectOneChunkPerStep(chunks: ChunkDraft[], spec: ProtocolSpec, label: string): void {
  const steps = chunks.filter((c) => c.step !== undefined);
  const texts = stepTexts(spec);
  expect(
    steps.map((c) => c.step),
    label,
  ).toEqual(texts.map((_, i) => i + 1));
  steps.forEach((c, i) => {
    expect(c.section, label).toMatch(new RegExp(`(?:^|> )Step ${i + 1}$`));
    // The first words of the step are in its chunk and in no other step's chunk.
    const words = squash(texts[i]).split(' ').slice(0, 6).join(' ');
    expect(squash(c.text), `${label} step ${i + 1}`).toContain(words);
    for (const other of steps) if (other !== c) expect(squash(other.text)).not.toContain(words);
  });
}

describe('protocols without front matter, from their shape', () => {
  it('reads numbered steps as a protocol in Markdown, as "1.", "1)" and "Step 1:", with or without a materials list', async () => {
    for (const spec of [TRANSFORMATION, MINIPREP, PROTOCOLS_IO]) {
      for (const style of ['list', 'paren', 'step-colon'] as const) {
        const { kind, chunks } = await read('protocol.md', utf8(protocolMarkdown(spec, style)));
        expect(kind, `${spec.title} ${style}`).toBe('protocol');
        expectOneChunkPerStep(chunks, spec, `${spec.title} ${style}`);
      }
    }
  });

  it('keeps sub-steps ("a.", "b.") inside their step', async () => {
    for (const [name, bytes] of [
      ['m.md', utf8(protocolMarkdown(MINIPREP))],
      ['m.docx', await makeProtocolDocx(MINIPREP)],
      ['m.pdf', await makeProtocolPdf(MINIPREP)],
    ] as const) {
      const { chunks } = await read(name, bytes);
      const step3 = chunks.find((c) => c.step === 3)!;
      expect(squash(step3.text), name).toContain('Add 250 µl of buffer P2');
      expect(squash(step3.text), name).toContain('Do not let the lysis run longer than 5 min');
      expect(squash(chunks.find((c) => c.step === 4)!.text), name).not.toContain('buffer P2');
    }
  });

  it('reads a DOCX numbered list (Word numbering) as steps, numbered on across sub-headings as Word shows them', async () => {
    for (const spec of [TRANSFORMATION, MINIPREP, PROTOCOLS_IO]) {
      const { kind, chunks } = await read('p.docx', await makeProtocolDocx(spec));
      expect(kind, spec.title).toBe('protocol');
      expectOneChunkPerStep(chunks, spec, spec.title);
    }
    const { chunks } = await read('p.docx', await makeProtocolDocx(PROTOCOLS_IO));
    expect(chunks.find((c) => c.step === 3)?.section).toBe('Clipping > Step 3');
  });

  it('keeps Word numbering that restarts in each section ("Restart at 1")', async () => {
    const { chunks } = await read('p.docx', await makeProtocolDocx(PROTOCOLS_IO, { restartEachGroup: true }));
    expect(chunks.filter((c) => c.step !== undefined).map((c) => c.section)).toEqual([
      'Anaesthesia > Step 1',
      'Anaesthesia > Step 2',
      'Clipping > Step 1',
      'Clipping > Step 2',
      'Clipping > Step 3',
      'DNA extraction > Step 1',
      'DNA extraction > Step 2',
    ]);
  });

  it('reads PDF steps as "1.", "Step 1:" or protocols.io numbers on their own line, a step cut by a page break staying one step', async () => {
    for (const spec of [TRANSFORMATION, MINIPREP, PROTOCOLS_IO]) {
      for (const style of ['numbered', 'step-colon', 'lone-number'] as const) {
        const bytes = await makeProtocolPdf(spec, { style, breakInsideStep: 3, runningHeader: `Lab protocols - ${spec.title}` });
        const label = `${spec.title} ${style}`;
        const { kind, chunks } = await read('p.pdf', bytes);
        expect(kind, label).toBe('protocol');
        expectOneChunkPerStep(chunks, spec, label);
        // Step 3 starts on page 1 and ends on page 2; step 4 is on page 2.
        expect(chunks.find((c) => c.step === 3)?.page, label).toBe(1);
        expect(chunks.find((c) => c.step === 4)?.page, label).toBe(2);
        expect(
          chunks.some((c) => /Page \d of \d|Lab protocols -/.test(c.text)),
          label,
        ).toBe(false);
      }
    }
    const { chunks } = await read('p.pdf', await makeProtocolPdf(PROTOCOLS_IO, { style: 'lone-number' }));
    expect(chunks.find((c) => c.step === 3)?.section).toBe('Clipping > Step 3');
    expect(chunks.find((c) => c.section === 'Materials')?.text).toContain('Sterile razor blades');
  });

  it('reads a long-form protocol (abstract, introduction, materials, procedure, references) as a protocol, not a paper', async () => {
    for (const [name, bytes] of [
      ['chip.md', utf8(protocolMarkdown(LONG_FORM))],
      ['chip.docx', await makeProtocolDocx(LONG_FORM)],
      ['chip.pdf', await makeProtocolPdf(LONG_FORM)],
    ] as const) {
      const { kind, chunks } = await read(name, bytes);
      expect(kind, name).toBe('protocol');
      expectOneChunkPerStep(chunks, LONG_FORM, name);
      expect(
        chunks.map((c) => c.section),
        name,
      ).toEqual(expect.arrayContaining(['Materials', 'Troubleshooting']));
    }
  });

  it('leaves a wiki page with a short numbered list a wiki page', async () => {
    const { kind } = await read('getting-started.md', utf8(WIKI_WITH_LIST));
    expect(kind).toBe('wiki');
  });

  it('leaves a paper whose Methods number their steps a paper, in Markdown and PDF', async () => {
    expect((await read('kcnk5b.md', utf8(PAPER_WITH_STEPS))).kind).toBe('paper');
    const pdf = await makePaperPdf({
      title: 'Loss of kcnk5b lengthens zebrafish fins',
      runningHeader: false,
      sections: [
        { heading: 'Abstract', paragraphs: ['Fin length in zebrafish is set by potassium channel activity.'] },
        { heading: '1. Introduction', paragraphs: ['Long-fin mutants have been known for decades.'] },
        { heading: '2. Methods', paragraphs: ['Fins were amputated and regenerated as follows.'] },
        {
          heading: 'Procedure',
          compact: true,
          paragraphs: [
            '1. Anaesthetise adult fish in 0.016% tricaine for 2 min.',
            '2. Amputate the caudal fin 50% proximal to the tip.',
            '3. Keep the fish at 28.5 °C for 7 days.',
            '4. Measure regenerate length in Fiji after 7 days.',
          ],
        },
        { heading: '3. Results', paragraphs: ['Mutant fins regenerated 34% longer than wild-type fins after 7 days.'] },
        { heading: '4. Discussion', paragraphs: ['Kcnk5b acts as a brake on fin outgrowth.'] },
      ],
    });
    expect((await read('kcnk5b.pdf', pdf)).kind).toBe('paper');
  });
});

describe('protocols without front matter, ingested and cited by step', () => {
  let app: Labbot;
  beforeAll(async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-protocols-'));
    writeFileSync(path.join(dir, 'transformation.md'), protocolMarkdown(TRANSFORMATION));
    writeFileSync(path.join(dir, 'miniprep.docx'), await makeProtocolDocx(MINIPREP));
    writeFileSync(path.join(dir, 'fin-clip.pdf'), await makeProtocolPdf(PROTOCOLS_IO, { style: 'lone-number', breakInsideStep: 3 }));
    writeFileSync(path.join(dir, 'getting-started.md'), WIKI_WITH_LIST);
    app = await openTestApp({
      fileConfig: { sources: [{ id: 'lab', type: 'folder', path: dir }], access: { default: 'public', channels: {} } },
    });
    const s = await app.ingestSource(app.config.sources[0]);
    expect(s.failed).toEqual([]);
  });
  afterAll(async () => app?.close());

  it('indexes each as a protocol with one chunk per step, the wiki page as a wiki page', () => {
    const byPath = new Map([...app.catalog.docs()].map((d) => [d.path, d]));
    expect(byPath.get('transformation.md')?.kind).toBe('protocol');
    expect(byPath.get('miniprep.docx')?.kind).toBe('protocol');
    expect(byPath.get('fin-clip.pdf')?.kind).toBe('protocol');
    expect(byPath.get('getting-started.md')?.kind).toBe('wiki');
    const steps = (p: string) =>
      byPath
        .get(p)!
        .chunkIds.map((id) => app.catalog.chunkInfo(id)?.step)
        .filter((s) => s !== undefined);
    expect(steps('transformation.md')).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(steps('miniprep.docx')).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(steps('fin-clip.pdf')).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('cites the step an answer comes from', async () => {
    const heat = await app.ask('How long is the heat shock at 42 °C?');
    expect(heat.refused).toBe(false);
    expect(heat.answer).toMatch(/45 s/);
    expect(heat.citations[0].label).toMatch(/Step 4\]$/);
    const spin = await app.ask('How long is the fin tissue heated at 95 °C?');
    expect(spin.refused).toBe(false);
    expect(spin.citations[0].label).toMatch(/DNA extraction > Step 6\]$/);
  });
});
