// `labbot ingest`: index files, folders or the configured sources in this process (no queue).
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { Option, type Command } from 'commander';
import cliProgress from 'cli-progress';
import { ConfigError, type Config } from '../config.ts';
import type { IngestSummary, ProgressEvent } from '../ingest/pipeline.ts';
import { sourceTarget } from '../ingest/sources/prepare.ts';
import { reconcileWithConfig } from '../queue/reconcile-config.ts';
import { KINDS, type IngestTarget, type Kind } from '../types.ts';
import { setup, withApp } from './context.ts';

function progressReporter(enabled: boolean): { onProgress: (e: ProgressEvent) => void; stop: () => void } {
  if (!enabled || !process.stderr.isTTY) return { onProgress: () => undefined, stop: () => undefined };
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, format: ' {phase} [{bar}] {value}/{total} {file}', hideCursor: true, clearOnComplete: false },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    onProgress(e) {
      if (e.phase === 'scan') return;
      if (!started) {
        bar.start(e.total, 0, { phase: 'files', file: '' });
        started = true;
      }
      if (e.phase === 'file') bar.update(e.done, { phase: 'files', file: e.file.slice(-40) });
      else {
        bar.setTotal(e.total);
        bar.update(e.done, { phase: 'embed', file: '' });
      }
    },
    stop: () => started && bar.stop(),
  };
}

function printSummary(s: IngestSummary): void {
  const d = s.documents;
  const c = s.chunks;
  console.log(`source ${s.source}: ${d.indexed} indexed, ${d.unchanged} unchanged, ${d.removed} removed`);
  console.log(`chunks: ${c.written} written (${c.embedded} embedded, ${c.reused} reused), ${c.deleted} deleted`);
  for (const o of s.skipped) console.log(`  skipped ${o.path}: ${o.reason}`);
  for (const o of s.failed) console.log(`  FAILED  ${o.path}: ${o.reason}`);
}

function resolveTargets(config: Config, paths: string[], opts: { source?: string; kind?: Kind }): IngestTarget[] {
  const configured = opts.source ? config.sources.find((s) => s.id === opts.source) : undefined;
  if (configured) {
    const root = configured.path;
    const inside = paths.map((p) => path.resolve(p));
    for (const p of inside) {
      const rel = path.relative(root, p);
      if (rel.startsWith('..') || path.isAbsolute(rel)) throw new ConfigError(`${p} is outside source "${configured.id}" (${root})`);
    }
    return [{ ...sourceTarget(configured, inside.length ? inside : undefined), kind: opts.kind ?? configured.kind }];
  }
  if (paths.length === 0) {
    if (opts.source) throw new ConfigError(`No source "${opts.source}" in the config file; give paths to ingest.`);
    if (config.sources.length === 0) throw new ConfigError('Nothing to ingest: give paths, or configure sources in labbot.config.json.');
    return config.sources.map((s) => ({ ...sourceTarget(s), kind: opts.kind ?? s.kind }));
  }
  return paths.map((p) => {
    const abs = path.resolve(p);
    if (!existsSync(abs)) throw new ConfigError(`No such file or folder: ${p}`);
    const isDir = statSync(abs).isDirectory();
    const root = isDir ? abs : path.dirname(abs);
    const sourceId = opts.source ?? (path.basename(root).replace(/[^A-Za-z0-9_.-]/g, '-') || 'local');
    return { sourceId, root, paths: [abs], kind: opts.kind };
  });
}

export function addIngestCommand(program: Command): void {
  program
    .command('ingest')
    .description('index files or folders (in-process, no queue needed)')
    .argument('[paths...]', 'files or folders; default: the configured sources')
    .option('--source <id>', 'source id (a configured source, or a name for these paths)')
    .addOption(new Option('--kind <kind>', 'document kind for these files').choices(KINDS))
    .option('--rebuild', 'drop the index first and re-ingest (after an embedding or chunking change)')
    .option('--json', 'print the summary as JSON')
    .action(async (paths: string[], opts: { source?: string; kind?: Kind; rebuild?: boolean; json?: boolean }) => {
      const env = setup();
      const { config } = env;
      const targets = resolveTargets(config, paths, opts);
      const summaries = await withApp(
        async (app) => {
          if (opts.rebuild) await app.reset();
          // Ingesting the configured sources: what the config no longer names leaves first.
          if (paths.length === 0 && !opts.source) await reconcileWithConfig(app);
          const out: IngestSummary[] = [];
          for (const t of targets) {
            const progress = progressReporter(!opts.json);
            try {
              // A Zotero source is read from its mirror: bring it up to date first.
              const zotero = config.sources.find((s) => s.id === t.sourceId && s.type === 'zotero');
              if (zotero) await app.indexer.prepare(zotero);
              out.push(await app.ingest(t, progress.onProgress));
            } finally {
              progress.stop();
            }
          }
          return out;
        },
        { env, loadCatalog: !opts.rebuild },
      );
      if (opts.json) console.log(JSON.stringify(summaries.length === 1 ? summaries[0] : summaries, null, 2));
      else summaries.forEach(printSummary);
      if (summaries.some((s) => s.failed.length > 0)) process.exitCode = 1;
    });
}
