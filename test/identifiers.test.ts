import { describe, expect, it } from 'vitest';
import { exactMatchFraction, exactMatchers, extractExactTerms, isMeasure } from '../src/search/identifiers.ts';

describe('exact terms', () => {
  it('finds gene names, cell lines, catalogue numbers, #ids and quoted phrases', () => {
    const t = extractExactTerms(
      'Which antibody (ab32389) detects TP53 in HEK293T cells, per "Western blot v2" and ticket #1234? Also IL-6 and sc-7392.',
    );
    expect(t.identifiers).toEqual(expect.arrayContaining(['ab32389', 'TP53', 'HEK293T', '#1234', 'IL-6', 'sc-7392']));
    expect(t.phrases).toEqual(['Western blot v2']);
    expect(t.identifiers).not.toContain('Which');
  });

  it('ignores ordinary words and question words in capitals', () => {
    const t = extractExactTerms('WHAT is the protocol for passaging cells?');
    expect(t.identifiers).toEqual([]);
  });

  it('matches identifiers literally at token boundaries, tolerating hyphenation', () => {
    const m = exactMatchers({ phrases: [], identifiers: ['IL-6', 'TP53'] });
    expect(exactMatchFraction('We measured IL6 and TP53 levels.', m)).toBe(1);
    expect(exactMatchFraction('We measured IL-6 only.', m)).toBe(0.5);
    expect(exactMatchFraction('TP534 is a different clone', m)).toBe(0);
    const cat = exactMatchers({ phrases: [], identifiers: ['sc-7392'] });
    expect(exactMatchFraction('Santa Cruz sc-7392, 1:1000', cat)).toBe(1);
    expect(exactMatchFraction('Santa Cruz sc-73921', cat)).toBe(0);
  });

  it('matches quoted phrases across whitespace differences, case-insensitively', () => {
    const m = exactMatchers({ phrases: ['western blot v2'], identifiers: [] });
    expect(exactMatchFraction('See the Western\n blot  v2 page', m)).toBe(1);
    expect(exactMatchFraction('nothing here', [])).toBe(0);
  });

  it('weights each term, so a common identifier counts for less than a rare one', () => {
    const m = exactMatchers({ phrases: [], identifiers: ['HEK293T', 'ab32389'] });
    expect(exactMatchFraction('HEK293T lysate', m, [0.3, 1])).toBeCloseTo(0.15);
    expect(exactMatchFraction('ab32389 at 1:1000', m, [0.3, 1])).toBeCloseTo(0.5);
  });

  it('does not take ordinals and quantities with units for identifiers', () => {
    const t = extractExactTerms('Is p53 in HEK293T cells lower at the 2nd time point of the 4-year study, after 10mg or 37C for 24h?');
    expect(t.identifiers).toEqual(['p53', 'HEK293T']);
    for (const m of ['2nd', '4-year', '4year', '10mg', '37C', '24h', '3x', '1990s']) expect(isMeasure(m), m).toBe(true);
    for (const id of ['ab32389', 'HEK293T', 'p53', '3T3', 'sc-7392', 'A5441', 'CD4']) expect(isMeasure(id), id).toBe(false);
  });

  it('reads a name written with a prefix', () => {
    expect(extractExactTerms('At what dilution do we use the anti-VEGFA antibody?').identifiers).toEqual(['VEGFA']);
    expect(extractExactTerms('Is anti-MDM2 used at 1:500?').identifiers).toEqual(['anti-MDM2']);
    expect(extractExactTerms('Is this a follow-up study?').identifiers).toEqual([]);
  });
});
