import { describe, expect, it } from 'vitest';
import { convert, splitHeader } from '../bench/datasets/covidqa.ts';

const CONTEXT =
  'A Study of Things\n\nhttps://www.ncbi.nlm.nih.gov/pmc/articles/PMC1/\n\nOkafor, Adaeze; Lee, Min\n2019-05-02\nDOI:10.1/xyz\nLicense:cc-by\n\n' +
  'Abstract: BACKGROUND: The incubation period was 5 days. Text: more text here.';

describe('COVID-QA converter', () => {
  it('moves the header lines into metadata and keeps the text from the abstract on', () => {
    const { meta, body } = splitHeader(CONTEXT);
    expect(meta).toEqual({
      title: 'A Study of Things',
      authors: ['Okafor, Adaeze', 'Lee, Min'],
      year: 2019,
      doi: '10.1/xyz',
      url: 'https://www.ncbi.nlm.nih.gov/pmc/articles/PMC1/',
      license: 'cc-by',
    });
    expect(body.startsWith('Abstract: BACKGROUND')).toBe(true);
  });

  it('writes one document per paper and one question per annotation, with span answers', () => {
    const json = {
      data: [
        {
          paragraphs: [
            {
              context: CONTEXT,
              document_id: 7,
              qas: [
                { id: 3, question: ' How long? ', answers: [{ text: 'was 5 days', answer_start: 0 }, { text: 'was 5 days' }] },
                { id: 4, question: 'Who?', answers: [{ text: 'A Study' }] },
              ],
            },
          ],
        },
      ],
    };
    const out = convert(json);
    expect(out.docs).toHaveLength(1);
    expect(out.docs[0].file).toBe('covidqa-7.md');
    expect(out.docs[0].text).toMatch(/^---\nid: "covidqa-7"\ntitle: "A Study of Things"\n/);
    expect(out.questions[0]).toEqual({ id: 'covidqa-q3', question: 'How long?', doc_id: 'covidqa-7', answers: ['was 5 days'] });
    expect(out.answersOutsideBody).toBe(1);
  });

  it('rejects a file that is not COVID-QA', () => {
    expect(() => convert({ data: [{ nope: 1 }] })).toThrow();
  });
});
