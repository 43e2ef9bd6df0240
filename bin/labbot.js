#!/usr/bin/env node
// Runs the CLI from a bundle of the TypeScript sources (bin/bundle.js), built on the first run
// after they change. Where none can be built (a read-only copy without one, say), the sources
// run through tsx, as they always can.
import { pathToFileURL } from 'node:url';
import { ensureBundle } from './bundle.js';

let entry;
try {
  entry = await ensureBundle();
} catch (err) {
  process.stderr.write(
    `labbot: running the TypeScript sources through tsx (no bundle: ${err instanceof Error ? err.message : String(err)})\n`,
  );
}
if (entry) {
  await import(pathToFileURL(entry).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli.ts');
}
