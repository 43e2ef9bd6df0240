import { describe, expect, it } from 'vitest';
import { withCognates } from '../src/answer/translated.ts';
import { tokenize } from '../src/search/tokenize.ts';

// Terms an English index holds: anything not listed was never seen.
const indexOf = (text: string) => {
  const terms = new Set(tokenize(text, { language: 'en' }));
  return (t: string) => (terms.has(t) ? 1 : 0);
};

describe('a translated question read as evidence', () => {
  const passages = ['The Panthers defense led the NFL in interceptions with 24.', 'Samples were centrifuged at 12,000 x g.'];
  const df = indexOf(`${passages.join(' ')} how many the of in to which speed after adding defence season`);

  it('replaces a word the translator left as it was by its cognate in the passages', () => {
    const original = '¿Cuántas intercepciones se le atribuyen a la defensa de los Panthers?';
    const translated = 'How many intercepciones attribute him to the defence of the Panthers?';
    expect(withCognates(translated, original, passages, df)).toBe('How many interceptions attribute him to the defence of the Panthers?');
    expect(withCognates('To which speed centrifuga after adding', '¿A qué velocidad se centrifuga después de añadir?', passages, df)).toBe(
      'To which speed centrifuged after adding',
    );
  });

  it('keeps a left-over word with no cognate, a translated word, and a word the index knows', () => {
    const original = '¿Cuántos microlitros de RNasa usa la defensa?';
    expect(withCognates('How many microlitros of RNasa', original, passages, df)).toBe('How many microlitros of RNasa');
    // "interceptions" is the translator's, not the user's: nothing to replace.
    expect(withCognates('How many interceptions', '¿Cuántas capturas?', passages, df)).toBe('How many interceptions');
    expect(withCognates('Panthers season', 'Panthers temporada', passages, df)).toBe('Panthers season');
  });
});
