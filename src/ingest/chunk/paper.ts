// Papers: one chunk per section where there are sections, pages or parts where there are not
// (most PDFs), and never the reference list.

import type { Block, ChunkDraft, ChunkOptions } from '../../types.ts';
import { stripTrailingReferences } from './references.ts';
import { canonicalSection, isReferencesHeading, mergedLabel, splitSections, type Section } from './sections.ts';
import { limits, makeChunk, normalizeSpace, packUnits, type ParsedDoc, type Unit } from './text.ts';
import { blocksToUnits } from './units.ts';

/**
 * PDFs arrive without headings, but their section names survive as short lines of their own
 * ("2. Materials and Methods"). Promoting those to headings gives citations a real section.
 */
function promoteSectionLines(blocks: Block[]): Block[] {
  if (blocks.some((b) => b.type === 'heading')) return blocks;
  const promoted = blocks.map((b): Block => {
    if (b.type !== 'paragraph') return b;
    const text = normalizeSpace(b.text);
    return text.length <= 50 && canonicalSection(text) ? { type: 'heading', level: 1, text } : b;
  });
  const found = promoted.filter((b) => b.type === 'heading' && !isReferencesHeading(b.text)).length;
  return found >= 2 ? promoted : blocks;
}

/** Sections under a References heading go, and so does their subtree. */
function dropReferenceSections(sections: Section[]): Section[] {
  return sections.filter((s) => !s.rawPath.some((h) => isReferencesHeading(h)));
}

function headinglessChunks(title: string, blocks: Block[], opts: ChunkOptions): ChunkDraft[] {
  const { units } = blocksToUnits(blocks, opts);
  const paged = blocks.some((b) => b.type === 'page');
  return packUnits(units, opts).map((p, i) =>
    paged && p.page !== undefined ? makeChunk(title, `p. ${p.page}`, p.text, { page: p.page }) : makeChunk(title, `Part ${i + 1}`, p.text),
  );
}

interface Group {
  paths: string[][];
  units: Unit[];
  length: number;
  page?: number;
}

function unitsLength(units: Unit[]): number {
  return units.reduce((n, u, i) => n + u.text.length + (i > 0 ? u.sep.length : 0), 0);
}

/**
 * Small adjacent sections are merged up to the chunk size so that a structured abstract's
 * BACKGROUND / METHODS / RESULTS of a few hundred characters each do not become runt chunks
 * (see chunk sizes in docs/architecture.md). In a full paper only sections under the same
 * top-level heading merge ("Methods > Cell culture; Transfection"); in a short document any
 * neighbours may. Each merged section keeps its name as a line of its own inside the chunk.
 */
function mergeSmall(sections: Array<{ path: string[]; units: Unit[]; page?: number }>, opts: ChunkOptions): Group[] {
  const { size } = limits(opts);
  const total = sections.reduce((n, s) => n + unitsLength(s.units), 0);
  const short = total <= 4 * size;
  const groups: Group[] = [];
  for (const s of sections) {
    const length = unitsLength(s.units);
    const prev = groups[groups.length - 1];
    const label = s.path[s.path.length - 1] ?? '';
    const labelled = (units: Unit[], name: string): Unit[] =>
      name
        ? [{ text: name, sep: '\n\n', page: units[0]?.page }, ...units.map((u, i) => (i === 0 ? { ...u, sep: '\n' as const } : u))]
        : units;
    if (prev) {
      const prevLabel = prev.paths.length === 1 ? (prev.paths[0][prev.paths[0].length - 1] ?? '') : '';
      const extra = label.length + 2 + (prev.paths.length === 1 ? prevLabel.length + 1 : 0);
      const sameParent = prev.paths[0][0] !== undefined && prev.paths[0][0] === s.path[0];
      const small = prev.length < size / 2 || length < size / 2;
      if ((short || (sameParent && small)) && prev.length + length + extra <= size) {
        if (prev.paths.length === 1) prev.units = labelled(prev.units, prevLabel);
        prev.units = [...prev.units, ...labelled(s.units, label)];
        prev.paths.push(s.path);
        prev.length = unitsLength(prev.units);
        continue;
      }
    }
    groups.push({ paths: [s.path], units: s.units, length, page: s.page });
  }
  return groups;
}

export function chunkPaper(doc: ParsedDoc, opts: ChunkOptions): ChunkDraft[] {
  const blocks = stripTrailingReferences(promoteSectionLines(doc.blocks));
  if (!blocks.some((b) => b.type === 'heading')) return headinglessChunks(doc.title, blocks, opts);

  const sections = dropReferenceSections(splitSections(blocks, doc.title));
  const withUnits = sections
    .map((s) => ({ path: s.path, page: s.page, units: blocksToUnits(s.blocks, opts, s.page).units }))
    .filter((s) => s.units.length > 0);
  const chunks: ChunkDraft[] = [];
  for (const g of mergeSmall(withUnits, opts)) {
    const label = mergedLabel(g.paths);
    for (const p of packUnits(g.units, opts)) {
      const page = p.page ?? g.page;
      // Text before the first heading (title block, authors) is cited by page when pages are known.
      const section = label || (page !== undefined ? `p. ${page}` : '');
      chunks.push(makeChunk(doc.title, section, p.text, page !== undefined ? { page } : {}));
    }
  }
  return chunks;
}
