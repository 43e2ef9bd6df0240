import { describe, expect, it } from 'vitest';
import { checkCitations, deepLink, citationLabel, citationLink, familyName, finalizeAnswer } from '../src/answer/cite.ts';
import { isRefusal, messages, refusalText } from '../src/answer/messages.ts';
import type { PassageMeta } from '../src/types.ts';
import { passage } from './helpers/answer-passages.ts';

const meta = (over: Partial<PassageMeta>): PassageMeta => ({
  source: 'lab',
  kind: 'paper',
  title: 'USP7 inhibition further stabilises p53 in hypoxic HEK293T cells',
  authors: [],
  access: 'public',
  ...over,
});

describe('checkCitations', () => {
  const labels = ['S1', 'S2', 'S3'];

  it('removes a label that matches no passage', () => {
    const r = checkCitations('Use ab32389 at 1:1000 [S1]. Also see [S9].', labels);
    expect(r.text).toBe('Use ab32389 at 1:1000 [S1]. Also see.');
    expect(r.cited).toEqual(['S1']);
    expect(r.removed).toEqual(['S9']);
  });

  it('accepts grouped and adjacent labels, keeping the valid ones of a group', () => {
    const r = checkCitations('A [S1, S3]. B [S2][S1]. C [S2; S9]. D [s3].', labels);
    expect(r.text).toBe('A [S1, S3]. B [S2][S1]. C [S2]. D [S3].');
    expect(r.cited).toEqual(['S1', 'S3', 'S2']);
    expect(r.removed).toEqual(['S9']);
  });

  it('expands ranges but not absurd ones', () => {
    expect(checkCitations('X [S1-S3].', labels).cited).toEqual(['S1', 'S2', 'S3']);
    expect(checkCitations('X [S2–3].', labels).cited).toEqual(['S2', 'S3']);
    const wide = checkCitations('X [S1-S99999].', labels);
    expect(wide.cited).toEqual(['S1']);
    expect(wide.removed).toEqual(['S99999']);
  });

  it('leaves text without labels and non-label brackets alone', () => {
    const r = checkCitations('Dilute 1:1000 [in BSA] (see Table 1).', labels);
    expect(r.text).toBe('Dilute 1:1000 [in BSA] (see Table 1).');
    expect(r.cited).toEqual([]);
    expect(r.removed).toEqual([]);
  });

  it('accepts labels given with brackets', () => {
    expect(checkCitations('X [S2].', ['[S1]', '[S2]']).cited).toEqual(['S2']);
  });
});

describe('citationLabel', () => {
  it('renders [First et al., year, section] for three or more authors', () => {
    expect(citationLabel(meta({ authors: ['Adaeze Okafor', 'Hannah Lee', 'Rafael Ibarra'], year: 2023 }), 'Methods')).toBe(
      '[Okafor et al., 2023, Methods]',
    );
  });

  it('joins two family names with &', () => {
    expect(citationLabel(meta({ authors: ['Adaeze Okafor', 'Hannah Lee'], year: 2021 }), 'Step 4')).toBe('[Okafor & Lee, 2021, Step 4]');
  });

  it('finds family names in the usual author formats', () => {
    expect(familyName('Okafor, Adaeze')).toBe('Okafor');
    expect(familyName('Okafor A')).toBe('Okafor');
    expect(familyName('Okafor AN')).toBe('Okafor');
    expect(familyName('A. Okafor')).toBe('Okafor');
    expect(familyName('Ludwig van Beethoven')).toBe('van Beethoven');
    expect(familyName('Martin Luther King Jr.')).toBe('King');
    expect(familyName('{Weber}, Jonas')).toBe('Weber');
    expect(familyName('Okafor')).toBe('Okafor');
    expect(familyName('The Okafor Lab')).toBe('The Okafor Lab');
    expect(citationLabel(meta({ authors: ['Weber, Jonas', 'Okafor, Adaeze'], year: 2020 }), 'Results')).toBe(
      '[Weber & Okafor, 2020, Results]',
    );
  });

  it('uses the title, shortened, when there are no authors', () => {
    const label = citationLabel(meta({ authors: [], year: 2023 }), 'Results');
    expect(label).toBe('[USP7 inhibition further stabilises p53…, 2023, Results]');
    expect(citationLabel(meta({ title: 'Lab safety rules', authors: [] }), 'Emergencies')).toBe('[Lab safety rules, n.d., Emergencies]');
  });

  it('writes n.d. without a year and drops an empty section', () => {
    expect(citationLabel(meta({ authors: ['Priya Raman'] }), '')).toBe('[Raman, n.d.]');
  });

  it('falls back to the step or slide number when the section is empty', () => {
    expect(citationLabel(meta({ authors: ['Hannah Lee'], year: 2023, step: 6 }), '')).toBe('[Lee, 2023, Step 6]');
    expect(citationLabel(meta({ authors: ['Hannah Lee'], year: 2024, slide: 3 }), ' ')).toBe('[Lee, 2024, Slide 3]');
  });
});

describe('citationLink', () => {
  it('prefers a DOI link over the URL', () => {
    expect(citationLink(meta({ doi: '10.5555/jcsr.2023.0417', url: 'https://okaforlab.example.org/p' }))).toBe(
      'https://doi.org/10.5555/jcsr.2023.0417',
    );
  });

  it('accepts DOIs written as doi: or as a doi.org URL, and escapes unsafe characters', () => {
    expect(citationLink(meta({ doi: 'doi:10.5555/abc' }))).toBe('https://doi.org/10.5555/abc');
    expect(citationLink(meta({ doi: 'https://dx.doi.org/10.5555/abc' }))).toBe('https://doi.org/10.5555/abc');
    expect(citationLink(meta({ doi: '10.1002/(SICI)1097#x' }))).toBe('https://doi.org/10.1002/(SICI)1097%23x');
  });

  it('falls back to a web URL, and to nothing', () => {
    expect(citationLink(meta({ url: 'https://wiki.example.org/safety' }))).toBe('https://wiki.example.org/safety');
    expect(citationLink(meta({ doi: 'not a doi', url: 'https://x.example.org/a' }))).toBe('https://x.example.org/a');
    expect(citationLink(meta({ url: '/home/lab/wiki/safety.md' }))).toBeUndefined();
    expect(citationLink(meta({}))).toBeUndefined();
  });
});

describe('messages', () => {
  it('has a refusal and a Sources heading per language', () => {
    expect(refusalText('en')).toBe("I couldn't find this in the lab's material.");
    expect(refusalText('es')).toBe('No encontré esto en el material del laboratorio.');
    expect(messages('en').sources).toBe('Sources');
    expect(messages('es').sources).toBe('Fuentes');
  });

  it('recognises the refusal in the forms models write it, and nothing else', () => {
    expect(isRefusal("I couldn't find this in the lab's material.")).toBe(true);
    expect(isRefusal('  I couldn’t find this in the lab’s material  ')).toBe(true);
    expect(isRefusal('"I couldn\'t find this in the lab\'s material." [S1]')).toBe(true);
    expect(isRefusal('**No encontré esto en el material del laboratorio.**')).toBe(true);
    expect(isRefusal("I couldn't find this in the lab's material. But ab32389 is used at 1:1000.")).toBe(false);
    expect(isRefusal('Use ab32389 at 1:1000.')).toBe(false);
  });
});

describe('finalizeAnswer', () => {
  const passages = [
    passage({
      docId: 'okafor2023-usp7',
      title: 'USP7 inhibition further stabilises p53 in hypoxic HEK293T cells',
      authors: ['Adaeze Okafor', 'Hannah Lee', 'Rafael Ibarra', 'Priya Raman'],
      year: 2023,
      doi: '10.5555/jcsr.2023.0417',
      section: 'Methods',
      text: 'Primary antibodies were anti-p53 (ab32389, 1:1000).',
    }),
    passage({
      docId: 'protocol-western-blot',
      title: 'Western blot for p53 and MDM2',
      authors: ['Hannah Lee', 'Priya Raman'],
      kind: 'protocol',
      year: 2023,
      section: 'Step 8',
      text: '8. Incubate with anti-p53 ab32389 at 1:1000 overnight.',
    }),
    passage({
      docId: 'okafor2023-usp7',
      chunk: 1,
      title: 'USP7 inhibition further stabilises p53 in hypoxic HEK293T cells',
      authors: ['Adaeze Okafor', 'Hannah Lee', 'Rafael Ibarra', 'Priya Raman'],
      year: 2023,
      doi: '10.5555/jcsr.2023.0417',
      section: 'Methods',
      text: 'Bands were quantified in Fiji.',
    }),
  ];

  it('keeps a cited answer and lists its sources in order of first use', () => {
    const r = finalizeAnswer({ answer: 'Incubate overnight [S2]; the paper used 1:1000 [S1]. See [S9].', passages, language: 'en' });
    expect(r.refused).toBe(false);
    expect(r.answer).toBe('Incubate overnight [S2]; the paper used 1:1000 [S1]. See.');
    expect(r.citations.map((c) => c.label)).toEqual(['[Lee & Raman, 2023, Step 8]', '[Okafor et al., 2023, Methods]']);
    expect(r.citations[1]).toEqual({
      label: '[Okafor et al., 2023, Methods]',
      doc_id: 'okafor2023-usp7',
      title: 'USP7 inhibition further stabilises p53 in hypoxic HEK293T cells',
      authors: ['Adaeze Okafor', 'Hannah Lee', 'Rafael Ibarra', 'Priya Raman'],
      year: 2023,
      section: 'Methods',
      url: 'https://doi.org/10.5555/jcsr.2023.0417',
      link: 'https://doi.org/10.5555/jcsr.2023.0417',
      refs: ['S1'],
      quotes: ['Primary antibodies were anti-p53 (ab32389, 1:1000).'],
      notice: null,
    });
    expect(r.citations[0].url).toBeNull();
  });

  it('merges two passages of the same document section into one source', () => {
    const r = finalizeAnswer({ answer: 'Antibody 1:1000 [S1]. Quantified in Fiji [S3]. Repeated [S1].', passages, language: 'en' });
    expect(r.citations).toHaveLength(1);
    expect(r.citations[0].refs).toEqual(['S1', 'S3']);
  });

  it('turns an uncited factual answer into the refusal, in the question language', () => {
    const en = finalizeAnswer({ answer: 'The lab has no safety rules at all.', passages, language: 'en' });
    expect(en).toEqual({ answer: refusalText('en'), refused: true, citations: [] });
    const es = finalizeAnswer({ answer: 'El laboratorio no tiene normas.', passages, language: 'es' });
    expect(es).toEqual({ answer: refusalText('es'), refused: true, citations: [] });
  });

  it('turns an answer whose only labels are invalid into the refusal', () => {
    const r = finalizeAnswer({ answer: 'Use 1:1000 [S7].', passages, language: 'en' });
    expect(r.refused).toBe(true);
    expect(r.citations).toEqual([]);
  });

  it('gives a refusal no sources and puts it in the question language', () => {
    const r = finalizeAnswer({ answer: "I couldn't find this in the lab's material. [S1]", passages, language: 'es' });
    expect(r).toEqual({ answer: refusalText('es'), refused: true, citations: [] });
    expect(finalizeAnswer({ answer: '   ', passages, language: 'en' }).refused).toBe(true);
  });

  it('lets a clarifying question through without sources', () => {
    const r = finalizeAnswer({ answer: 'Do you mean the Western blot or the RNA extraction protocol?', passages, language: 'en' });
    expect(r).toEqual({ answer: 'Do you mean the Western blot or the RNA extraction protocol?', refused: false, citations: [] });
  });

  it('drops a claim whose cited passage does not support it, keeping the supported ones', () => {
    const r = finalizeAnswer({
      answer: 'Incubate with ab32389 at 1:1000 overnight [S2]. The transfer runs at 100 V for 60 minutes [S3].',
      passages,
      language: 'en',
    });
    expect(r.refused).toBe(false);
    expect(r.answer).toBe('Incubate with ab32389 at 1:1000 overnight [S2].');
    expect(r.citations.map((c) => c.doc_id)).toEqual(['protocol-western-blot']);
    expect(r.citations[0].quotes).toEqual(['Incubate with anti-p53 ab32389 at 1:1000 overnight.']);
  });

  it('keeps only the labels of a group that support the claim', () => {
    const r = finalizeAnswer({ answer: 'Bands were quantified in Fiji [S1, S3].', passages, language: 'en' });
    expect(r.answer).toBe('Bands were quantified in Fiji [S3].');
    expect(r.citations.map((c) => c.refs)).toEqual([['S3']]);
  });

  it('refuses when no cited claim is supported by its passage', () => {
    const r = finalizeAnswer({ answer: 'The transfer runs at 100 V for 60 minutes. [S1]', passages, language: 'en' });
    expect(r).toEqual({ answer: refusalText('en'), refused: true, citations: [] });
  });

  it('quotes only sentences that are in the cited passage', () => {
    const r = finalizeAnswer({ answer: 'Primary antibodies: anti-p53 ab32389 at 1:1000 [S1].', passages, language: 'en' });
    for (const c of r.citations) for (const q of c.quotes) expect(passages[0].text).toContain(q);
    expect(r.citations[0].quotes).toHaveLength(1);
  });
});

describe('checkSupport in Spanish', () => {
  it('stems a short claim in its passage language, so a Spanish paraphrase is supported', () => {
    const rna = passage({
      docId: 'protocolo-extraccion-arn',
      kind: 'protocol',
      title: 'Protocolo de extracción de ARN con TRIzol',
      section: 'Paso 4',
      text: '4. Centrifugar las muestras a 12.000 × g durante 15 minutos a 4 °C.',
    });
    const r = finalizeAnswer({ answer: 'Centrifugar muestras 15 minutos [S1].', passages: [rna], language: 'es' });
    expect(r.refused).toBe(false);
    expect(r.citations[0].quotes).toEqual(['Centrifugar las muestras a 12.000 × g durante 15 minutos a 4 °C.']);
  });
});

describe('checkSupport with lettered variants', () => {
  const virus = (letter: string) =>
    passage({
      docId: `hepatitis-${letter}`,
      title: `Hepatitis ${letter} in blood donors`,
      section: 'Background',
      text: `Hepatitis ${letter} virus causes chronic infection of the liver in blood donors. It was found by PCR.`,
    });

  it('does not let a claim about hepatitis C rest on a passage about hepatitis G', () => {
    const answer = 'Hepatitis C virus causes chronic liver infection in blood donors [S1].';
    expect(finalizeAnswer({ answer, passages: [virus('G')], language: 'en' }).refused).toBe(true);
    const right = finalizeAnswer({ answer, passages: [virus('C')], language: 'en' });
    expect(right.refused).toBe(false);
    expect(right.citations[0].quotes[0]).toContain('Hepatitis C virus');
  });

  it('keeps the supported claim of an answer that also cites the wrong variant', () => {
    const answer = 'Hepatitis C virus causes chronic liver infection [S1]. Hepatitis C was found by PCR [S2].';
    const r = finalizeAnswer({ answer, passages: [virus('C'), virus('G')], language: 'en' });
    expect(r.refused).toBe(false);
    expect(r.answer).toContain('[S1]');
    expect(r.answer).not.toContain('[S2]');
  });
});

describe('deepLink', () => {
  const meta = { source: 'lab', kind: 'paper' as const, title: 'T', authors: [], access: 'public' };
  it('points a PDF at its page, a wiki at its heading, a DOI at the DOI', () => {
    expect(deepLink({ ...meta, url: 'https://lab.example.org/papers/weber2020.pdf', page: 3 }, 'Results')).toBe(
      'https://lab.example.org/papers/weber2020.pdf#page=3',
    );
    expect(
      deepLink({ ...meta, kind: 'wiki', url: 'https://github.com/our-lab/handbook/wiki/Safety' }, 'Chemicals > Liquid nitrogen & dewars'),
    ).toBe('https://github.com/our-lab/handbook/wiki/Safety#liquid-nitrogen--dewars');
    expect(deepLink({ ...meta, doi: '10.5555/x.1', url: 'https://lab.example.org/x.pdf', page: 2 }, 'Methods')).toBe(
      'https://doi.org/10.5555/x.1',
    );
    expect(deepLink({ ...meta, url: 'file:///home/x.pdf', page: 2 }, 'Methods')).toBeUndefined();
  });
});
