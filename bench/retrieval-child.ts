// Child process of bench.ts: a fresh labbot process (config from the environment the parent
// sets), loads the index from Chroma like `labbot serve` does, runs the queries, and reports
// latency percentiles and its own peak RSS. Separate so the bench harness's memory is not counted.
import { readFileSync } from 'node:fs';
import { openApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';

const queries = JSON.parse(readFileSync(process.argv[2], 'utf8')) as string[];
let peak = 0;
const sample = () => (peak = Math.max(peak, process.memoryUsage().rss));
const timer = setInterval(sample, 50);

const t0 = performance.now();
const app = await openApp(loadConfig(), createLogger('warn'));
const loadMs = performance.now() - t0;
const groups = [app.config.access.default];
for (const q of queries.slice(0, 30)) await app.retrieve(q, groups, 10); // warm-up (HNSW load, JIT)

const total: number[] = [];
const stages: Record<string, number[]> = { lexicalMs: [], denseMs: [], embedMs: [], fuseMs: [], rerankMs: [] };
for (const q of queries) {
  const t = performance.now();
  const r = await app.retrieve(q, groups, 10);
  total.push(performance.now() - t);
  for (const k of Object.keys(stages)) stages[k].push(r.timings[k as keyof typeof r.timings]);
  sample();
}
clearInterval(timer);
sample();
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Number((s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0).toFixed(2));
};
console.log(
  JSON.stringify({
    chunks: app.catalog.stats().chunks,
    loadMs: Math.round(loadMs),
    p50: pct(total, 0.5),
    p95: pct(total, 0.95),
    p99: pct(total, 0.99),
    stagesP50: Object.fromEntries(Object.entries(stages).map(([k, v]) => [k, pct(v, 0.5)])),
    stagesP95: Object.fromEntries(Object.entries(stages).map(([k, v]) => [k, pct(v, 0.95)])),
    rssPeakMb: Math.round(peak / 1024 / 1024),
  }),
);
await app.close();
