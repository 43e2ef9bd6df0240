// Page 1 of a PDF as positioned lines: text, font size, baseline and horizontal extent, from
// pdf.js text items (`transform` gives position and scale, so the font size survives). pdf-parse,
// which reads the rest of the PDF, joins items into plain text and drops their geometry; title
// and author lines can only be told apart by it, so page 1 is read again through pdf.js itself
// (the same pdf.js version pdf-parse runs). About 10 ms per paper here, a fifth of parsing one.
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';

export interface LayoutLine {
  text: string;
  /** Font size of the line's main text (points). */
  size: number;
  /** Baseline, in points from the top of the page. */
  top: number;
  x0: number;
  x1: number;
  /** Text that sat above the baseline in a smaller size (superscript affiliation markers), removed from `text`. */
  superscripts: string[];
  /** `text` with a comma where each superscript was: in an author line a marker ends a name. */
  marked: string;
}

export interface PageLayout {
  width: number;
  height: number;
  lines: LayoutLine[];
}

interface Item {
  str: string;
  x: number;
  /** Baseline from the top of the page. */
  y: number;
  size: number;
  width: number;
}

const clean = (s: string) => s.replace(/[\u0000-\u001F\u007F\u00AD]/g, '').replace(/[\s\u00A0]+/g, ' ');

// TeX fonts set accents as glyphs of their own: pdf.js gives "Gr ´egory", "Franc¸ois". Spacing
// accents before a letter, and a cedilla or ogonek after one, are put back on their letter.
const BEFORE: Record<string, string> = {
  '\u00B4': '\u0301',
  '`': '\u0300',
  '\u00A8': '\u0308',
  '\u02C6': '\u0302',
  '\u02DC': '\u0303',
  '\u02C7': '\u030C',
  '\u02D8': '\u0306',
  '\u02DA': '\u030A',
  '\u02DD': '\u030B',
};
const AFTER: Record<string, string> = { '\u00B8': '\u0327', '\u02DB': '\u0328' };

/** Line text with TeX's detached accents joined to their letters. */
export function joinAccents(s: string): string {
  return s
    .replace(/\s?([\u00B4`\u00A8\u02C6\u02DC\u02C7\u02D8\u02DA\u02DD])\s?(\p{L})/gu, (_m, acc: string, l: string) =>
      `${l}${BEFORE[acc]}`.normalize('NFC'),
    )
    .replace(/(\p{L})\s?([\u00B8\u02DB])/gu, (_m, l: string, acc: string) => `${l}${AFTER[acc]}`.normalize('NFC'));
}

/** Groups text items into lines: same baseline (within half a font size), split at wide gaps (columns). */
export function itemsToLines(items: Item[]): LayoutLine[] {
  const sorted = items.filter((i) => i.str.trim() !== '' && i.size > 0).sort((a, b) => a.y - b.y || a.x - b.x);
  const rows: Item[][] = [];
  for (const it of sorted) {
    // Superscripts sit a third of a size above the baseline: join the row whose baseline is near.
    const row = rows.find((r) => {
      const main = Math.max(...r.map((x) => x.size));
      return Math.abs(r[0].y - it.y) <= Math.max(main, it.size) * 0.5;
    });
    if (row) row.push(it);
    else rows.push([it]);
  }
  attachRaised(rows);
  const lines: LayoutLine[] = [];
  for (const row of rows) {
    row.sort((a, b) => a.x - b.x);
    let seg: Item[] = [];
    const flush = () => {
      if (seg.length) lines.push(segmentLine(seg));
      seg = [];
    };
    for (const it of row) {
      const prev = seg[seg.length - 1];
      // A gap wider than a word space or two is a column gutter.
      if (prev && it.x - (prev.x + prev.width) > Math.max(prev.size, it.size) * 1.5) flush();
      seg.push(it);
    }
    flush();
  }
  return lines.sort((a, b) => a.top - b.top || a.x0 - b.x0);
}

/**
 * A superscript set high above a large line ("Platforms*" in an 18 pt title, raised by half a
 * size) is further from the baseline than half a size, so it forms a row of its own: small rows of
 * a few characters just above a larger row, over its extent, join that row.
 */
function attachRaised(rows: Item[][]): void {
  const sizeOf = (r: Item[]) => Math.max(...r.map((x) => x.size));
  for (let i = rows.length - 1; i >= 0; i--) {
    const r = rows[i];
    const size = sizeOf(r);
    const chars = r.reduce((n, x) => n + x.str.trim().length, 0);
    if (chars > 12) continue;
    const below = rows.find(
      (s) =>
        s !== r &&
        sizeOf(s) * 0.8 > size &&
        s[0].y > r[0].y &&
        s[0].y - r[0].y <= sizeOf(s) * 0.75 &&
        r.every((x) => x.x >= Math.min(...s.map((y) => y.x)) - size && x.x <= Math.max(...s.map((y) => y.x + y.width)) + size),
    );
    if (below) {
      below.push(...r);
      rows.splice(i, 1);
    }
  }
}

function segmentLine(seg: Item[]): LayoutLine {
  // The line's size is the size most of its characters have, so a few superscripts do not count.
  const bySize = new Map<number, number>();
  for (const it of seg) bySize.set(Math.round(it.size * 10) / 10, (bySize.get(Math.round(it.size * 10) / 10) ?? 0) + it.str.length);
  const size = [...bySize.entries()].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0][0];
  const main = seg.filter((it) => it.size >= size * 0.8);
  const baseline = main.reduce((s, it) => s + it.y, 0) / main.length;
  let text = '';
  let marked = '';
  const superscripts: string[] = [];
  let lastEnd: number | undefined;
  for (const it of seg) {
    const raised = it.size < size * 0.8 && it.y < baseline - size * 0.15;
    if (raised) {
      superscripts.push(clean(it.str).trim());
      // A superscript often separates two names ("Sharma¹ Lee²"): keep a space in its place.
      if (!text.endsWith(' ')) text += ' ';
      marked += ', ';
      lastEnd = it.x + it.width;
      continue;
    }
    const s = clean(it.str);
    if (lastEnd !== undefined && it.x - lastEnd > it.size * 0.08 && !text.endsWith(' ') && !s.startsWith(' ')) {
      text += ' ';
      marked += ' ';
    }
    text += s;
    marked += s;
    lastEnd = it.x + it.width;
  }
  const tidy = (t: string) =>
    joinAccents(
      t
        .replace(/\s+/g, ' ')
        .replace(/\s+([,;.])/g, '$1')
        .trim(),
    );
  return {
    text: tidy(text),
    marked: tidy(marked)
      .replace(/,(?:\s*,)+/g, ',')
      .replace(/^,\s*|,\s*$/g, ''),
    size,
    top: baseline,
    x0: seg[0].x,
    x1: lastEnd ?? seg[0].x,
    superscripts,
  };
}

/** Page 1's lines, or undefined when pdf.js cannot read it (the rest of the parse decides about the file). */
export async function readFirstPageLayout(bytes: Uint8Array, signal?: AbortSignal): Promise<PageLayout | undefined> {
  if (signal?.aborted) return undefined;
  // pdf.js detaches the buffer it is given, and refuses a Node Buffer: hand it a plain copy.
  let task: ReturnType<typeof getDocument>;
  try {
    task = getDocument({ data: new Uint8Array(bytes), isEvalSupported: false, verbosity: 0, disableFontFace: true, useSystemFonts: false });
  } catch {
    return undefined;
  }
  const onAbort = () => void task.destroy().catch(() => undefined);
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const doc = await task.promise;
    const page = await doc.getPage(1);
    const viewport = page.getViewport({ scale: 1 });
    const content = await page.getTextContent();
    const items: Item[] = [];
    for (const raw of content.items) {
      if (!('str' in raw) || !Array.isArray(raw.transform)) continue;
      const [a, b, c, d, e, f] = raw.transform as number[];
      const size = Math.hypot(c, d) || Math.hypot(a, b);
      // Rotated text (margin labels, "Downloaded from" strips) is not part of the page's lines.
      if (Math.abs(b) > 0.01 || Math.abs(c) > 0.01) continue;
      const [x, y] = viewport.convertToViewportPoint(e, f);
      items.push({ str: raw.str, x, y, size, width: raw.width });
    }
    return { width: viewport.width, height: viewport.height, lines: itemsToLines(items) };
  } catch {
    return undefined;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    await task.destroy().catch(() => undefined);
  }
}
