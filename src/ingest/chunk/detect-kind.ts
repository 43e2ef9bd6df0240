// Which kind a document is, from its structure, when nobody said so.

import type { Block, FileFormat, Kind } from '../../types.ts';
import { MATERIALS_HEADING, isMaterialsLabel } from './protocol.ts';
import { stripTrailingReferences } from './references.ts';
import { canonicalSection } from './sections.ts';
import { STEP_MARKER, procedureShape, readsAsProcedure } from './steps.ts';
import { normalizeSpace } from './text.ts';

export interface DetectInput {
  fileName: string;
  format: FileFormat;
  blocks: Block[];
  declared?: Kind;
}

/** Long text reads as a paper when it has this much prose and cites like one. */
const LONG_TEXT = 15_000;

function textOf(b: Block): string {
  switch (b.type) {
    case 'heading':
    case 'paragraph':
    case 'code':
      return b.text;
    case 'list':
      return b.items.join('\n');
    case 'table':
      return [b.caption ?? '', b.header.join(' '), ...b.rows.map((r) => r.join(' '))].join('\n');
    case 'slide':
      return [b.title, b.body, b.notes].join('\n');
    case 'page':
      return '';
  }
}

/** Headings, plus short stand-alone lines (PDFs keep section names as lines, not headings). */
function headingLike(blocks: Block[]): string[] {
  return blocks.flatMap((b) => {
    if (b.type === 'heading') return [b.text];
    if (b.type === 'paragraph') return b.text.split(/\r?\n/).filter((l) => normalizeSpace(l).length <= 50);
    return [];
  });
}

/** Sections that only a paper reports (a protocol's "Anticipated results" is not one). */
const FINDINGS = new Set(['Results', 'Results and Discussion', 'Discussion', 'Conclusion']);

function paperSections(blocks: Block[]): Set<string> {
  const names = new Set<string>();
  for (const h of headingLike(blocks)) {
    const c = canonicalSection(h);
    if (c) names.add(c);
  }
  return names;
}

function hasSteps(blocks: Block[]): boolean {
  if (blocks.some((b) => b.type === 'list' && b.ordered && b.items.length >= 3)) return true;
  let markers = 0;
  let numbered = 0;
  for (const b of blocks) {
    const lines = b.type === 'heading' ? [b.text] : b.type === 'paragraph' ? b.text.split(/\r?\n/) : [];
    for (const l of lines) {
      if (STEP_MARKER.test(l)) markers++;
      else if (/^\s*\d{1,2}[.)]\s+\p{Lu}/u.test(l)) numbered++;
    }
  }
  return markers >= 2 || numbered >= 3;
}

function hasMaterials(blocks: Block[]): boolean {
  return blocks.some((b, i) => {
    if (b.type === 'heading') return isMaterialsLabel(b.text);
    if (b.type !== 'paragraph') return false;
    const t = normalizeSpace(b.text);
    // "You will need:" before a list, or "Reagents: Tris, NaCl, ..." inline.
    if (isMaterialsLabel(t) && blocks[i + 1]?.type === 'list') return true;
    return /^[^:]{0,40}:/.test(t) && MATERIALS_HEADING.test(t.split(':')[0]) && isMaterialsLabel(t.split(':')[0]);
  });
}

function citesLikeAPaper(blocks: Block[], text: string): boolean {
  if (blocks.some((b) => b.type === 'heading' && canonicalSection(b.text) === 'References')) return true;
  if (/\b10\.\d{4,9}\/\S+/.test(text)) return true;
  if ((text.match(/\bet al\./g) ?? []).length >= 2) return true;
  return stripTrailingReferences(blocks).length < blocks.length;
}

export function detectKind(input: DetectInput): Kind {
  if (input.declared) return input.declared;
  const { blocks, format } = input;
  if (format === 'pptx' || blocks.some((b) => b.type === 'slide')) return 'slides';

  const names = paperSections(blocks);
  const sections = names.size;
  const findings = [...names].some((n) => FINDINGS.has(n));
  const shape = procedureShape(blocks);
  // A paper reports findings; its Methods may number their steps like a protocol does. A long-form
  // protocol (Abstract, Introduction, Materials, Procedure, References) has the sections of a paper
  // but no findings.
  if (sections >= 3 && (findings || !(readsAsProcedure(shape) && (hasMaterials(blocks) || shape.procedureHeading)))) return 'paper';
  if (hasSteps(blocks) && hasMaterials(blocks)) return 'protocol';
  // Steps without a materials list: a bench procedure when its steps state quantities (a wiki
  // page's "1. Collect your key card" list does not).
  if (!findings && readsAsProcedure(shape)) return 'protocol';
  if (sections >= 2) return 'paper';
  const text = blocks.map(textOf).join('\n');
  if (text.length > LONG_TEXT && citesLikeAPaper(blocks, text)) return 'paper';
  return format === 'markdown' || format === 'html' ? 'wiki' : 'note';
}
