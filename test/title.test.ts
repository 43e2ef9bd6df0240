// Titles for documents whose metadata has none: the first line when it reads as a title.
import { describe, expect, it } from 'vitest';
import { parseFile } from '../src/ingest/parse/index.ts';
import { looksLikeTitle, titleFromBlocks } from '../src/ingest/title.ts';

const parse = async (name: string, text: string) => (await parseFile({ name, bytes: Buffer.from(text) }, { maxBytes: 1e6 })).blocks;

describe('titleFromBlocks', () => {
  it('takes a title-like first line of a plain-text paper', async () => {
    const blocks = await parse(
      'paper.txt',
      'Functional Genetic Variants in DC-SIGNR Are Associated with Transmission of ' +
        'HIV-1\n\nhttps://example.org/x\n\nAbstract: Mother-to-child transmission is the main ' +
        'cause of infection. We studied it.\n',
    );
    expect(titleFromBlocks(blocks)).toBe('Functional Genetic Variants in DC-SIGNR Are Associated with Transmission of HIV-1');
  });

  it('prefers a leading heading, and skips prose to find a later heading', async () => {
    expect(titleFromBlocks(await parse('a.md', '# Passaging HeLa\n\nSplit at 80% confluence.\n'))).toBe('Passaging HeLa');
    const prose = await parse('b.md', 'We split cells at 80% confluence every Monday.\n\n## Passaging\n\nUse trypsin.\n');
    expect(titleFromBlocks(prose)).toBe('Passaging');
  });

  it("does not take a PDF's first line (often a running header) as its title", () => {
    const blocks = [
      { type: 'paragraph' as const, text: 'Journal of Cell Stress Volume 12' },
      { type: 'paragraph' as const, text: 'We measured p53 pulses in single cells.' },
    ];
    expect(titleFromBlocks(blocks, 'pdf')).toBeUndefined();
    expect(titleFromBlocks(blocks, 'text')).toBe('Journal of Cell Stress Volume 12');
  });

  it('leaves sentences, URLs, labels and one-block files to the file-name fallback', async () => {
    expect(titleFromBlocks(await parse('c.txt', 'Only one line of notes here\n'))).toBeUndefined();
    expect(titleFromBlocks(await parse('d.txt', 'Cells were split on Monday.\n\nThen frozen.\n'))).toBeUndefined();
    expect(looksLikeTitle('https://example.org/paper')).toBe(false);
    expect(looksLikeTitle('Abstract:')).toBe(false);
    expect(looksLikeTitle('and then we lysed the cells with buffer')).toBe(false);
    expect(looksLikeTitle('p53 dynamics in stressed cells')).toBe(true);
    expect(looksLikeTitle('Is it better to be big?')).toBe(true);
    expect(looksLikeTitle('x'.repeat(300))).toBe(false);
  });
});
