// The numbers Word shows on numbered lists. mammoth turns each run of numbered paragraphs into
// an <ol> without a start, so a protocol whose steps continue under sub-headings ("Anaesthesia:
// 1-2", "Clipping: 3-5") would read as steps 1-2, 1-3. Word's rule: paragraphs of the same
// abstract numbering share one counter per level (a deeper level restarts after a higher one),
// unless a numbering instance overrides the start. mammoth exposes none of this, and no library
// reads it, hence this small reader of document.xml and numbering.xml. Pure: XML text in.

/** One run of consecutive numbered paragraphs at the top level: what mammoth makes one <ol> of. */
export interface NumberedRun {
  /** The number Word shows on its first item. */
  first: number;
  /** Top-level items in the run. */
  items: number;
}

const attr = (tag: string, name: string): string | undefined => new RegExp(`${name}="([^"]*)"`).exec(tag)?.[1];

interface NumberingDefs {
  /** numId -> abstractNumId and its start overrides per level. */
  nums: Map<string, { abstract: string; overrides: Map<number, number> }>;
  /** abstractNumId -> per level: start and whether it is a bullet. */
  levels: Map<string, Map<number, { start: number; bullet: boolean }>>;
}

function readDefinitions(numberingXml: string): NumberingDefs {
  const levels = new Map<string, Map<number, { start: number; bullet: boolean }>>();
  for (const m of numberingXml.matchAll(/<w:abstractNum\b([^>]*)>([\s\S]*?)<\/w:abstractNum>/g)) {
    const id = attr(m[1], 'w:abstractNumId');
    if (id === undefined) continue;
    const byLevel = new Map<number, { start: number; bullet: boolean }>();
    for (const l of m[2].matchAll(/<w:lvl\b([^>]*)>([\s\S]*?)<\/w:lvl>/g)) {
      const level = Number(attr(l[1], 'w:ilvl') ?? 0);
      const start = Number(attr(/<w:start\b[^>]*>/.exec(l[2])?.[0] ?? '', 'w:val') ?? 1);
      const fmt = attr(/<w:numFmt\b[^>]*>/.exec(l[2])?.[0] ?? '', 'w:val');
      byLevel.set(level, { start: Number.isFinite(start) ? start : 1, bullet: fmt === 'bullet' || fmt === 'none' });
    }
    levels.set(id, byLevel);
  }
  const nums = new Map<string, { abstract: string; overrides: Map<number, number> }>();
  for (const m of numberingXml.matchAll(/<w:num\b([^>]*)>([\s\S]*?)<\/w:num>/g)) {
    const id = attr(m[1], 'w:numId');
    const abstract = attr(/<w:abstractNumId\b[^>]*>/.exec(m[2])?.[0] ?? '', 'w:val');
    if (id === undefined || abstract === undefined) continue;
    const overrides = new Map<number, number>();
    for (const o of m[2].matchAll(/<w:lvlOverride\b([^>]*)>([\s\S]*?)<\/w:lvlOverride>/g)) {
      const start = attr(/<w:startOverride\b[^>]*>/.exec(o[2])?.[0] ?? '', 'w:val');
      if (start !== undefined) overrides.set(Number(attr(o[1], 'w:ilvl') ?? 0), Number(start));
    }
    nums.set(id, { abstract, overrides });
  }
  return { nums, levels };
}

/** The body's paragraphs outside tables (mammoth lists inside cells belong to the table). */
function bodyParagraphs(documentXml: string): string[] {
  let depth = 0;
  const out: string[] = [];
  for (const m of documentXml.matchAll(/<w:tbl\b[^>]*>|<\/w:tbl>|<w:p\b[^>]*\/>|<w:p\b[^>]*>[\s\S]*?<\/w:p>/g)) {
    const tag = m[0];
    if (tag.startsWith('<w:tbl')) depth++;
    else if (tag === '</w:tbl>') depth = Math.max(0, depth - 1);
    else if (depth === 0) out.push(tag);
  }
  return out;
}

const hasText = (p: string): boolean => [...p.matchAll(/<w:t\b[^>]*>([^<]*)<\/w:t>/g)].some((t) => t[1].trim() !== '');

/**
 * The runs of top-level numbered (not bulleted) paragraphs in document order, with the number
 * Word shows on each run's first item. Empty paragraphs are skipped, as mammoth skips them.
 */
export function numberedRuns(documentXml: string, numberingXml: string | undefined): NumberedRun[] {
  if (!numberingXml) return [];
  const defs = readDefinitions(numberingXml);
  const counters = new Map<string, Map<number, number>>();
  const seenNums = new Set<string>();
  const runs: NumberedRun[] = [];
  let open: NumberedRun | undefined;
  for (const p of bodyParagraphs(documentXml)) {
    if (!hasText(p)) continue;
    const numPr = /<w:numPr>([\s\S]*?)<\/w:numPr>/.exec(p)?.[1];
    const numId = numPr ? attr(/<w:numId\b[^>]*>/.exec(numPr)?.[0] ?? '', 'w:val') : undefined;
    const num = numId !== undefined && numId !== '0' ? defs.nums.get(numId) : undefined;
    if (!num || numId === undefined) {
      open = undefined;
      continue;
    }
    const level = Number(attr(/<w:ilvl\b[^>]*>/.exec(numPr ?? '')?.[0] ?? '', 'w:val') ?? 0);
    const def = defs.levels.get(num.abstract)?.get(level) ?? { start: 1, bullet: false };
    const counter = counters.get(num.abstract) ?? new Map<number, number>();
    counters.set(num.abstract, counter);
    if (!seenNums.has(numId)) {
      seenNums.add(numId);
      for (const [l, start] of num.overrides) counter.set(l, start - 1);
    }
    const value = (counter.get(level) ?? def.start - 1) + 1;
    counter.set(level, value);
    for (const l of [...counter.keys()]) if (l > level) counter.delete(l);
    if (level > 0) continue;
    if (def.bullet) {
      open = undefined;
      continue;
    }
    if (!open) {
      open = { first: value, items: 0 };
      runs.push(open);
    }
    open.items++;
  }
  return runs;
}
