import { describe, expect, it } from 'vitest';
import { finalizeAnswer } from '../src/answer/cite.ts';
import { extractiveAnswer, termWeightFromDf } from '../src/answer/extractive.ts';
import { refusalText } from '../src/answer/messages.ts';
import { passage } from './helpers/answer-passages.ts';

const WB = { title: 'Western blot for p53 and MDM2', authors: ['Hannah Lee', 'Priya Raman'], year: 2023, kind: 'protocol' as const };

const materials = passage({
  ...WB,
  docId: 'protocol-western-blot',
  chunk: 1,
  section: 'Materials',
  text:
    '- RIPA lysis buffer (Thermo 89900)\n' +
    '- Anti-p53 rabbit monoclonal E26 (Abcam ab32389), used at 1:1000\n' +
    '- Pierce ECL substrate (Thermo 32106)',
});
const transfer = passage({
  ...WB,
  docId: 'protocol-western-blot',
  chunk: 7,
  section: 'Step 6',
  step: 6,
  text:
    '6. Transfer to a methanol-activated PVDF membrane at 100 V for 60 min at 4 °C in the blue tank in bay 3. ' +
    'Put an ice pack in the tank.',
});
const blocking = passage({
  ...WB,
  docId: 'protocol-western-blot',
  chunk: 8,
  section: 'Step 7',
  step: 7,
  text: '7. Block the membrane in 5% milk in TBST for 1 h at room temperature.',
});
const freezer = passage({
  docId: 'wiki-freezer-map',
  kind: 'wiki',
  title: 'Freezer and inventory map',
  authors: ['Priya Raman'],
  section: 'Antibodies',
  text:
    'Where things live. If you move a box, update this page the same day.\n' +
    '- Anti-p53 ab32389: 20 µL aliquots in Freezer B, rack 2, box AB-07.\n' +
    '- Anti-MDM2 sc-965: Freezer B, rack 2, box AB-08.',
});
const paper = passage({
  docId: 'okafor2023-usp7',
  title: 'USP7 inhibition further stabilises p53 in hypoxic HEK293T cells',
  authors: ['Adaeze Okafor', 'Hannah Lee'],
  year: 2023,
  section: 'Results',
  text:
    'With 10-minute sampling, p53 decayed with a half-life of 21 ± 3 min in normoxic HEK293T cells and 38 ± 4 min after 16 h at 1% O2. ' +
    'Steady-state p53 protein was 1.9-fold higher in hypoxic cells. ' +
    'In hypoxic cells treated with 10 µM P5091, the p53 half-life rose to 57 ± 6 min. ' +
    'The weather in the lab was pleasant throughout, e.g. on Tuesdays.',
});
const rna = passage({
  docId: 'protocolo-extraccion-arn',
  kind: 'protocol',
  title: 'Protocolo de extracción de ARN con TRIzol',
  authors: ['Rafael Ibarra'],
  year: 2024,
  section: 'Step 10',
  step: 10,
  text: '10. Resuspender el ARN en 30 µL de agua libre de RNasa e incubar 10 minutos a 55 °C.',
});

const labels = (answer: string) => [...answer.matchAll(/\[(S\d+)\]/g)].map((m) => m[1]);

describe('extractiveAnswer', () => {
  it('quotes the sentence that holds the answer and cites its passage', () => {
    const r = extractiveAnswer({
      question: 'At what voltage and for how long is the transfer run?',
      passages: [materials, transfer, blocking],
    });
    expect(r.refused).toBe(false);
    expect(r.answer).toContain('100 V for 60 min at 4 °C in the blue tank in bay 3 [S2].');
    expect(r.answer).not.toContain('Thermo 89900');
  });

  it('finds the answer by an exact identifier and cites the right label', () => {
    const r = extractiveAnswer({ question: 'Where are the ab32389 aliquots stored?', passages: [paper, freezer] });
    expect(r.refused).toBe(false);
    expect(r.answer.split('\n')[0]).toBe('Anti-p53 ab32389: 20 µL aliquots in Freezer B, rack 2, box AB-07 [S2].');
    expect(labels(r.answer)).not.toContain('S1');
  });

  it('matches the kind of value asked for (a dilution) even with no shared word', () => {
    const r = extractiveAnswer({ question: 'Which dilution of the p53 antibody ab32389?', passages: [freezer, materials] });
    expect(r.answer.split('\n')[0]).toBe('Anti-p53 rabbit monoclonal E26 (Abcam ab32389), used at 1:1000 [S2]');
  });

  it('never quotes the "<title> — <section>" header line', () => {
    const r = extractiveAnswer({ question: 'How do we block the membrane in the western blot?', passages: [blocking] });
    expect(r.refused).toBe(false);
    expect(r.answer).toBe('7. Block the membrane in 5% milk in TBST for 1 h at room temperature [S1].');
    expect(r.answer).not.toContain(' — ');
  });

  it('does not quote a sub-heading kept inside the chunk text', () => {
    const methods = passage({
      docId: 'okafor2023-usp7',
      title: 'USP7 inhibition further stabilises p53 in hypoxic HEK293T cells',
      section: 'Methods > Cell culture; Hypoxia treatment',
      text: 'Cell culture\nHEK293T cells were passaged every 3 days at a 1:8 split.\nHypoxia treatment\nPlates were kept at 1% O2 for 16 h.',
    });
    const r = extractiveAnswer({ question: 'What split ratio do we use for HEK293T cell culture?', passages: [methods] });
    expect(r.answer).toBe('HEK293T cells were passaged every 3 days at a 1:8 split [S1].');
  });

  it('does not answer from header words alone', () => {
    // "western", "blot" and "mdm2" are all in the title, none in the step itself.
    const r = extractiveAnswer({ question: 'Western blot MDM2?', passages: [blocking] });
    expect(r.refused).toBe(true);
  });

  it('gives 2-3 sentences, the best answer first, then the rest in document order', () => {
    const r = extractiveAnswer({
      question: 'What is the p53 half-life in hypoxic HEK293T cells, with and without P5091?',
      passages: [freezer, paper],
    });
    expect(r.refused).toBe(false);
    const cited = labels(r.answer);
    expect(cited.length).toBeGreaterThanOrEqual(2);
    expect(cited.length).toBeLessThanOrEqual(3);
    expect(r.answer).toContain('38 ± 4 min');
    expect(r.answer).toContain('57 ± 6 min');
    expect(r.answer).not.toContain('weather');
    // The sentence naming P5091 covers the whole question; the other follows it.
    expect(r.answer.startsWith('In hypoxic cells treated with 10 µM P5091')).toBe(true);
  });

  it('puts the step that answers first, even when an earlier step also matches', () => {
    const steps = passage({
      ...WB,
      docId: 'protocol-western-blot',
      section: 'Steps',
      text:
        '4. Heat the lysate with loading buffer for 5 min at 95 °C.\n' +
        '5. Load 20 µg of protein per lane and run the gel at 150 V for 45 min.\n' +
        '6. Transfer to a PVDF membrane at 100 V for 60 min in the blue tank.',
    });
    const r = extractiveAnswer({ question: 'At what voltage and for how long is the transfer to PVDF run?', passages: [steps] });
    expect(r.answer.startsWith('6. Transfer to a PVDF membrane at 100 V for 60 min')).toBe(true);
  });

  it('answers a Spanish question from a Spanish protocol', () => {
    const r = extractiveAnswer({ question: '¿En cuántos microlitros de agua se resuspende el ARN?', passages: [rna] });
    expect(r.refused).toBe(false);
    expect(r.answer).toContain('30 µL');
    expect(labels(r.answer)).toEqual(['S1']);
  });

  it('spells out table rows with their column names', () => {
    const table = passage({
      docId: 'wiki-freezer-map',
      kind: 'wiki',
      title: 'Freezer and inventory map',
      section: 'Freezers and fridges',
      text:
        '| Unit | Temperature | Location | Contents |\n| --- | --- | --- | --- |\n' +
        '| Freezer A | -80 °C | room 3.14 | RNA samples |\n| Freezer B | -20 °C | room 3.14 | Antibodies (rack 2) |',
    });
    const r = extractiveAnswer({ question: 'Which freezer holds the antibodies?', passages: [table] });
    expect(r.answer).toBe('Unit: Freezer B; Temperature: -20 °C; Location: room 3.14; Contents: Antibodies (rack 2) [S1]');
  });

  it('produces an answer that survives the citation check', () => {
    const passages = [materials, transfer];
    const r = extractiveAnswer({ question: 'How long is the transfer at 100 V?', passages });
    const final = finalizeAnswer({ answer: r.answer, passages, language: 'en' });
    expect(final.refused).toBe(false);
    expect(final.citations.map((c) => c.label)).toContain('[Lee & Raman, 2023, Step 6]');
  });
});

describe('extractiveAnswer refuses on weak evidence', () => {
  it('refuses when the passages share only a word with the question', () => {
    const liquid = passage({
      docId: 'wiki-safety',
      kind: 'wiki',
      title: 'Lab safety rules',
      section: 'Liquid nitrogen',
      text: 'Liquid nitrogen may only be handled after the cryogenics training.',
    });
    const r = extractiveAnswer({ question: 'What is the boiling point of liquid helium on Jupiter moons?', passages: [liquid, paper] });
    expect(r).toEqual({ answer: refusalText('en'), refused: true });
  });

  it('answers at half coverage and refuses below it', () => {
    // Content terms: buffer, block, membrane. The blocking step has two of three.
    const ok = extractiveAnswer({ question: 'Which buffer is used for blocking membranes?', passages: [blocking] });
    expect(ok.refused).toBe(false);
    // Content terms: buffer, block, membrane, nitrocellulose, overnight: still two, now of five.
    const weak = extractiveAnswer({ question: 'Which buffer blocks nitrocellulose membranes overnight?', passages: [blocking] });
    expect(weak.refused).toBe(true);
  });

  it('refuses in Spanish for a Spanish question, detecting the language', () => {
    const r = extractiveAnswer({ question: '¿Cuál es la capital de Mongolia según los jardineros?', passages: [paper, blocking] });
    expect(r).toEqual({ answer: refusalText('es'), refused: true });
  });

  it('uses the language it is given', () => {
    const r = extractiveAnswer({ question: 'capital of Mongolia?', passages: [paper], language: 'es' });
    expect(r.answer).toBe(refusalText('es'));
  });

  it('refuses with no passages, or a question with no content words', () => {
    expect(extractiveAnswer({ question: 'Where is ab32389?', passages: [] }).refused).toBe(true);
    expect(extractiveAnswer({ question: 'What is it?', passages: [freezer] }).refused).toBe(true);
  });
});

describe('extractiveAnswer picks the sentence that answers', () => {
  it('quotes the value asked for, not the sentence that restates the question', () => {
    const results = passage({
      docId: 'okafor2023-usp7',
      title: 'USP7 inhibition further stabilises p53 in hypoxic HEK293T cells',
      section: 'Results',
      text:
        'We asked whether hypoxia changes the p53 half-life in HEK293T cells. ' +
        'Cycloheximide chase experiments were sampled every ten minutes. ' +
        'Under hypoxia the p53 half-life was 38 ± 4 min.',
    });
    const r = extractiveAnswer({ question: 'How long is the p53 half-life in HEK293T cells under hypoxia?', passages: [results] });
    expect(r.refused).toBe(false);
    expect(r.answer.split(/(?<=\])\.?\s/)[0]).toContain('38 ± 4 min');
    expect(r.answer).not.toContain('We asked whether');
  });

  it('answers who-questions with the sentence that names someone', () => {
    const onboarding = passage({
      docId: 'wiki-onboarding',
      kind: 'wiki',
      title: 'Onboarding',
      section: 'Orders',
      text:
        'Orders of reagents above 500 USD need approval before they are placed. ' +
        'Approval of orders is given by Adaeze Okafor, who reads the order sheet on Mondays.',
    });
    const r = extractiveAnswer({ question: 'Who gives approval of reagent orders above 500 USD?', passages: [onboarding] });
    expect(r.refused).toBe(false);
    expect(r.answer.split('\n')[0].startsWith('Approval of orders is given by Adaeze Okafor')).toBe(true);
  });

  it('answers a long question whose terms are spread over neighbouring sentences', () => {
    const abstract = passage({
      docId: 'pubmed-1',
      title: 'PMID 1',
      section: 'RESULTS',
      text:
        'Vaccine storage was audited in 40 community clinics. ' +
        'Refrigerator temperatures were logged every hour for two weeks. ' +
        'In 16 clinics the cold chain was broken at least once, exposing vaccines to freezing.',
    });
    const r = extractiveAnswer({
      question: 'Storage of vaccines in community clinics: is the cold chain a weak link in practice?',
      passages: [abstract],
    });
    expect(r.refused).toBe(false);
    expect(r.answer).toContain('cold chain was broken');
  });
});

describe('extractiveAnswer with term weights from the index', () => {
  const pcr = passage({
    docId: 'flu-pcr',
    title: 'Rapid PCR for influenza',
    section: 'Results',
    text: 'Standard PCR detected 12 positive samples among 80 patients. Rapid PCR detected 15.',
  });
  // Chunks containing each term in a 1000-chunk index: "standard" and "sampl" are common,
  // "guitar" and "string" were never seen.
  const df: Record<string, number> = { standard: 300, sampl: 400, pcr: 40, rapid: 20, influenza: 25, detect: 150 };
  const termWeight = termWeightFromDf((t) => df[t] ?? 0, 1000);

  it('refuses when only the common words of the question are in the passage', () => {
    const q = 'How many strings does a standard guitar have?';
    expect(extractiveAnswer({ question: q, passages: [pcr], termWeight }).refused).toBe(true);
  });

  it('still answers when the rare words are there', () => {
    const r = extractiveAnswer({ question: 'How many samples did rapid PCR detect?', passages: [pcr], termWeight });
    expect(r.refused).toBe(false);
    expect(r.answer).toContain('Rapid PCR detected 15');
  });

  it("refuses when the passage lacks the question's one telling word, though its other words meet there", () => {
    const report = passage({
      docId: 'flu-surveillance',
      title: 'District surveillance report',
      section: 'Results',
      text: 'In 2010, 1,204 cases of influenza were reported to the district.',
    });
    const weights = termWeightFromDf((t) => ({ case: 200, report: 100, '2010': 40, influenza: 25 })[t] ?? 0, 1000);
    const off = extractiveAnswer({
      question: 'How many cases of tuberculosis were reported in 2010?',
      passages: [report],
      termWeight: weights,
    });
    expect(off.refused).toBe(true);
    const on = extractiveAnswer({
      question: 'How many cases of influenza were reported in 2010?',
      passages: [report],
      termWeight: weights,
    });
    expect(on.refused).toBe(false);
    expect(on.answer).toContain('1,204 cases of influenza');
  });

  it('gives a term the index has never seen the highest weight, and common terms little', () => {
    expect(termWeight('guitar')).toBeCloseTo(Math.log(1 + 1000.5 / 0.5));
    expect(termWeight('guitar')).toBeGreaterThan(termWeight('pcr'));
    expect(termWeight('pcr')).toBeGreaterThan(termWeight('standard'));
    expect(termWeightFromDf(() => 5000, 1000)('x')).toBeCloseTo(Math.log(1 + 0.5 / 1000.5));
  });
});

describe('extractiveAnswer question types', () => {
  it('answers how-often questions with the sentence that states a frequency, never with a question', () => {
    const discussion = passage({
      docId: 'weber2020',
      title: 'Hypoxia does not alter p53 turnover in HEK293T cells',
      section: 'Discussion',
      text:
        'Was the chase sampled often enough to see a change? ' +
        'A limitation of this study is that the chase was sampled every 30 minutes. ' +
        'A finer time course would be needed.',
    });
    const idf = (t: string) => ({ chase: 3, sampl: 10, often: 0 })[t] ?? 0;
    const r = extractiveAnswer({
      question: 'How often was the chase sampled?',
      passages: [discussion],
      termWeight: termWeightFromDf(idf, 100),
    });
    expect(r.refused).toBe(false);
    expect(r.answer).toBe('A limitation of this study is that the chase was sampled every 30 minutes [S1].');
  });

  it('holds common words scattered over a window to a higher bar than the same words written as a phrase', () => {
    const question = 'What can respiratory viruses cause?';
    const termWeight = (t: string) => (t.startsWith('caus') ? 2.5 : 2);
    const scattered = passage({
      docId: 'coinfection',
      text: 'Multiple viruses are often detected in children with respiratory infection.',
    });
    const phrased = passage({ docId: 'review', text: 'Respiratory viruses are often detected in children with infection.' });
    // Both sentences hold "respiratory" and "viruses" and lack "cause": 4 of the question's 6.5.
    // In an index of 1,000 chunks (chance weight ln 1000) two such common words meet by chance.
    const chance = Math.log(1000);
    expect(extractiveAnswer({ question, passages: [scattered], termWeight, chanceWeight: chance }).refused).toBe(true);
    const r = extractiveAnswer({ question, passages: [phrased], termWeight, chanceWeight: chance });
    expect(r.refused).toBe(false);
    expect(r.answer).toContain('Respiratory viruses are often detected');
    // Words too rare to meet by chance ("renewal" and "code" for "the renewal code word") need no phrase.
    expect(extractiveAnswer({ question, passages: [scattered], termWeight, chanceWeight: 2 }).refused).toBe(false);
  });

  it("lets a window that writes several of the question's phrases miss more of its rhetoric", () => {
    // A title-like question: "weak link" is rhetoric no abstract repeats, and weighs more than half.
    const question = 'Storage of vaccines in general practice: a weak link?';
    const termWeight = (t: string) => (t === 'weak' || t === 'link' ? 2.4 : 1);
    const phrased = passage({ docId: 'audit', text: 'We audited the storage of vaccines in general practice over two winters.' });
    const scattered = passage({
      docId: 'survey',
      text: 'Vaccines arrived monthly at each clinic. Their storage, in general, varied across every rural practice.',
    });
    const r = extractiveAnswer({ question, passages: [phrased], termWeight });
    expect(r.refused).toBe(false);
    expect(r.answer).toContain('storage of vaccines in general practice');
    expect(extractiveAnswer({ question, passages: [scattered], termWeight }).refused).toBe(true);
  });

  it('does not weigh ordinals and quantities as identifiers', () => {
    // "2nd" is rare in an index that writes "second"; doubled as an identifier it would outweigh
    // the whole topic the passage does cover.
    const question = 'Does a paracervical block help abortion induction in the 2nd trimester?';
    const text = 'A paracervical block did not shorten abortion induction in the second trimester.';
    const r = extractiveAnswer({ question, passages: [passage({ text })], termWeight: (t) => (t === '2nd' ? 4 : 1) });
    expect(r.refused).toBe(false);
  });

  it('refuses when the passage lacks the gene or reagent the question names, even written with a prefix', () => {
    // "HSP70" is unseen in this index: it weighs most; the p53 line shares "anti", "antibody" and a dilution.
    const termWeight = (t: string) => (t === 'hsp70' ? 7.6 : 4.8);
    const antibodies = passage({
      ...WB,
      docId: 'protocol-western-blot',
      section: 'Materials',
      text: '- Anti-p53 rabbit monoclonal antibody E26 (Abcam ab32389), used at 1:1000',
    });
    const question = 'At what dilution do we use the anti-HSP70 antibody?';
    expect(extractiveAnswer({ question, passages: [antibodies], termWeight }).refused).toBe(true);
    // The same question about the antibody the passage does list is answered.
    const p53 = extractiveAnswer({ question: 'At what dilution do we use the anti-p53 antibody?', passages: [antibodies], termWeight });
    expect(p53.refused).toBe(false);
    expect(p53.answer).toContain('1:1000');
  });

  it('does not answer about one lettered variant with a sentence about another ("hepatitis C" is not "hepatitis G")', () => {
    const g = passage({
      text: 'Hepatitis G virus can cause chronic infection in man, but its role in liver disease is unclear. It was found in blood donors.',
    });
    const c = passage({ text: 'Hepatitis C virus is an RNA virus that causes chronic liver disease in man. It spreads through blood.' });
    const question = 'What is the Hepatitis C virus?';
    expect(extractiveAnswer({ question, passages: [g] }).refused).toBe(true);
    const answered = extractiveAnswer({ question, passages: [g, c] });
    expect(answered.refused).toBe(false);
    expect(answered.answer).toContain('Hepatitis C virus is an RNA virus');
    expect(answered.answer).not.toContain('Hepatitis G');
    // A numbered form is that variant: vitamin D3 is a vitamin D.
    const d3 = passage({ text: 'Vitamin D3 supplementation raised serum levels in all donors within eight weeks.' });
    expect(extractiveAnswer({ question: 'Does vitamin D supplementation raise serum levels?', passages: [d3] }).refused).toBe(false);
    const vitaminC = passage({ text: 'Vitamin C supplementation raised serum levels in all donors within eight weeks.' });
    expect(extractiveAnswer({ question: 'Does vitamin D supplementation raise serum levels?', passages: [vitaminC] }).refused).toBe(true);
  });

  it('does not read a unit after a number or a letter prefix as a variant', () => {
    // "4 °C" is a temperature and "T-stage" one word: neither asks for a lettered variant.
    const cold = extractiveAnswer({
      question: 'How long do we incubate the membrane at 4 °C?',
      passages: [passage({ text: 'Incubate the membrane overnight at 4 °C with gentle rocking.' })],
    });
    expect(cold.refused).toBe(false);
    const stage = extractiveAnswer({
      question: 'Are margins and T-stage accurate predictors of local control?',
      passages: [passage({ text: 'Close margins and advanced T-stage were accurate predictors of poor local control in buccal cancer.' })],
    });
    expect(stage.refused).toBe(false);
  });
});
