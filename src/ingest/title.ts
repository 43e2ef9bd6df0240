// A document's title when its metadata has none. Lab files often carry no front matter: a text
// export of a paper or a wiki page starts with its title on a line of its own, and that line is
// a far better chunk header (and citation) than the file name.
import type { Block, FileFormat } from '../types.ts';

const MAX_TITLE_CHARS = 250;
const MAX_TITLE_WORDS = 35;

/** Whether a paragraph reads as a title line rather than prose or a stray label. */
export function looksLikeTitle(text: string): boolean {
  const t = text.trim();
  if (t.length < 8 || t.length > MAX_TITLE_CHARS) return false;
  const words = t.split(/\s+/);
  if (words.length < 2 || words.length > MAX_TITLE_WORDS) return false;
  // Sentences and lead-ins end in punctuation; titles do not (a question mark is allowed).
  if (/[.,;:]$/.test(t)) return false;
  if (/^(https?:\/\/|www\.|doi:)/i.test(t)) return false;
  // A title starts with a capital, a digit or a symbol-led name (e.g. "p53", "β-catenin" also pass).
  if (/^[a-z]/.test(t) && !/^[a-z]+[A-Z0-9]/.test(words[0])) return false;
  return /\p{L}{3,}/u.test(t);
}

/**
 * Title from the blocks: the first block when it is a heading or a title-like line followed by
 * more text; otherwise the first heading anywhere; otherwise undefined (the caller falls back to
 * the file name). A PDF's first line is often a running header or journal line, and its parser
 * already guesses titles from layout, so for PDFs only headings count.
 */
export function titleFromBlocks(blocks: readonly Block[], format?: FileFormat): string | undefined {
  const content = blocks.filter((b) => b.type !== 'page');
  const first = content[0];
  if (first?.type === 'heading') return first.text;
  if (format !== 'pdf' && first?.type === 'paragraph' && content.length > 1 && looksLikeTitle(first.text)) return first.text.trim();
  const heading = content.find((b) => b.type === 'heading');
  return heading?.type === 'heading' ? heading.text : undefined;
}
