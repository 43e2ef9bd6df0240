// `labbot status`: what the index holds and what it was built with.
import type { Command } from 'commander';
import type { Labbot } from '../app.ts';
import { withApp } from './context.ts';

async function collectStatus(app: Labbot) {
  return {
    chroma_url: app.chromaUrl,
    collection: app.config.collection,
    index_version: app.version,
    index_settings: app.versionDescription,
    stored_version: (await app.store.storedVersion()) ?? null,
    embeddings: `${app.config.embeddings.provider}:${app.config.embeddings.model}`,
    llm: app.config.llm.provider === 'none' ? 'none (extractive answers)' : app.config.llm.model,
    translation: app.translation,
    ...app.catalog.stats(),
  };
}

function printStatus(status: Awaited<ReturnType<typeof collectStatus>>): void {
  console.log(`Chroma ${status.chroma_url}, collection ${status.collection}`);
  console.log(`index version ${status.index_version} (${status.index_settings})`);
  if (status.stored_version && status.stored_version !== status.index_version) {
    console.log(`  stored index was built with ${status.stored_version}: run \`labbot ingest --rebuild\``);
  }
  console.log(`embeddings ${status.embeddings}; answers ${status.llm}`);
  const t = status.translation;
  console.log(`translation ${t.provider}${t.available ? '' : ' (unavailable)'}: ${t.detail}`);
  console.log(`${status.documents} documents, ${status.chunks} chunks`);
  for (const [src, s] of Object.entries(status.bySource)) {
    const kinds = Object.entries(s.byKind).map(([k, v]) => `${k} ${v?.documents}/${v?.chunks}`);
    console.log(`  ${src}: ${s.documents} documents, ${s.chunks} chunks (${kinds.join(', ')})`);
  }
}

export function addStatusCommand(program: Command): void {
  program
    .command('status')
    .description('documents and chunks per source and kind, index version, providers')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const status = await withApp(collectStatus);
      if (opts.json) console.log(JSON.stringify(status, null, 2));
      else printStatus(status);
    });
}
