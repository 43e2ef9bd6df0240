// Chunk texts as one block of UTF-8 bytes, decoded one text at a time when asked for.
//
// Why not an array of strings: the catalog holds every chunk's text, and most of it is only read
// for the few passages a question retrieves. Lab text is rarely pure Latin-1 (µ, °, en dashes,
// Greek letters), so V8 stores it two bytes a character; UTF-8 is about half that. A snapshot
// also reads this block straight from disk into its final buffer, with no per-string parsing,
// which is most of what a restart used to spend on texts. No library does this small job.

/** Text i is bytes[ends[i - 1] .. ends[i]) (the first starts at 0). */
export interface TextTable {
  bytes: Buffer;
  ends: Uint32Array;
}

/** A text held in a table, copied as bytes when packed again. */
export interface TextRef {
  table: TextTable;
  index: number;
}

const startOf = (t: TextTable, i: number): number => (i === 0 ? 0 : t.ends[i - 1]);

export const tableSize = (t: TextTable): number => t.ends.length;

export function textAt(t: TextTable, i: number): string {
  if (!(i >= 0 && i < t.ends.length)) throw new RangeError(`text ${i} is outside a table of ${t.ends.length}`);
  return t.bytes.toString('utf8', startOf(t, i), t.ends[i]);
}

/** Checks a table read from outside (a snapshot file): ends ascending and within the bytes. */
export function isValidTable(t: TextTable): boolean {
  let prev = 0;
  for (let i = 0; i < t.ends.length; i++) {
    if (t.ends[i] < prev) return false;
    prev = t.ends[i];
  }
  return prev === t.bytes.length;
}

/** Packs texts (strings, or texts of other tables copied byte for byte) into one table. */
export function packTexts(parts: readonly (string | TextRef)[]): TextTable {
  const ends = new Uint32Array(parts.length);
  let total = 0;
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    total += typeof p === 'string' ? Buffer.byteLength(p, 'utf8') : p.table.ends[p.index] - startOf(p.table, p.index);
    if (total > 0xffffffff) throw new RangeError('texts exceed 4 GB: too large for one table');
    ends[i] = total;
  }
  const bytes = Buffer.allocUnsafeSlow(total);
  let at = 0;
  for (const p of parts) {
    if (typeof p === 'string') at += bytes.write(p, at, 'utf8');
    else at += p.table.bytes.copy(bytes, at, startOf(p.table, p.index), p.table.ends[p.index]);
  }
  return { bytes, ends };
}
