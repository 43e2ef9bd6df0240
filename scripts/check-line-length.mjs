#!/usr/bin/env node
// The line-length rule of the code, run by `npm run lint` after Biome. Biome formats at lineWidth
// 140 but cannot break a string literal, a template literal or a comment, so a line can still run
// past the screen; this fails on any tracked source line longer than MAX and names where it is.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const MAX = 160;
const FOLDERS = ['src', 'test', 'bench', 'scripts', 'bin'];
const SOURCE = /\.(ts|mjs|cjs|js)$/;
// Generated data, rewritten whole by its script (scripts/confusables-table.ts from Unicode's
// confusables.txt): nobody edits it by hand, and its rows are as long as the data makes them.
const GENERATED = [/^src\/(.*\/)?confusables-table\.ts$/];

const files = execFileSync('git', ['ls-files', '-z', '--', ...FOLDERS], { encoding: 'utf8' })
  .split('\0')
  .filter((file) => SOURCE.test(file) && !GENERATED.some((re) => re.test(file)));

const long = [];
for (const file of files) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    // Tracked but deleted in the work tree: nothing on disk to check.
    if (err.code === 'ENOENT') continue;
    throw err;
  }
  text.split(/\r?\n/).forEach((line, i) => {
    // Characters, not UTF-16 units: an emoji or a Greek letter on a line counts once.
    const length = line.length > MAX ? [...line].length : line.length;
    if (length > MAX) long.push(`${file}:${i + 1}:${length}`);
  });
}

if (long.length > 0) {
  console.error(`${long.length} line(s) longer than ${MAX} characters:`);
  for (const where of long) console.error(`  ${where}`);
  process.exit(1);
}
