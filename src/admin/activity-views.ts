// Read-side views over activity and queue history for the dashboard: counts per time bucket.
// Pure functions over timestamps, so the chart is testable without Redis.

export interface Bucket {
  /** Start of the bucket, ms since the epoch. */
  start: number;
  count: number;
}

/**
 * Counts timestamps (ms) into `buckets` equal buckets of `bucketMs` ending at `now` (the last
 * bucket contains `now`). Timestamps outside the window are ignored.
 */
export function countPerBucket(timestamps: number[], now: number, buckets: number, bucketMs: number): Bucket[] {
  const end = Math.floor(now / bucketMs) * bucketMs + bucketMs;
  const start = end - buckets * bucketMs;
  const out: Bucket[] = Array.from({ length: buckets }, (_, i) => ({ start: start + i * bucketMs, count: 0 }));
  for (const t of timestamps) {
    if (!Number.isFinite(t) || t < start || t >= end) continue;
    out[Math.floor((t - start) / bucketMs)].count++;
  }
  return out;
}

/** ISO timestamps (activity records) to ms, dropping unparsable ones. */
export function isoToMs(values: string[]): number[] {
  return values.map((v) => Date.parse(v)).filter((t) => Number.isFinite(t));
}
