#!/usr/bin/env node
// The import rules of src/, run by `npm test`: the layers of .dependency-cruiser.cjs (no upward
// import), and no two folders importing each other (a two-way tie means neither can be read or
// changed alone). dependency-cruiser checks the layers; it has no rule for folder pairs, so that
// one is counted here from its module graph.
import { createRequire } from 'node:module';
import { cruise } from 'dependency-cruiser';

const require = createRequire(import.meta.url);
const config = require('../.dependency-cruiser.cjs');
const { output } = await cruise(['src'], { ...config.options, validate: true, ruleSet: { forbidden: config.forbidden } });

// A folder of src/ (src/ingest/ by its parts); a file at the top of src/ or src/ingest/ is its own unit.
const unit = (file) => {
  const parts = file
    .replace(/^src\//, '')
    .replace(/\.ts$/, '')
    .split('/');
  return parts[0] === 'ingest' ? parts.slice(0, 2).join('/') : parts.length === 1 ? parts[0] : parts[0];
};
const edges = new Map();
for (const m of output.modules) {
  if (!m.source.startsWith('src/')) continue;
  for (const d of m.dependencies) {
    if (!d.resolved.startsWith('src/')) continue;
    const [a, b] = [unit(m.source), unit(d.resolved)];
    if (a === b) continue;
    const key = `${a} -> ${b}`;
    if (!edges.has(key)) edges.set(key, `${m.source} -> ${d.resolved}`);
  }
}
const problems = output.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
for (const [key, example] of edges) {
  const [a, b] = key.split(' -> ');
  const back = edges.get(`${b} -> ${a}`);
  if (back && a < b) problems.push(`two-way folders ${a} <-> ${b}: ${example}; ${back}`);
}
if (problems.length) {
  console.error(`check-layers: ${problems.length} import rule(s) broken:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`check-layers: ${output.summary.totalCruised} modules, no upward imports, no two-way folders`);
