import { describe, expect, it } from 'vitest';
import { detectKind } from '../src/ingest/chunk/detect-kind.ts';
import type { Block } from '../src/types.ts';
import { REFERENCE_LINES, paperBlocks, pubmedBlocks, pubmedProse } from './chunk-fixtures.ts';

const para = (text: string): Block => ({ type: 'paragraph', text });
const heading = (text: string, level = 2): Block => ({ type: 'heading', level, text });

const protocolEn: Block[] = [
  heading('Western blot', 1),
  heading('Reagents'),
  { type: 'list', ordered: false, items: ['RIPA buffer (Thermo Fisher, cat. no. 89900)', 'PVDF membrane (Merck, cat. no. IPVH00010)'] },
  heading('Procedure'),
  { type: 'list', ordered: true, items: ['Lyse cells in RIPA.', 'Run the gel at 120 V.', 'Transfer to PVDF.', 'Block in 5% BSA.'] },
];

const protocolEs: Block[] = [
  para('Reactivos: proteinasa K, tampón AL, etanol 96%.'),
  para('Paso 1. Añadir 20 µl de proteinasa K.'),
  para('Paso 2. Añadir 200 µl de sangre.'),
  para('Paso 3. Incubar a 56 °C durante 10 min.'),
];

describe('detectKind', () => {
  it('lets a declared kind win', () => {
    expect(detectKind({ fileName: 'wb.md', format: 'markdown', blocks: protocolEn, declared: 'note' })).toBe('note');
  });

  it('calls every pptx a slide deck', () => {
    expect(detectKind({ fileName: 'lab-meeting.pptx', format: 'pptx', blocks: [] })).toBe('slides');
  });

  it('recognises papers by their sections, structured abstracts included', () => {
    expect(detectKind({ fileName: 'tfeb.md', format: 'markdown', blocks: paperBlocks() })).toBe('paper');
    expect(detectKind({ fileName: 'pubmedqa-10135926.md', format: 'markdown', blocks: pubmedBlocks('pubmedqa-10135926.md') })).toBe(
      'paper',
    );
  });

  it('recognises a heading-less PDF paper by length and citations', () => {
    const prose = pubmedProse(20_000).map(para);
    expect(detectKind({ fileName: 'x.pdf', format: 'pdf', blocks: [...prose, para(REFERENCE_LINES.join('\n'))] })).toBe('paper');
    const withEtAl = [...prose, para('As Sardiello et al. showed, and as Settembre et al. confirmed, TFEB drives lysosomal genes.')];
    expect(detectKind({ fileName: 'x.pdf', format: 'pdf', blocks: withEtAl })).toBe('paper');
    // the same prose without any citation is not a paper
    expect(detectKind({ fileName: 'x.pdf', format: 'pdf', blocks: prose })).toBe('note');
  });

  it('recognises PDF section names written as lines', () => {
    const blocks = [
      para('Abstract'),
      para('TFEB controls lysosomes.'),
      para('1. Introduction'),
      para('Lysosomes degrade cargo.'),
      para('2. Results'),
      para('LAMP1 fell.'),
    ];
    expect(detectKind({ fileName: 'x.pdf', format: 'pdf', blocks })).toBe('paper');
  });

  it('recognises protocols: steps plus a materials list, in English and Spanish', () => {
    expect(detectKind({ fileName: 'wb.md', format: 'markdown', blocks: protocolEn })).toBe('protocol');
    expect(detectKind({ fileName: 'adn.docx', format: 'docx', blocks: protocolEs })).toBe('protocol');
    const stepHeadings: Block[] = [
      para('You will need:'),
      { type: 'list', ordered: false, items: ['TRIzol', 'Chloroform'] },
      heading('Step 1: Homogenise'),
      para('Add 1 ml TRIzol.'),
      heading('Step 2: Phase separation'),
      para('Add 200 µl chloroform.'),
    ];
    expect(detectKind({ fileName: 'rna.md', format: 'markdown', blocks: stepHeadings })).toBe('protocol');
    const materiales: Block[] = [
      heading('Materiales'),
      { type: 'list', ordered: false, items: ['Etanol'] },
      para('1. Mezclar.\n2. Centrifugar.\n3. Secar.'),
    ];
    expect(detectKind({ fileName: 'x.pdf', format: 'pdf', blocks: materiales })).toBe('protocol');
  });

  it('does not take steps without materials, or a paper with numbered methods, for a protocol', () => {
    const howto: Block[] = [
      heading('Ordering'),
      { type: 'list', ordered: true, items: ['Open the portal.', 'Pick the supplier.', 'Ask Ana to approve.'] },
    ];
    expect(detectKind({ fileName: 'ordering.md', format: 'markdown', blocks: howto })).toBe('wiki');
    const paper = [...paperBlocks()];
    paper.splice(8, 0, heading('Reagents', 3), { type: 'list', ordered: true, items: ['DMEM', 'FBS', 'Trypsin'] });
    expect(detectKind({ fileName: 'tfeb.md', format: 'markdown', blocks: paper })).toBe('paper');
  });

  it('falls back to wiki for markdown/html and note for the rest', () => {
    const blocks = [heading('Freezer'), para('The -80 °C freezer is in room 2.14.')];
    expect(detectKind({ fileName: 'freezer.md', format: 'markdown', blocks })).toBe('wiki');
    expect(detectKind({ fileName: 'freezer.html', format: 'html', blocks })).toBe('wiki');
    expect(detectKind({ fileName: 'freezer.txt', format: 'text', blocks })).toBe('note');
    expect(detectKind({ fileName: 'freezer.docx', format: 'docx', blocks })).toBe('note');
  });
});
