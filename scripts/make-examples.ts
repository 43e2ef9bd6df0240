// Generates the binary documents of the sample lab corpus (examples/lab/): a PDF paper, a PPTX
// lab-meeting deck with speaker notes and a DOCX protocol, with the builders the test fixtures
// use too (scripts/documents/). The Markdown and HTML documents are
// written by hand and live in the repository as they are.
//
// Run: npx tsx scripts/make-examples.ts [output dir, default examples/lab]
//
// Output is byte-for-byte deterministic (fixed dates everywhere, zip entries re-packed with a
// fixed timestamp) so that re-running the script does not produce spurious diffs or re-indexing.

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PDFDocument, type PDFFont, StandardFonts, rgb } from 'pdf-lib';
import { AlignmentType, Document, HeadingLevel, Packer, Paragraph, Table, TableCell, TableRow, TextRun, WidthType } from 'docx';
import { makeDeck, type SlideSpec } from './documents/deck.ts';
import { wrapLines } from './documents/wrap.ts';
import { withFixedDates } from './documents/zip-dates.ts';

// An output directory other than examples/lab lets a test regenerate the files elsewhere and
// compare them with the committed ones.
const ROOT = process.argv[2]
  ? path.resolve(process.argv[2])
  : path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'examples', 'lab');

// ---------------------------------------------------------------------------------------------
// PDF paper (with a .bib sidecar): an older finding that the 2023 Markdown paper revises.

type PdfBlock =
  | { kind: 'title'; text: string }
  | { kind: 'byline'; text: string }
  | { kind: 'h1'; text: string }
  | { kind: 'h2'; text: string }
  | { kind: 'p'; text: string };

const PDF_PAPER = {
  file: 'papers/weber2020-hypoxia-p53.pdf',
  title: 'Hypoxia does not alter p53 turnover in HEK293T cells',
  authors: ['Jonas Weber', 'Adaeze Okafor'],
  journal: 'Journal of Cellular Stress Research',
  doi: '10.5555/jcsr.2020.0112',
  created: '2020-06-15T09:00:00.000Z',
  footer: 'J Cell Stress Res 7: 112-119 (2020)',
};

const PDF_BLOCKS: PdfBlock[] = [
  { kind: 'title', text: PDF_PAPER.title },
  { kind: 'byline', text: 'Jonas Weber and Adaeze Okafor' },
  { kind: 'byline', text: 'Okafor Lab, Department of Cell Biology, Halden Institute' },
  { kind: 'byline', text: 'Journal of Cellular Stress Research 7: 112-119 (2020)' },
  { kind: 'byline', text: `doi:${PDF_PAPER.doi}` },
  { kind: 'h1', text: 'Abstract' },
  {
    kind: 'p',
    text:
      'We asked whether low oxygen changes the stability of the tumour suppressor p53 in HEK293T cells. ' +
      'Cells were kept at 1% O2 for 16 h and p53 turnover was measured by cycloheximide chase, with samples ' +
      'taken every 30 minutes (0, 30, 60 and 90 min). HIF-1alpha protein increased 9-fold, confirming a ' +
      'hypoxic response, but the p53 half-life was 22 min in normoxia and 20 min in hypoxia (p = 0.61, n = 4). ' +
      'Steady-state p53 protein did not change. We conclude that hypoxia alone does not stabilise p53 in HEK293T cells.',
  },
  { kind: 'h1', text: 'Introduction' },
  {
    kind: 'p',
    text:
      'p53 protein is short-lived in unstressed cells because the ubiquitin ligase MDM2 continuously targets it ' +
      'for degradation. DNA damage, oncogene activation and nutrient stress all interrupt this cycle. Whether ' +
      'hypoxia belongs on that list is less clear: reports range from strong accumulation of p53 to no change, ' +
      'depending on the cell line, the oxygen level and the length of exposure.',
  },
  {
    kind: 'p',
    text:
      'HEK293T cells are the workhorse of our laboratory for biochemistry, and several of our projects assume a ' +
      'particular p53 behaviour under stress. We therefore measured p53 turnover directly in HEK293T cells kept ' +
      'at 1% O2, using HIF-1alpha accumulation as the positive control for the hypoxic response.',
  },
  { kind: 'h1', text: 'Methods' },
  { kind: 'h2', text: 'Cell culture and hypoxia' },
  {
    kind: 'p',
    text:
      'HEK293T cells (ATCC CRL-3216) were grown in DMEM with 10% fetal bovine serum and used between passages ' +
      '8 and 18. For hypoxia, plates were placed in a sealed modular chamber flushed with 1% O2, 5% CO2 and ' +
      'balance nitrogen, and kept at 37 degrees C for 16 h. Control plates remained in the standard incubator.',
  },
  { kind: 'h2', text: 'Cycloheximide chase' },
  {
    kind: 'p',
    text:
      'Cycloheximide (Sigma C7698) was added at 50 µg/mL. Cells were harvested at 0, 30, 60 and 90 minutes; ' +
      'hypoxic plates were opened only at the harvest time points. Lysates were prepared in RIPA buffer with ' +
      'protease inhibitors.',
  },
  { kind: 'h2', text: 'Western blotting' },
  {
    kind: 'p',
    text:
      'Equal amounts of protein (25 µg) were separated on 10% SDS-PAGE gels and transferred to nitrocellulose. ' +
      'Membranes were probed with anti-p53 (Abcam ab32389, 1:1000), anti-HIF-1alpha (BD Biosciences 610958, ' +
      '1:500) and anti-beta-actin (Sigma A5441, 1:5000). Half-lives were estimated from a single exponential fit ' +
      'to the p53/beta-actin ratio.',
  },
  { kind: 'h2', text: 'Statistics' },
  {
    kind: 'p',
    text: 'Four biological replicates were performed (n = 4). Means were compared with a two-tailed unpaired ' + 't-test.',
  },
  { kind: 'h1', text: 'Results' },
  {
    kind: 'p',
    text:
      'After 16 h at 1% O2, HIF-1alpha protein was 9-fold higher than in normoxic cells, showing that the ' +
      'chamber produced a robust hypoxic response. In the same lysates, steady-state p53 was 1.1-fold of the ' +
      'normoxic level, a difference that was not significant.',
  },
  {
    kind: 'p',
    text:
      'In the cycloheximide chase, p53 decayed with a half-life of 22 +/- 4 min in normoxic cells and ' +
      '20 +/- 5 min in hypoxic cells (p = 0.61). By the 60-minute time point p53 was below 15% of its initial ' +
      'level in both conditions, and at 90 minutes it could no longer be detected.',
  },
  { kind: 'h1', text: 'Discussion' },
  {
    kind: 'p',
    text:
      'In HEK293T cells, hypoxia strong enough to induce HIF-1alpha 9-fold did not change p53 stability. We ' +
      'therefore do not expect hypoxia by itself to raise p53 levels in experiments that use this cell line. ' +
      'A limitation of this study is that the chase was sampled every 30 minutes, which gives few points on a ' +
      'decay curve with a half-life near 20 minutes; a finer time course would be needed to detect small ' +
      'changes. We also did not test whether deubiquitinases such as USP7 modulate p53 under hypoxia.',
  },
  { kind: 'h1', text: 'References' },
  {
    kind: 'p',
    text: '1. Okafor A, Ibarra R (2019). A practical guide to cycloheximide chase design. Okafor Lab Technical ' + 'Notes 3: 1-8.',
  },
  {
    kind: 'p',
    text: '2. Raman P, Weber J (2018). Modular hypoxia chambers: calibration and oxygen logging. Okafor Lab ' + 'Technical Notes 2: 9-15.',
  },
];

async function makePdf(): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const created = new Date(PDF_PAPER.created);
  pdf.setTitle(PDF_PAPER.title);
  pdf.setAuthor(PDF_PAPER.authors.join('; '));
  pdf.setSubject(`${PDF_PAPER.journal} (2020), doi:${PDF_PAPER.doi}`);
  pdf.setKeywords(['p53', 'TP53', 'hypoxia', 'HEK293T', 'cycloheximide chase']);
  pdf.setCreator('Okafor Lab example generator');
  pdf.setProducer('pdf-lib');
  pdf.setCreationDate(created);
  pdf.setModificationDate(created);

  const regular = await pdf.embedFont(StandardFonts.TimesRoman);
  const bold = await pdf.embedFont(StandardFonts.TimesRomanBold);
  const italic = await pdf.embedFont(StandardFonts.TimesRomanItalic);

  // A4 with generous margins and 12 pt text: the paper spans two pages, so page handling is exercised.
  const [pageWidth, pageHeight] = [595.28, 841.89];
  const margin = 72;
  const textWidth = pageWidth - 2 * margin;
  let page = pdf.addPage([pageWidth, pageHeight]);
  let y = pageHeight - margin;
  let pageNumber = 1;

  const footer = () => {
    page.drawText(`${PDF_PAPER.footer}    page ${pageNumber}`, {
      x: margin,
      y: margin / 2,
      size: 9,
      font: italic,
      color: rgb(0.4, 0.4, 0.4),
    });
  };
  const newPage = () => {
    footer();
    page = pdf.addPage([pageWidth, pageHeight]);
    pageNumber += 1;
    y = pageHeight - margin;
  };
  const draw = (lines: string[], font: PDFFont, size: number, leading: number, gapAfter: number) => {
    for (const line of lines) {
      if (y - leading < margin) newPage();
      y -= leading;
      page.drawText(line, { x: margin, y, size, font });
    }
    y -= gapAfter;
  };

  for (const block of PDF_BLOCKS) {
    switch (block.kind) {
      case 'title':
        draw(wrapLines(block.text, bold, 18, textWidth), bold, 18, 24, 10);
        break;
      case 'byline':
        draw([block.text], italic, 11, 15, 0);
        break;
      case 'h1':
        // Keep a heading with at least two lines of its paragraph.
        if (y - 3 * 17 < margin) newPage();
        draw([block.text], bold, 14, 28, 4);
        break;
      case 'h2':
        if (y - 3 * 17 < margin) newPage();
        draw([block.text], bold, 12, 20, 2);
        break;
      case 'p':
        draw(wrapLines(block.text, regular, 12, textWidth), regular, 12, 17, 8);
        break;
    }
  }
  footer();
  return pdf.save({ useObjectStreams: false });
}

const BIB = `@article{weber2020hypoxia,
  author  = {Weber, Jonas and Okafor, Adaeze},
  title   = {Hypoxia does not alter p53 turnover in {HEK293T} cells},
  journal = {Journal of Cellular Stress Research},
  year    = {2020},
  volume  = {7},
  pages   = {112--119},
  doi     = {10.5555/jcsr.2020.0112},
  url     = {https://okaforlab.example.org/papers/weber2020-hypoxia}
}
`;

// ---------------------------------------------------------------------------------------------
// PPTX lab-meeting deck with speaker notes.

const DECK = {
  file: 'slides/lab-meeting-2024-03-14.pptx',
  title: 'Lab meeting 14 March 2024: USP7 follow-up',
  author: 'Hannah Lee',
  created: '2024-03-14T08:30:00.000Z',
};

const SLIDES: SlideSpec[] = [
  {
    title: 'USP7 follow-up: where we are',
    bullets: ['Hannah Lee', 'Okafor Lab meeting, 14 March 2024'],
    notes: 'This update covers the work from January to March, after the 2023 paper was accepted.',
  },
  {
    title: 'siRNA knockdown of USP7',
    bullets: [
      'si-USP7#2: 84% knockdown of USP7 mRNA at 48 h (RT-qPCR, primers USP7-F3/R3)',
      'si-USP7#1: only 41% knockdown, discontinued',
      'Protein level confirmed with anti-USP7 (CST 4833)',
    ],
    notes: 'Use si-USP7#2 only from now on. The remaining si-USP7#1 tubes in box OL-3 are marked with a red dot and can be thrown away.',
  },
  {
    title: 'P5091 dose response (hypoxia, 4 h)',
    bullets: [
      '10 µM gives the longest p53 half-life with good viability',
      '20 µM is toxic: viability dropped to 58%',
      'We keep 10 µM for all experiments',
    ],
    table: [
      ['P5091 (µM)', 'p53 half-life (min)', 'Viability (%)'],
      ['0', '38', '97'],
      ['2.5', '41', '96'],
      ['5', '49', '94'],
      ['10', '57', '91'],
      ['20', '55', '58'],
    ],
    notes: 'The 20 µM point looks flat because so many cells were dying; viability was measured with trypan blue on the same plates.',
  },
  {
    title: 'RPE-1 pilot',
    bullets: ['hTERT RPE-1 cells, normoxia: p53 half-life 26 min', 'Hypoxia arm still running', 'Preliminary: one replicate only'],
    notes: 'This is n = 1. Please do not quote the RPE-1 number outside the lab until we have three replicates.',
  },
  {
    title: 'Problems this quarter',
    bullets: [
      'Mycoplasma-positive vial found on 2 March: batch HEK-B7',
      'All HEK-B vials destroyed, flasks bleached',
      'New stock thawed from ATCC CRL-3216 as batch HEK-C1',
    ],
    notes: 'Everyone please re-test your cultures with MycoAlert before 28 March. Positive means a ratio above 1.2.',
  },
  {
    title: 'Next steps',
    bullets: [
      'Three RPE-1 replicates under hypoxia by mid-April',
      'Hypoxia workstation (room B.07) is ours every Tuesday from now on',
      'Review article draft to Adaeze by 30 April',
    ],
    notes: 'Rafael will take over the Tuesday workstation slot when I am at the conference in April.',
  },
  {
    title: 'Questions?',
    bullets: ['Thanks to Priya, Rafael and Jonas'],
    notes: 'Reminder: the TRIzol protocol changed this month. RNA is now resuspended in 30 µL instead of 50 µL; ask Rafael for details.',
  },
];

const makePptx = () =>
  makeDeck(SLIDES, {
    title: DECK.title,
    author: DECK.author,
    company: 'Okafor Lab',
    subject: 'Lab meeting update',
    layout: 'boxes',
    created: DECK.created,
  });

// ---------------------------------------------------------------------------------------------
// DOCX protocol. Steps carry literal numbers (as many people type them in Word) so that the step
// numbers survive both raw-text and HTML extraction.

const DOCX_PROTOCOL = {
  file: 'protocols/hek293t-passaging.docx',
  title: 'HEK293T cell passaging',
  author: 'Priya Raman',
  created: '2022-11-02T10:00:00.000Z',
};

const PASSAGING_MATERIALS: string[][] = [
  ['Item', 'Supplier', 'Catalogue no.'],
  ['DMEM, high glucose', 'Gibco', '11965092'],
  ['Fetal bovine serum', 'Gibco', 'A3160401'],
  ['Trypsin-EDTA 0.05%', 'Gibco', '25300054'],
  ['DPBS, no calcium, no magnesium', 'Gibco', '14190144'],
  ['T75 flasks, vented', 'Corning', '430641U'],
  ['MycoAlert mycoplasma detection kit', 'Lonza', 'LT07-318'],
];

const PASSAGING_STEPS = [
  'Warm complete medium (DMEM with 10% FBS) and trypsin-EDTA to 37 °C in the bead bath for 15 min.',
  'Check the flask under the microscope. Passage at 80-90% confluence; HEK293T cells clump when they overgrow.',
  'Aspirate the medium and rinse gently with 5 mL DPBS, pipetting against the flask wall because HEK293T cells detach easily.',
  'Add 2 mL of 0.05% trypsin-EDTA to a T75 flask and incubate for 2-3 min at 37 °C.',
  'Tap the flask, add 8 mL of complete medium to stop the trypsin and pipette up and down five times to break up clumps.',
  'Transfer 1.25 mL of the cell suspension (a 1:8 split) into a new T75 flask containing 13 mL of fresh medium.',
  'Label the flask with the cell line, batch (for example HEK-C1), passage number, date and your initials, and put it in incubator 2 (37 °C, 5% CO2).',
  'Record the passage in eLabFTW. Discard the culture once it reaches passage 20 and thaw a new vial from Dewar 1.',
];

async function makeDocx(): Promise<Buffer> {
  const cell = (text: string, header: boolean) =>
    new TableCell({ children: [new Paragraph({ children: [new TextRun({ text, bold: header })] })] });
  const doc = new Document({
    title: DOCX_PROTOCOL.title,
    creator: DOCX_PROTOCOL.author,
    lastModifiedBy: DOCX_PROTOCOL.author,
    description: 'Okafor Lab protocol',
    revision: 3,
    sections: [
      {
        children: [
          new Paragraph({ text: DOCX_PROTOCOL.title, heading: HeadingLevel.HEADING_1 }),
          new Paragraph({ text: 'Okafor Lab protocol. Author: Priya Raman. Last revised November 2022.' }),
          new Paragraph({
            text:
              'HEK293T cells (ATCC CRL-3216) grow fast and detach easily. Passage them every 3 days, working in ' +
              'biosafety cabinet BSC-1 or BSC-2 in the tissue culture room.',
          }),
          new Paragraph({ text: 'Materials', heading: HeadingLevel.HEADING_2 }),
          new Table({
            width: { size: 100, type: WidthType.PERCENTAGE },
            rows: PASSAGING_MATERIALS.map((row, i) => new TableRow({ children: row.map((t) => cell(t, i === 0)) })),
          }),
          new Paragraph({ text: 'Procedure', heading: HeadingLevel.HEADING_2 }),
          ...PASSAGING_STEPS.map((step, i) => new Paragraph({ text: `${i + 1}. ${step}` })),
          new Paragraph({ text: 'Mycoplasma testing', heading: HeadingLevel.HEADING_2 }),
          new Paragraph({
            text:
              'Test every culture on the first Monday of each month with the MycoAlert kit. A ratio above 1.2 is ' +
              'positive: stop work with that culture, tell Priya Raman and bleach the flasks.',
          }),
          new Paragraph({
            alignment: AlignmentType.RIGHT,
            children: [new TextRun({ text: 'Okafor Lab, room 3.16', italics: true })],
          }),
        ],
      },
    ],
  });
  return withFixedDates(await Packer.toBuffer(doc), DOCX_PROTOCOL.created);
}

// ---------------------------------------------------------------------------------------------

function write(relative: string, data: Uint8Array | string): void {
  const target = path.join(ROOT, relative);
  mkdirSync(path.dirname(target), { recursive: true });
  writeFileSync(target, data);
  const size = typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
  console.log(`wrote ${path.relative(process.cwd(), target)} (${size} bytes)`);
}

write(PDF_PAPER.file, await makePdf());
write(PDF_PAPER.file.replace(/\.pdf$/, '.bib'), BIB);
write(DECK.file, await makePptx());
write(DOCX_PROTOCOL.file, await makeDocx());
