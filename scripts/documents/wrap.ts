// Word wrapping for generated PDFs (the sample lab and the test fixtures lay out text the same way).
import type { PDFFont } from 'pdf-lib';

export const SHY = '\u00AD';

/**
 * Words into lines no wider than `width`. Soft hyphens (U+00AD) mark where a long word may be
 * broken with a printed "-", the way TeX hyphenates, so a generated text can have real "meth-" /
 * "ods" line breaks for the parser to undo; text without them wraps at spaces only.
 */
export function wrapLines(text: string, font: PDFFont, size: number, width: number): string[] {
  const measure = (s: string) => font.widthOfTextAtSize(s.replaceAll(SHY, ''), size);
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const candidate = line ? `${line} ${word}` : word;
    if (measure(candidate) <= width) {
      line = candidate;
      continue;
    }
    const parts = word.split(SHY);
    let split = -1;
    for (let i = parts.length - 1; i > 0; i--) {
      const head = `${parts.slice(0, i).join('')}-`;
      if (measure(line ? `${line} ${head}` : head) <= width) {
        split = i;
        break;
      }
    }
    if (split > 0) {
      const head = `${parts.slice(0, split).join('')}-`;
      lines.push(line ? `${line} ${head}` : head);
      line = parts.slice(split).join(SHY);
    } else {
      if (line) lines.push(line);
      line = word;
    }
  }
  if (line) lines.push(line);
  return lines.map((l) => l.replaceAll(SHY, ''));
}
