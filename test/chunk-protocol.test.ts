import { describe, expect, it } from 'vitest';
import { chunkDocument } from '../src/ingest/chunk/index.ts';
import type { Block, ChunkOptions } from '../src/types.ts';
import { DEFAULT_CHUNK_OPTIONS } from '../src/types.ts';
import { body, header, missingSentences } from './chunk-fixtures.ts';

const opts: ChunkOptions = DEFAULT_CHUNK_OPTIONS;
const TITLE = 'Western blot for phospho-ERK1/2 in HEK293T lysates';

const STEPS = [
  'Aspirate the medium, wash cells once with ice-cold PBS and add 150 µl RIPA buffer with inhibitors per well of a 6-well plate.',
  'Scrape the cells, transfer the lysate to a pre-chilled 1.5 ml tube and rotate for 30 min at 4 °C.',
  'Centrifuge at 14,000 × g for 15 min at 4 °C and transfer the supernatant to a new tube. ' +
    'Keep the pellet on ice until the BCA result is known, in case the lysis was incomplete.',
  'Measure protein with the BCA kit.',
  'Mix 20 µg protein with 4× Laemmli buffer containing 10% β-mercaptoethanol and heat at 95 °C for 5 min.',
  'Load samples and 5 µl of the prestained ladder on a 4-20% gel and run at 120 V for about 75 min, until the dye front reaches the bottom.',
  'Transfer to a PVDF membrane (activated in methanol for 30 s) at 100 V for 60 min in cold transfer buffer.',
  'Block for 1 h in 5% BSA in TBST, then incubate with anti-phospho-ERK1/2 (1:2000) overnight at 4 °C.',
];

const REAGENTS = [
  'RIPA lysis buffer (Thermo Fisher, cat. no. 89900)',
  'Halt protease and phosphatase inhibitor cocktail, 100× (Thermo Fisher, cat. no. 78440)',
  'Pierce BCA protein assay kit (Thermo Fisher, cat. no. 23225)',
  '4× Laemmli sample buffer (Bio-Rad, cat. no. 1610747)',
  'Mini-PROTEAN TGX 4-20% precast gels (Bio-Rad, cat. no. 4561094)',
  'Immobilon-P PVDF membrane, 0.45 µm (Merck, cat. no. IPVH00010)',
  'Phospho-p44/42 MAPK (Erk1/2) (Thr202/Tyr204) antibody (Cell Signaling, cat. no. 4370)',
];

function westernBlot(): Block[] {
  return [
    { type: 'heading', level: 1, text: TITLE },
    { type: 'heading', level: 2, text: 'Background' },
    {
      type: 'paragraph',
      text:
        'ERK1/2 phosphorylation at Thr202/Tyr204 is a read-out of MAPK pathway activity. ' +
        'Phosphatases act within seconds after lysis, so everything is done on ice with inhibitors.',
    },
    { type: 'heading', level: 2, text: 'Materials' },
    { type: 'heading', level: 3, text: 'Reagents' },
    { type: 'list', ordered: false, items: REAGENTS },
    { type: 'heading', level: 3, text: 'Equipment' },
    {
      type: 'list',
      ordered: false,
      items: ['Refrigerated microcentrifuge', 'Mini-PROTEAN Tetra cell and Trans-Blot Turbo', 'ChemiDoc imaging system'],
    },
    { type: 'heading', level: 2, text: 'Procedure' },
    { type: 'list', ordered: true, items: STEPS },
    { type: 'heading', level: 2, text: 'Notes' },
    {
      type: 'paragraph',
      text:
        'Use BSA rather than milk for blocking: milk contains casein, a phosphoprotein that raises ' +
        'background with phospho-specific antibodies. Strip and re-probe for total ERK1/2 to normalise.',
    },
    { type: 'heading', level: 2, text: 'Safety' },
    { type: 'paragraph', text: 'β-mercaptoethanol is toxic: handle it in the fume hood. Methanol is flammable.' },
  ];
}

describe('chunkDocument: protocol', () => {
  const chunks = chunkDocument({ title: TITLE, kind: 'protocol', blocks: westernBlot() }, opts);

  it('makes one chunk per numbered step, carrying the step number', () => {
    const steps = chunks.filter((c) => c.step !== undefined);
    expect(steps.map((c) => c.step)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    steps.forEach((c, i) => {
      expect(c.section).toBe(`Step ${i + 1}`);
      expect(header(c)).toBe(`${TITLE} — Step ${i + 1}`);
      expect(body(c)).toBe(`${i + 1}. ${STEPS[i]}`);
    });
  });

  it('keeps a very short step as its own chunk', () => {
    const step4 = chunks.find((c) => c.step === 4);
    expect(body(step4!)).toBe('4. Measure protein with the BCA kit.');
  });

  it('puts the whole materials list, with catalogue numbers, in one "Materials" chunk', () => {
    const materials = chunks.filter((c) => c.section === 'Materials');
    expect(materials).toHaveLength(1);
    for (const r of REAGENTS) expect(body(materials[0])).toContain(r);
    expect(body(materials[0])).toContain('Reagents\n- RIPA lysis buffer');
    expect(body(materials[0])).toContain('Equipment\n- Refrigerated microcentrifuge');
    expect(chunks.filter((c) => c.text.includes('cat. no. 89900'))).toHaveLength(1);
  });

  it('chunks the other sections by heading, in document order', () => {
    expect(chunks.map((c) => c.section)).toEqual(['Background', 'Materials', ...STEPS.map((_, i) => `Step ${i + 1}`), 'Notes', 'Safety']);
    expect(body(chunks.find((c) => c.section === 'Notes')!)).toContain('casein, a phosphoprotein');
  });

  it('puts the parent heading in the section: "Day 1 > Step 2"', () => {
    const blocks: Block[] = [
      { type: 'heading', level: 2, text: 'Materials' },
      { type: 'list', ordered: false, items: ['Lipofectamine 3000 (Thermo Fisher, cat. no. L3000001)', 'Opti-MEM (cat. no. 31985062)'] },
      { type: 'heading', level: 2, text: 'Procedure' },
      { type: 'heading', level: 3, text: 'Day 1' },
      { type: 'list', ordered: true, items: ['Seed 3 × 10^5 cells per well.', 'Incubate overnight.', 'Check confluence.'] },
      { type: 'heading', level: 3, text: 'Day 2' },
      { type: 'list', ordered: true, items: ['Dilute 5 µl Lipofectamine in 125 µl Opti-MEM.', 'Add 2.5 µg DNA.', 'Incubate 15 min.'] },
    ];
    const cs = chunkDocument({ title: 'Transfection', kind: 'protocol', blocks }, opts);
    expect(cs.filter((c) => c.step !== undefined).map((c) => c.section)).toEqual([
      'Day 1 > Step 1',
      'Day 1 > Step 2',
      'Day 1 > Step 3',
      'Day 2 > Step 1',
      'Day 2 > Step 2',
      'Day 2 > Step 3',
    ]);
    expect(body(cs.find((c) => c.section === 'Day 2 > Step 2')!)).toBe('2. Add 2.5 µg DNA.');
  });

  it('reads "Step N" headings with their content, and sub-headings stay inside the step', () => {
    const blocks: Block[] = [
      { type: 'heading', level: 2, text: 'Step 1: Thaw cells' },
      { type: 'paragraph', text: 'Thaw a vial in a 37 °C water bath for 2 min.' },
      { type: 'heading', level: 2, text: 'Step 2: Plate cells' },
      { type: 'paragraph', text: 'Transfer the cells to 10 ml warm medium and centrifuge at 200 × g for 5 min.' },
      { type: 'heading', level: 3, text: 'Critical' },
      { type: 'paragraph', text: 'Do not leave DMSO on the cells for longer than 10 min.' },
      { type: 'heading', level: 2, text: 'Troubleshooting' },
      { type: 'paragraph', text: 'Low viability after thawing usually means the vial warmed during transport.' },
    ];
    const cs = chunkDocument({ title: 'Thawing iPSCs', kind: 'protocol', blocks }, opts);
    expect(cs.map((c) => [c.section, c.step])).toEqual([
      ['Step 1', 1],
      ['Step 2', 2],
      ['Troubleshooting', undefined],
    ]);
    expect(body(cs[0])).toBe('Step 1: Thaw cells\nThaw a vial in a 37 °C water bath for 2 min.');
    expect(body(cs[1])).toContain('Critical\nDo not leave DMSO');
  });

  it('reads PDF-style numbered lines with a "You will need:" list', () => {
    const blocks: Block[] = [
      { type: 'page', number: 1 },
      { type: 'paragraph', text: 'You will need:' },
      { type: 'list', ordered: false, items: ['TRIzol (Invitrogen, cat. no. 15596026)', 'Chloroform', 'Isopropanol'] },
      {
        type: 'paragraph',
        text: '1. Add 1 ml TRIzol per 10 cm dish.\n2. Add 200 µl chloroform and shake for 15 s.\n3. Centrifuge 12,000 × g, 15 min, 4 °C.',
      },
      { type: 'page', number: 2 },
      { type: 'paragraph', text: 'The aqueous phase contains the RNA; avoid the interphase.' },
      { type: 'paragraph', text: '4. Precipitate with 500 µl isopropanol.' },
    ];
    const cs = chunkDocument({ title: 'RNA extraction', kind: 'protocol', blocks }, opts);
    expect(cs.map((c) => c.section)).toEqual(['Materials', 'Step 1', 'Step 2', 'Step 3', 'Step 4']);
    expect(body(cs[0])).toContain('You will need:\n- TRIzol (Invitrogen, cat. no. 15596026)');
    const step3 = cs.find((c) => c.step === 3)!;
    expect(body(step3)).toContain('avoid the interphase');
    expect(cs.find((c) => c.step === 4)!.page).toBe(2);
  });

  it('keeps all text and splits only an overlong step, every piece keeping its number', () => {
    const long = Array.from(
      { length: 20 },
      (_, i) => `Wash ${i + 1}: rinse the membrane in 10 ml TBST on the rocker for 5 min and discard the buffer.`,
    ).join(' ');
    const blocks = westernBlot();
    const procedure = blocks.findIndex((b) => b.type === 'list' && b.ordered);
    blocks.splice(procedure + 1, 0, { type: 'list', ordered: true, start: 9, items: [long] });
    const cs = chunkDocument({ title: TITLE, kind: 'protocol', blocks }, opts);
    const nine = cs.filter((c) => c.step === 9);
    expect(nine.length).toBeGreaterThan(1);
    for (const c of nine) {
      expect(c.section).toBe('Step 9');
      expect(body(c).length).toBeLessThanOrEqual(opts.size * 1.5);
    }
    const prose = westernBlot().flatMap((b) => (b.type === 'paragraph' ? [b.text] : b.type === 'list' ? b.items : []));
    expect(missingSentences([...prose, long], cs)).toEqual([]);
  });
});

describe('chunkDocument: Spanish protocol', () => {
  const blocks: Block[] = [
    { type: 'heading', level: 1, text: 'Extracción de ADN genómico de sangre periférica' },
    { type: 'heading', level: 2, text: 'Materiales' },
    {
      type: 'list',
      ordered: false,
      items: ['Kit QIAamp DNA Blood Mini (Qiagen, cat. n.º 51104)', 'Proteinasa K (20 mg/ml)', 'Etanol 96-100%', 'Tubos de 1,5 ml'],
    },
    { type: 'heading', level: 2, text: 'Procedimiento' },
    { type: 'paragraph', text: 'Paso 1. Añadir 20 µl de proteinasa K al fondo de un tubo de 1,5 ml.' },
    { type: 'paragraph', text: 'Paso 2. Añadir 200 µl de sangre y 200 µl de tampón AL; mezclar en vórtex durante 15 s.' },
    { type: 'paragraph', text: 'Paso 3. Incubar a 56 °C durante 10 min.' },
    { type: 'paragraph', text: 'Nota: no prolongar la incubación, porque el rendimiento no mejora.' },
    { type: 'paragraph', text: 'Paso 4. Añadir 200 µl de etanol y mezclar de nuevo.' },
    { type: 'heading', level: 2, text: 'Notas' },
    { type: 'paragraph', text: 'Las muestras con anticoagulante EDTA dan mejor rendimiento que las de heparina.' },
  ];
  const chunks = chunkDocument({ title: 'Extracción de ADN genómico de sangre periférica', kind: 'protocol', blocks }, opts);

  it('finds "Paso N" steps, attaching a following note to its step', () => {
    const steps = chunks.filter((c) => c.step !== undefined);
    expect(steps.map((c) => c.step)).toEqual([1, 2, 3, 4]);
    expect(steps.map((c) => c.section)).toEqual(['Step 1', 'Step 2', 'Step 3', 'Step 4']);
    expect(body(steps[2])).toBe(
      'Paso 3. Incubar a 56 °C durante 10 min.\n\nNota: no prolongar la incubación, porque el rendimiento no mejora.',
    );
  });

  it('keeps "Materiales" as the one Materials chunk and "Notas" by heading', () => {
    const materials = chunks.filter((c) => c.section === 'Materials');
    expect(materials).toHaveLength(1);
    expect(body(materials[0])).toContain('Materiales\n- Kit QIAamp DNA Blood Mini (Qiagen, cat. n.º 51104)');
    expect(chunks[chunks.length - 1].section).toBe('Notas');
  });
});
