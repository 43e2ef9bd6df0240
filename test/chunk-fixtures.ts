// Shared fixtures and checks for the chunking tests: realistic lab documents as Block arrays.

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Block, ChunkDraft } from '../src/types.ts';

export const PUBMED_DIR = path.resolve('datasets/pubmedqa/docs');

/** Everything after the header line. */
export function body(c: ChunkDraft): string {
  const i = c.text.indexOf('\n');
  return i < 0 ? '' : c.text.slice(i + 1);
}

export function header(c: ChunkDraft): string {
  const i = c.text.indexOf('\n');
  return i < 0 ? c.text : c.text.slice(0, i);
}

export function squash(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** Sentences cut naively (more cuts than the chunker makes): each must sit whole in some chunk. */
export function naiveSentences(text: string): string[] {
  return squash(text)
    .split(/(?<=[.!?])\s+(?=[A-Z])/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

export function missingSentences(source: string[], chunks: ChunkDraft[]): string[] {
  const bodies = chunks.map((c) => squash(body(c)));
  return source.flatMap(naiveSentences).filter((s) => !bodies.some((b) => b.includes(s)));
}

/** Body paragraphs of a PubMedQA abstract file: front matter and "## LABEL" lines removed. */
export function pubmedParagraphs(file: string): string[] {
  const raw = readFileSync(path.join(PUBMED_DIR, file), 'utf8').replace(/^---\n[\s\S]*?\n---\n/, '');
  return raw
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter((p) => p !== '' && !p.startsWith('## '));
}

/** A PubMedQA abstract as blocks, its "## LABEL" lines as headings. */
export function pubmedBlocks(file: string): Block[] {
  const raw = readFileSync(path.join(PUBMED_DIR, file), 'utf8').replace(/^---\n[\s\S]*?\n---\n/, '');
  return raw
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter((p) => p !== '')
    .map((p): Block => (p.startsWith('## ') ? { type: 'heading', level: 2, text: p.slice(3) } : { type: 'paragraph', text: p }));
}

/** ~`target` characters of real abstract prose as paragraphs, in a fixed file order. */
export function pubmedProse(target: number): string[] {
  const out: string[] = [];
  let total = 0;
  for (const f of readdirSync(PUBMED_DIR)
    .filter((f) => f.endsWith('.md'))
    .sort()) {
    for (const p of pubmedParagraphs(f)) {
      out.push(p);
      total += p.length;
    }
    if (total >= target) break;
  }
  return out;
}

export const REFERENCE_LINES = [
  '1. Smith AB, Jones C. Helicopter transport and airway management in flight. J Biol Chem. 2019;294(5):1123-1130.',
  '2. García M, López R, et al. Discharge coordinators and readmission. BMJ. 2001;322:814-818. doi:10.1136/bmj.322.7290.814',
  '3. Lee K, Park J. Manikin studies of intubation under vibration. Ann Emerg Med. 1998;31(2):200-205.',
  '4. Wolfe CD, Taub NA, Woodrow EJ, Burney PG. Assessment of scales of disability and handicap for stroke patients. Stroke. 1991;22:1242-1244.',
  '5. Nguyen T, Brown E. Serum chloride as a marker of acid-base status. Clin Chem. 2005;51(3):45-52. PMID 15713898',
];

export const PAPER_TITLE = 'TFEB depletion impairs lysosomal biogenesis and autophagic flux in HeLa cells';

/** A paper with Abstract / Introduction / Methods (subsections) / Results / Discussion / References. */
export function paperBlocks(): Block[] {
  return [
    { type: 'heading', level: 1, text: PAPER_TITLE },
    { type: 'heading', level: 2, text: 'Abstract' },
    {
      type: 'paragraph',
      text:
        'Transcription factor EB (TFEB) controls the expression of lysosomal and autophagy genes through the CLEAR motif. ' +
        'Here we asked whether partial depletion of TFEB is sufficient to impair lysosomal biogenesis in HeLa cells. ' +
        'siRNA knock-down reduced TFEB protein by 78% (p < 0.01) and lowered LAMP1 and cathepsin D levels within 48 h. ' +
        'Autophagic flux, measured as LC3-II accumulation after bafilomycin A1, fell to 0.41 of control. ' +
        'These results suggest that lysosomal capacity in HeLa cells depends on TFEB dosage rather than on its activation alone.',
    },
    { type: 'heading', level: 2, text: 'Introduction' },
    {
      type: 'paragraph',
      text:
        'Lysosomes degrade macromolecules delivered by endocytosis, phagocytosis and autophagy, ' +
        'and they act as signalling hubs that sense nutrient availability. ' +
        'The coordinated lysosomal expression and regulation (CLEAR) network links these functions to a common transcriptional programme. ' +
        'Sardiello et al. identified TFEB as the master regulator of this network, and later work ' +
        'showed that TFEB also drives autophagosome formation (e.g. through UVRAG and VPS11). ' +
        'Under nutrient-rich conditions mTORC1 phosphorylates TFEB at Ser142 and Ser211, which retains it in the cytoplasm bound to 14-3-3 proteins.',
    },
    {
      type: 'paragraph',
      text:
        'Starvation or lysosomal stress inactivates mTORC1, and dephosphorylated TFEB moves into the nucleus within minutes (Fig. 1A). ' +
        'Most studies have therefore focused on the activation of TFEB rather than on how much of it a cell needs. ' +
        'Overexpression experiments show that more TFEB produces more lysosomes, but it is not known whether the endogenous level is limiting. ' +
        'Roczniak-Ferguson et al. reported that TFEB knock-out cells retain a basal lysosomal population, which argues for redundancy with TFE3 and MITF.',
    },
    {
      type: 'paragraph',
      text:
        'In this study we reduced TFEB by RNA interference in HeLa cells and measured lysosomal markers, lysosome number and autophagic flux. ' +
        'We chose a partial knock-down on purpose: a complete loss may trigger compensation by ' +
        'TFE3, whereas a 70-80% reduction mimics the haploinsufficiency seen in some patients. ' +
        'We also asked whether the effect depends on nutrient status, because approx. 20% of TFEB is nuclear even in complete medium. ' +
        'Our data show that TFEB dosage, and not only its activation, sets lysosomal capacity in these cells.',
    },
    { type: 'heading', level: 2, text: 'Methods' },
    { type: 'heading', level: 3, text: 'Cell culture' },
    {
      type: 'paragraph',
      text:
        'HeLa cells (ATCC CCL-2) were grown in DMEM with 4.5 g/L glucose, 10% fetal bovine serum and 1% penicillin-streptomycin at 37 °C in 5% CO2. ' +
        'Cells were passaged twice a week at 80% confluence and used between passages 5 and 20. ' +
        'For starvation, cells were washed twice with PBS and incubated in EBSS for 2 h. ' +
        'Mycoplasma contamination was excluded every month by PCR.',
    },
    { type: 'heading', level: 3, text: 'siRNA transfection' },
    {
      type: 'paragraph',
      text:
        'Cells were seeded at 1.5 × 10^5 per well in 6-well plates and transfected the next day ' +
        'with 20 nM siRNA against TFEB (Dharmacon, cat. no. L-009798-00) or a non-targeting ' +
        'control pool using Lipofectamine RNAiMAX (Thermo Fisher, cat. no. 13778150) according to ' +
        'the manufacturer. ' +
        'The medium was replaced after 6 h. ' +
        'Knock-down was verified by qPCR and western blot 48 h after transfection.',
    },
    { type: 'heading', level: 3, text: 'Western blotting' },
    {
      type: 'paragraph',
      text:
        'Cells were lysed in RIPA buffer with protease and phosphatase inhibitors, and 20 µg of protein per lane were separated on 4-12% Bis-Tris gels. ' +
        'Proteins were transferred to PVDF membranes, blocked in 5% milk in TBST for 1 h and ' +
        'probed overnight at 4 °C with antibodies against TFEB (1:1000), LAMP1 (1:2000), cathepsin ' +
        'D (1:1000), LC3B (1:2000) and GAPDH (1:5000). ' +
        'Bands were quantified with ImageJ and normalised to GAPDH. ' +
        'For flux measurements, bafilomycin A1 (100 nM) was added 4 h before lysis.',
    },
    { type: 'heading', level: 3, text: 'Statistical analysis' },
    {
      type: 'paragraph',
      text:
        'Data are mean ± s.d. of at least three independent experiments. ' +
        'Groups were compared with a two-tailed Student t-test or one-way ANOVA with Tukey correction; p < 0.05 was considered significant.',
    },
    { type: 'heading', level: 2, text: 'Results' },
    {
      type: 'paragraph',
      text:
        'TFEB siRNA reduced TFEB mRNA to 0.22 ± 0.05 of control and protein to 0.24 ± 0.07 (n = 4, p < 0.01; Fig. 2A). ' +
        'LAMP1 protein fell by 41% and mature cathepsin D by 36% after 48 h, whereas GAPDH was unchanged. ' +
        'LysoTracker staining showed fewer acidic puncta per cell (62 ± 11 versus 104 ± 15; Fig. 2B). ' +
        'In starved cells the difference was larger, consistent with a failure to mount the starvation response. ' +
        'LC3-II accumulation after bafilomycin A1 was reduced to 0.41 of control, indicating lower autophagic flux (Fig. 3).',
    },
    { type: 'heading', level: 2, text: 'Discussion' },
    {
      type: 'paragraph',
      text:
        'Our results show that a partial loss of TFEB is enough to reduce lysosomal protein levels and autophagic flux in HeLa cells. ' +
        'This agrees with the dosage sensitivity reported by Settembre et al. in liver, but contrasts with the mild phenotype of TFEB knock-out fibroblasts. ' +
        'One explanation is that acute knock-down leaves no time for compensation by TFE3, whose ' +
        'nuclear levels did not change in our hands (data not shown). ' +
        'A limitation of this study is the use of a single cell line; primary cells may respond differently.',
    },
    { type: 'heading', level: 2, text: 'References' },
    ...REFERENCE_LINES.map((text): Block => ({ type: 'paragraph', text })),
  ];
}
