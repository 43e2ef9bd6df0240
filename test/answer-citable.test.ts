// A best hit handed over with its neighbouring chunks is cited chunk by chunk: each chunk keeps
// its own section, step, slide and page; the extractive answerer still reads them as one text; the
// citation check moves a claim pinned on a neighbour to the chunk that says it.
import { describe, expect, it } from 'vitest';
import { checkSupport, finalizeAnswer } from '../src/answer/cite.ts';
import { citablePassages, joinedRuns } from '../src/answer/citable.ts';
import { fitContext } from '../src/answer/context.ts';
import { extractiveAnswer } from '../src/answer/extractive.ts';
import type { Passage } from '../src/types.ts';
import { passage } from './helpers/answer-passages.ts';

const TITLE = 'Heat-shock transformation';

/** A passage as retrieval hands over step 3 with steps 2 and 4: one text, three parts. */
function expandedStep3(): Passage {
  const bodies = [
    '2. Add 1-5 µl of plasmid DNA and flick the tube gently.',
    '3. Incubate the mixture on ice for 30 min.',
    '4. Heat shock at exactly 42 °C for 45 s in the water bath.',
  ];
  const parts = bodies.map((body, i) => ({
    chunkId: `proto#${i + 1}`,
    section: `Step ${i + 2}`,
    header: `${TITLE} — Step ${i + 2}`,
    body,
    sep: (i === 0 ? '' : '\n') as '' | '\n',
    step: i + 2,
    page: i === 2 ? 2 : 1,
  }));
  return {
    chunkId: 'proto#2',
    docId: 'proto',
    text: `${TITLE} — Step 3\n${bodies.join('\n')}`,
    section: 'Step 3',
    score: 2,
    meta: { source: 'lab', kind: 'protocol', title: TITLE, authors: ['Priya Raman'], year: 2023, access: 'public', step: 3, page: 1 },
    parts,
  };
}

const other = passage({
  text: 'Ampicillin plates older than four weeks give satellite colonies.',
  section: 'Notes',
  docId: 'notes',
  title: 'Plates',
});

describe('citablePassages', () => {
  it('makes each chunk of an expanded hit a passage with its own place, in document order', () => {
    const out = citablePassages([expandedStep3(), other]);
    expect(out.map((p) => [p.chunkId, p.section, p.meta.step, p.meta.page])).toEqual([
      ['proto#1', 'Step 2', 2, 1],
      ['proto#2', 'Step 3', 3, 1],
      ['proto#3', 'Step 4', 4, 2],
      ['notes#0', 'Notes', undefined, undefined],
    ]);
    expect(out[2].text).toBe(`${TITLE} — Step 4\n4. Heat shock at exactly 42 °C for 45 s in the water bath.`);
    expect(out.slice(0, 3).every((p) => p.joins === 'proto#2')).toBe(true);
    expect(out[3].joins).toBeUndefined();
    expect(joinedRuns(out)).toEqual([[0, 1, 2], [3]]);
  });

  it('keeps only the parts the context budget left of a passage it cut', () => {
    const full = expandedStep3();
    const cut = fitContext([full], full.text.indexOf('3. Incubate') + 12);
    const out = citablePassages(cut);
    expect(out.map((p) => p.section)).toEqual(['Step 2', 'Step 3']);
    expect(out[1].text).toBe(`${TITLE} — Step 3\n3. Incubate`);
  });
});

describe('answers cite the chunk a sentence comes from', () => {
  it('extractive: a sentence of the neighbouring step is cited by that step', () => {
    const passages = citablePassages([expandedStep3(), other]);
    const r = extractiveAnswer({ question: 'How long is the heat shock at 42 °C?', passages });
    expect(r.refused).toBe(false);
    expect(r.answer).toContain('45 s in the water bath [S3]');
    const final = finalizeAnswer({ answer: r.answer, passages, language: 'en' });
    expect(final.citations.map((c) => c.label)).toEqual(['[Raman, 2023, Step 4]']);
  });

  it('extractive: the window still reaches across the chunk boundary', () => {
    // "It" is step 4's; the words that make it an answer about the heat shock are step 3's.
    const parts = expandedStep3().parts!.map((p, i) =>
      i === 2
        ? { ...p, body: 'It lasts exactly 45 s at 42 °C in the water bath.' }
        : i === 1
          ? { ...p, body: 'Prepare the heat shock bath for the competent cells.' }
          : p,
    );
    const merged: Passage = { ...expandedStep3(), parts, text: `${TITLE} — Step 3\n${parts.map((p) => p.body).join('\n')}` };
    const r = extractiveAnswer({
      question: 'How long does the heat shock of the competent cells last?',
      passages: citablePassages([merged]),
    });
    expect(r.refused).toBe(false);
    expect(r.answer).toMatch(/45 s at 42 °C in the water bath \[S3\]/);
  });

  it('check: a claim pinned on the neighbouring step moves to the step that says it; one on another document is dropped', () => {
    const passages = citablePassages([expandedStep3(), other]);
    const moved = checkSupport('Heat shock at exactly 42 °C for 45 s [S2].', passages);
    expect(moved.text).toBe('Heat shock at exactly 42 °C for 45 s [S3].');
    expect(moved.quotes.get('S3')).toEqual(['Heat shock at exactly 42 °C for 45 s in the water bath.']);
    // A claim that its cited step does say stays where it is, even when a neighbour shares words.
    expect(checkSupport('Incubate the mixture on ice for 30 min [S2].', passages).text).toBe(
      'Incubate the mixture on ice for 30 min [S2].',
    );
    // Passages that were not handed over together are not searched for a better home.
    expect(checkSupport('Heat shock at exactly 42 °C for 45 s [S4].', passages).text).toBe('');
  });
});
