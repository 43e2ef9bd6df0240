import { describe, expect, it } from 'vitest';
import { answerShape } from '../src/answer/answer-shape.ts';
import { extractiveAnswer } from '../src/answer/extractive.ts';
import type { Passage } from '../src/types.ts';

const shapeOf = (q: string) => answerShape(q) ?? /$^/;

describe('the shape of the sentence a question asks for', () => {
  it('a count of what "how many" counts, in figures or words, with up to two words between', () => {
    const s = shapeOf('How many nucleotides does bovine coronavirus contain?');
    expect(s.test('The genome is 30,847 nucleotides long.')).toBe(true);
    expect(s.test('It holds about 31 thousand nucleotide pairs.')).toBe(true);
    expect(s.test('with a nucleotide identity of 100%')).toBe(false);
    expect(shapeOf('How many patients were enrolled?').test('We enrolled twelve adult patients.')).toBe(true);
    expect(shapeOf('¿Cuántos lavados se hacen?').test('Se hacen tres lavados de 5 min.')).toBe(true);
  });

  it('a definition of the one term "what is" names', () => {
    const s = shapeOf('What is IFITM?');
    expect(s.test('Interferon-induced transmembrane (IFITM) proteins restrict entry.')).toBe(true);
    expect(s.test('IFITM (interferon-induced transmembrane) proteins …')).toBe(true);
    expect(s.test('IFITM is a family of small proteins.')).toBe(true);
    expect(s.test('IFITM5 was expressed in osteoblasts.')).toBe(false);
    expect(shapeOf('¿Qué es la PCR?').test('La PCR es una técnica de amplificación.')).toBe(true);
  });

  it('none for questions that give no shape away, and a name is matched as text, never as a pattern', () => {
    expect(answerShape('What inhibits S-palmitoylation?')).toBeUndefined();
    expect(answerShape('What is the case fatality rate of SARS?')).toBeUndefined();
    expect(answerShape('Why do we block the membrane?')).toBeUndefined();
    expect(shapeOf('What is a.b?').test('axb is a thing')).toBe(false);
  });
});

describe('the extractive answer prefers the sentence in that shape', () => {
  const passage = (text: string): Passage => ({
    chunkId: 'p#0',
    docId: 'p',
    text,
    section: 'Results',
    score: 1,
    meta: { source: 's', kind: 'paper', title: 'BCoV genome', authors: [], access: 'public' },
  });

  it('quotes the count of nucleotides over a sentence with another number about nucleotides', () => {
    const text =
      'Bovine coronavirus nucleotide identity with strain AKS-01 was 100% over the E gene. ' +
      'Its genome sequence was assembled from 2 runs. The bovine coronavirus genome contains 30,847 nucleotides.';
    const a = extractiveAnswer({ question: 'How many nucleotides does the bovine coronavirus genome contain?', passages: [passage(text)] });
    expect(a.refused).toBe(false);
    expect(a.answer.split(/(?<=\.)\s/)[0]).toMatch(/30,847 nucleotides/);
  });
});
