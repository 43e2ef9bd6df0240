// How a metadata value that could not be used is named in a warning: short, and never the
// whole of a long or nested value.
export const describeValue = (v: unknown): string => {
  if (v instanceof Date) return 'a date';
  if (Array.isArray(v)) return 'a list';
  if (v === null) return 'null';
  if (typeof v === 'object') return 'a mapping';
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
};
