import { describe, expect, it } from 'vitest';
import { analyse, detectLanguage, normalizeIdentifier, tokenize, tokenizeWithPositions } from '../src/search/tokenize.ts';

describe('tokenize', () => {
  it('lower-cases, removes English stop words and stems', () => {
    expect(tokenize('The Proteins were running in the Cells')).toEqual(['protein', 'run', 'cell']);
  });

  it('folds diacritics so accented and plain spellings meet', () => {
    expect(tokenize('Müller naïve café')).toEqual(tokenize('Muller naive cafe'));
    expect(tokenize('Müller')).toEqual(['muller']);
  });

  it('keeps gene and protein names whole and unstemmed', () => {
    const terms = tokenize('Mutations in TP53 and BRCA1 were studied');
    expect(terms).toContain('tp53');
    expect(terms).toContain('brca1');
  });

  it('indexes hyphenated identifiers joined and by parts', () => {
    expect(tokenize('IL-6')).toEqual(['il6', 'il', '6']);
    expect(tokenize('sc-7392')).toEqual(['sc7392', 'sc', '7392']);
    // Typing the identifier without the hyphen still meets the joined form.
    expect(tokenize('IL6')).toEqual(['il6']);
  });

  it('keeps catalogue numbers, issue numbers and decimals', () => {
    expect(tokenize('antibody ab32389')).toEqual(['antibodi', 'ab32389']);
    expect(tokenize('see #1234')).toEqual(['see', '1234']);
    expect(tokenize('p < 0.05 at 37 degrees')).toEqual(['p', '0.05', '37', 'degre']);
    expect(tokenize('a 1.5-fold increase')).toEqual(expect.arrayContaining(['1.5', 'fold']));
  });

  it('does not join ordinary hyphenated words or numeric ranges', () => {
    expect(tokenize('cross-sectional')).toEqual(['cross', 'section']);
    expect(tokenize('2019-05-03')).toEqual(['2019', '05', '03']);
  });

  it('spells out Greek letters so symbol and name spellings meet', () => {
    expect(tokenize('TNF-α')).toContain('tnfalpha');
    expect(tokenize('TNF-alpha')).toContain('tnfalpha');
    expect(tokenize('10 µg')).toEqual(['10', 'ug']);
  });

  it('drops English clitics', () => {
    expect(tokenize("the patient's sample")).toEqual(['patient', 'sampl']);
  });

  it('keeps upper-case stop words that are abbreviations, unless the text is all upper case', () => {
    expect(tokenize('treatment of ALL')).toEqual(['treatment', 'all']);
    expect(tokenize('treatment of all')).toEqual(['treatment']);
    expect(tokenize('NO synthase')).toEqual(['no', 'synthas']);
    expect(tokenize('WHAT IS THE ROLE OF ALL CELLS')).toEqual(['role', 'cell']);
  });

  it('removes Spanish stop words and stems Spanish text with the Spanish stemmer', () => {
    const terms = tokenize('La purificación de las proteínas con anticuerpos');
    expect(terms).toEqual(['purif', 'protein', 'anticuerp']);
  });

  it('gives the same Spanish terms with or without accents', () => {
    expect(tokenize('purificacion de proteinas')).toEqual(tokenize('purificación de proteínas'));
  });

  it('returns nothing for empty or stop-word-only text', () => {
    expect(tokenize('')).toEqual([]);
    expect(tokenize('  ?! -- ')).toEqual([]);
    expect(tokenize('what is the')).toEqual([]);
  });

  it('agrees between a document and a query about it', () => {
    const doc = new Set(tokenize('We knocked down IL-6 in HeLa cells using siRNA (sc-7392).'));
    for (const q of ['il-6 knockdown', 'IL6', 'SC-7392', 'hela cell']) {
      const qt = tokenize(q).filter((t) => t !== 'knockdown');
      expect(qt.length).toBeGreaterThan(0);
      for (const t of qt) expect(doc.has(t)).toBe(true);
    }
  });
});

describe('tokenizeWithPositions', () => {
  it('keeps word positions of removed stop words so distances are true', () => {
    expect(tokenizeWithPositions('levels of the protein')).toEqual([
      { term: 'level', position: 0 },
      { term: 'protein', position: 3 },
    ]);
  });

  it('puts a joined identifier at its first part, positions never decreasing', () => {
    const toks = tokenizeWithPositions('serum IL-6 level');
    expect(toks).toEqual([
      { term: 'serum', position: 0 },
      { term: 'il6', position: 1 },
      { term: 'il', position: 1 },
      { term: '6', position: 2 },
      { term: 'level', position: 3 },
    ]);
  });
});

describe('detectLanguage', () => {
  it('detects Spanish from function words', () => {
    expect(detectLanguage('¿Cuál es el protocolo para la extracción de ARN?')).toBe('es');
    expect(detectLanguage('protocolo de extracción')).toBe('es');
  });

  it('defaults to English, and one accented name does not flip it', () => {
    expect(detectLanguage('What is the protocol for RNA extraction?')).toBe('en');
    expect(detectLanguage('TP53 BRCA1')).toBe('en');
    expect(detectLanguage('Pérez protocol')).toBe('en');
  });

  it('can be overridden with a declared language', () => {
    expect(analyse('proteinas', { language: 'es' }).terms).toEqual(['protein']);
    expect(analyse('proteinas', { language: 'en' }).terms).toEqual(['proteina']);
  });
});

describe('normalizeIdentifier', () => {
  it('maps identifiers to their single indexed term', () => {
    expect(normalizeIdentifier('IL-6')).toBe('il6');
    expect(normalizeIdentifier('#1234')).toBe('1234');
    expect(normalizeIdentifier('sc-7392')).toBe('sc7392');
    expect(normalizeIdentifier('TP53')).toBe('tp53');
  });
});
