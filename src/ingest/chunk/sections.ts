// Headings: cleaning them into citation labels, recognising paper sections, and cutting a block
// list into sections that each know their heading path.

import type { Block } from '../../types.ts';
import { normalizeSpace } from './text.ts';

/** Canonical paper sections (English and Spanish) mapped to the label used in citations. */
const CANONICAL: Array<[RegExp, string]> = [
  [/^(abstract|summary|resumen)$/, 'Abstract'],
  [/^(introduction|introducción|introduccion)$/, 'Introduction'],
  [/^(background|antecedentes)$/, 'Background'],
  [
    new RegExp(
      String.raw`^(methods?|materials and methods|methods and materials|material and methods|` +
        String.raw`experimental procedures|experimental section|methodology|materiales y métodos|` +
        String.raw`materiales y metodos|métodos|metodos|metodología)$`,
    ),
    'Methods',
  ],
  [/^(results?|resultados)$/, 'Results'],
  [/^(results and discussion|resultados y discusión)$/, 'Results and Discussion'],
  [/^(discussion|discusión|discusion)$/, 'Discussion'],
  [/^(conclusions?|concluding remarks|conclusiones|conclusión)$/, 'Conclusion'],
  [/^(references|bibliography|literature cited|works cited|references and notes|referencias|bibliografía|bibliografia)$/, 'References'],
];

/** Labels of structured abstracts (PubMed) that read better in sentence case than in capitals. */
const SECTION_WORDS = new Set(
  (
    'abstract summary introduction background methods method materials and results discussion conclusion ' +
    'conclusions objective objectives purpose aim aims design setting settings participants patients ' +
    'interventions intervention measurements main outcome outcomes measures study findings interpretation ' +
    'context importance evidence acquisition synthesis significance limitations methodology of the ' +
    'experimental procedures section references bibliography acknowledgements acknowledgments funding ' +
    'supplementary material data availability notes safety troubleshooting procedure protocol equipment reagents'
  ).split(' '),
);

/** Leading section numbering: "2.", "2.1", "2.1.3", "IV.", "A." (letters only with a dot). */
const NUMBERING = /^\s*(?:(\d+(?:\.\d+)*)\.?|([IVXLC]+)\.|([A-Z])\.)\s+(?=\S)/;

export function numberingDepth(heading: string): number {
  const m = NUMBERING.exec(heading);
  if (!m?.[1]) return 0;
  return m[1].split('.').length;
}

function bare(heading: string): string {
  return normalizeSpace(heading)
    .replace(NUMBERING, '')
    .replace(/^#+\s*/, '')
    .replace(/[\s:.]+$/, '')
    .trim();
}

/** The canonical name of a paper section heading ("2. MATERIALS AND METHODS" -> "Methods"). */
export function canonicalSection(heading: string): string | undefined {
  const key = bare(heading).toLowerCase().replace(/&/g, 'and');
  if (key.length > 40) return undefined;
  for (const [re, label] of CANONICAL) if (re.test(key)) return label;
  return undefined;
}

export function isReferencesHeading(heading: string): boolean {
  return canonicalSection(heading) === 'References';
}

/** A heading as a citation label: numbering dropped, shouting turned into sentence case. */
export function cleanHeading(heading: string): string {
  const text = bare(heading);
  const words = text.toLowerCase().split(/\s+/);
  if (text === text.toUpperCase() && /\p{Lu}/u.test(text) && words.every((w) => SECTION_WORDS.has(w))) {
    const lower = text.toLowerCase();
    return lower[0].toUpperCase() + lower.slice(1);
  }
  return text;
}

function sameText(a: string, b: string): boolean {
  const norm = (s: string): string =>
    s
      .toLowerCase()
      .replace(/\.[a-z0-9]{1,5}$/, '')
      .replace(/[-_]+/g, ' ')
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      .trim();
  return norm(a) !== '' && norm(a) === norm(b);
}

export interface Section {
  /** Cleaned heading texts from the outermost to this section's own heading. */
  path: string[];
  /** The raw headings of the path, for classification (e.g. "Step 3", "Reactivos"). */
  rawPath: string[];
  /** Content blocks directly under this heading (not its subsections), page markers included. */
  blocks: Block[];
  /** Page in effect where the section starts. */
  page?: number;
}

/**
 * Cut blocks into sections by heading. The document's own title, repeated as its first heading,
 * is not part of any path (the chunk header already carries it). When every heading has the same
 * level (PDF/DOCX heuristics), numbered headings ("2.1 Cell culture") nest by their numbering.
 */
export function splitSections(blocks: Block[], title: string): Section[] {
  const headings = blocks.filter((b): b is Extract<Block, { type: 'heading' }> => b.type === 'heading');
  const flat = headings.length > 1 && headings.every((h) => h.level === headings[0].level);
  const levelOf = (h: Extract<Block, { type: 'heading' }>): number => {
    if (!flat) return h.level;
    const d = numberingDepth(h.text);
    return d > 0 ? d : 1;
  };
  const firstContent = blocks.findIndex((b) => b.type !== 'page');
  const first = blocks[firstContent];
  const topLevel = Math.min(...headings.map((h) => h.level));
  const titleIsHeading =
    first?.type === 'heading' &&
    (sameText(first.text, title) ||
      (first.level === 1 && first.level === topLevel && !flat && headings.filter((h) => h.level === topLevel).length === 1));

  const sections: Section[] = [];
  const stack: Array<{ level: number; label: string; raw: string }> = [];
  let current: Section = { path: [], rawPath: [], blocks: [] };
  let page: number | undefined;
  blocks.forEach((b, i) => {
    if (b.type === 'page') page = b.number;
    if (b.type !== 'heading') {
      if (b.type !== 'page' && !current.blocks.some((x) => x.type !== 'page')) current.page = page;
      current.blocks.push(b);
      return;
    }
    if (i === firstContent && titleIsHeading) return;
    if (current.blocks.some((x) => x.type !== 'page')) sections.push(current);
    const level = levelOf(b);
    while (stack.length > 0 && stack[stack.length - 1].level >= level) stack.pop();
    const label = cleanHeading(b.text);
    if (label) stack.push({ level, label, raw: normalizeSpace(b.text) });
    current = { path: stack.map((s) => s.label), rawPath: stack.map((s) => s.raw), blocks: [], page };
  });
  if (current.blocks.some((x) => x.type !== 'page')) sections.push(current);
  return sections;
}

/** "A > B" labels of merged sections, sharing their common parent: "Methods > Cell culture; Transfection". */
export function mergedLabel(all: string[][]): string {
  const paths = all.filter((p) => p.length > 0);
  const labels = paths.map((p) => p.join(' > '));
  if (paths.length <= 1) return labels[0] ?? '';
  let common = 0;
  while (paths.every((p) => p.length > common + 1 && p[common] === paths[0][common])) common++;
  if (common === 0) return labels.join('; ');
  return `${paths[0].slice(0, common).join(' > ')} > ${paths.map((p) => p.slice(common).join(' > ')).join('; ')}`;
}
