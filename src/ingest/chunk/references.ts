// Reference lists: recognised so they can be kept out of content chunks. A chunk of citations
// matches every query that names an author or a journal and answers none of them.

import type { Block } from '../../types.ts';
import { isReferencesHeading } from './sections.ts';
import { normalizeSpace } from './text.ts';

const NUMBER_MARKER = /^(?:\[\d{1,4}\]|\(\d{1,4}\)|\d{1,4}[.)])\s*/;
const PARTICLES = String.raw`(?:(?:van|von|der|den|de|del|da|di|la|le|du|dos)\s+)*`;
const AUTHOR_START = new RegExp(
  String.raw`^(?:\[\d{1,4}\]\s*|\d{1,4}[.)]\s*)?${PARTICLES}\p{Lu}[\p{L}'’\-]+,?\s+(?:\p{Lu}\.?\s?-?){1,3}(?:[,.;]|\s+(?:and|&|y)\s)`,
  'u',
);
const YEAR = /\b(?:19|20)\d{2}[a-z]?\b/;
const BIBLIO = [
  /\d+\s*(?:\([^)]{1,12}\))?\s*[:,]\s*[A-Za-z]?\d+(?:\s*[-–]\s*[A-Za-z]?\d+)?/, // 294(5):123-130
  /\bdoi\b|\b10\.\d{4,9}\/|\bPMID\b|https?:\/\//i,
  /\bet al\./,
  /\bpp?\.\s*\d+/,
  /\b(?:J|Proc|Nat|Natl|Biol|Chem|Sci|Acad|Med|Res|Rev|Biochem|Mol|Cell|Nature|Science|PLoS|Lancet)\b/,
];

/** One entry of a reference list: "[12] Smith J, ...", "1. Smith AB, Jones C. Title. J Biol Chem. 2019;..." */
export function isCitationLike(text: string): boolean {
  const t = normalizeSpace(text);
  if (t.length < 20 || t.length > 800) return false;
  if (!(NUMBER_MARKER.test(t) || AUTHOR_START.test(t))) return false;
  if (!YEAR.test(t)) return false;
  return BIBLIO.some((re) => re.test(t));
}

function isEntryStart(line: string): boolean {
  return NUMBER_MARKER.test(line) || AUTHOR_START.test(line);
}

interface Entry {
  text: string;
  block: number;
  /** Line (paragraph) or item (list) index where the entry starts. */
  line: number;
}

/**
 * Remove a trailing reference list from heading-less text: the last run of citation-like
 * paragraphs, lines or list items (wrapped continuation lines included), with a "References"
 * label line right before it. At least three citations, or one after such a label, are needed:
 * a closing sentence that happens to cite a paper is prose, not a reference list.
 */
export function stripTrailingReferences(blocks: Block[]): Block[] {
  const entries: Entry[] = [];
  let firstTail = blocks.length;
  for (let i = blocks.length - 1; i >= 0; i--) {
    const b = blocks[i];
    if (b.type === 'page' || b.type === 'paragraph' || b.type === 'list') firstTail = i;
    else if (b.type === 'heading' && isReferencesHeading(b.text)) {
      firstTail = i;
      break;
    } else break;
  }
  for (let i = firstTail; i < blocks.length; i++) {
    const b = blocks[i];
    if (b.type === 'heading') entries.push({ text: b.text, block: i, line: 0 });
    if (b.type === 'list') b.items.forEach((item, j) => entries.push({ text: normalizeSpace(item), block: i, line: j }));
    if (b.type !== 'paragraph') continue;
    b.text.split(/\r?\n/).forEach((raw, j) => {
      const line = normalizeSpace(raw);
      if (!line) return;
      const last = entries[entries.length - 1];
      if (j > 0 && last && last.block === i && !isEntryStart(line)) last.text += ` ${line}`;
      else entries.push({ text: line, block: i, line: j });
    });
  }

  let start = -1;
  let cites = 0;
  let gap = 0;
  for (let e = entries.length - 1; e >= 0; e--) {
    const text = entries[e].text;
    if (isCitationLike(text)) {
      cites++;
      gap = 0;
      start = e;
      continue;
    }
    if (isReferencesHeading(text) && cites > 0) {
      start = e;
      cites += 2;
      break;
    }
    // Tolerate one short stray line (a running footer, a citation without a year).
    gap++;
    if (gap > 1 || text.length > 300) break;
  }
  if (start < 0 || cites < 3) return blocks;

  const cut = entries[start];
  const kept = blocks.slice(0, cut.block);
  const b = blocks[cut.block];
  if (b.type === 'paragraph' && cut.line > 0) {
    const head = b.text.split(/\r?\n/).slice(0, cut.line).join('\n');
    if (head.trim()) kept.push({ type: 'paragraph', text: head });
  }
  if (b.type === 'list' && cut.line > 0) kept.push({ ...b, items: b.items.slice(0, cut.line) });
  return kept;
}
