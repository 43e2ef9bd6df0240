// One real Chroma server for the whole test run, started the way labbot starts its own.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startChromaServer } from '../../src/store/chroma-server.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    chromaUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-test-chroma-'));
  const server = await startChromaServer(dir);
  project.provide('chromaUrl', server.url);
  return async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
