// Small order statistics shared by evaluation and benchmarks, so every figure is computed one way.

/** Nearest-rank percentile (p in 0..1) of the values; 0 for none. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  const rank = Math.ceil(p * s.length);
  return s[Math.min(s.length - 1, Math.max(0, rank - 1))];
}

/** The median (mean of the two middle values for an even count); 0 for none. */
export function median(values: number[]): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Median with the smallest and largest value: how a figure over repeated runs is reported. */
export function spread(values: number[]): { median: number; min: number; max: number; runs: number } {
  return {
    median: median(values),
    min: values.length ? Math.min(...values) : 0,
    max: values.length ? Math.max(...values) : 0,
    runs: values.length,
  };
}
