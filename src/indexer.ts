// The one writer of the index. Every way a document gets in or out (serve's first ingest, the
// queue worker's index-doc and delete-doc jobs, a blue/green rebuild, `labbot ingest`, a re-sync in
// this process) goes through an Indexer: it prepares the source (git pull, Zotero mirror), runs the
// pipeline against the index it is given (the live one by default), and records what could not be
// indexed, and why, in one place. Index events and records are written by the pipeline's hooks
// here; the lexical catalog only in a process that answers questions (a worker holds none).
import path from 'node:path';
import type { Logger } from 'pino';
import type { Embeddings } from '@langchain/core/embeddings';
import type { SourceConfig } from './config.ts';
import type { IndexEvents } from './index/events.ts';
import type { PhysicalIndex } from './index/physical-index.ts';
import {
  catalogLookup,
  ingest,
  removeIndexed,
  type IngestDeps,
  type IngestSettings,
  type IngestSummary,
  type ProgressEvent,
} from './ingest/pipeline.ts';
import type { DoiEnricher } from './ingest/metadata/enrich.ts';
import { checkPath } from './ingest/sources/folder.ts';
import { prepareSource, sourceTarget, type PreparedSource } from './ingest/sources/prepare.ts';
import type { RecordStore } from './store/records.ts';
import type { EmbeddingCache, IndexedDoc, IndexLookup, IngestTarget } from './types.ts';

type ProblemRecord = Parameters<RecordStore['setProblem']>[2] & {};
type SourceStateUpdate = Parameters<RecordStore['setSourceState']>[1];

export interface WriteOptions {
  /** The index written (a rebuild's new one); the live one by default. */
  into?: PhysicalIndex;
  onProgress?: (e: ProgressEvent) => void;
}

/** What happened to one file of a source (the queue's per-document jobs). */
export interface FileResult {
  source: string;
  path: string;
  outcome: 'indexed' | 'unchanged' | 'removed' | 'absent' | 'skipped' | 'failed';
  chunks?: number;
  embedded?: number;
  reason?: string;
}

export interface Indexer {
  readonly settings: IngestSettings;
  /** Brings a source's files up to date (git, Zotero) and records what could not be mirrored. */
  prepare(source: SourceConfig, into?: PhysicalIndex): Promise<PreparedSource>;
  /** Indexes a target (a folder, some files) and records its skipped and failed files. */
  ingest(target: IngestTarget, opts?: WriteOptions): Promise<IngestSummary>;
  /** A whole configured source: prepared, indexed, its problems and sync state recorded. */
  ingestSource(source: SourceConfig, opts?: WriteOptions): Promise<IngestSummary>;
  /** Reconciles one file of a source with the index, as the file is now (indexed, or removed when gone). */
  indexFile(source: SourceConfig, rel: string, opts?: { hash?: string; onProgress?: (e: ProgressEvent) => void }): Promise<FileResult>;
  remove(doc: IndexedDoc, into?: PhysicalIndex): Promise<void>;
  /** Records why a file is not indexed (undefined: it is no longer a problem); a sync's planner finds some before any job. */
  setProblem(source: string, rel: string, problem: ProblemRecord | undefined, into?: PhysicalIndex): Promise<void>;
  /** Records a source's sync state (the commit or library version its documents reflect, the last error). */
  setSourceState(source: string, state: SourceStateUpdate, into?: PhysicalIndex): Promise<void>;
  /** What an index holds, by path, id and source: its records, or its catalog without Redis. */
  lookup(into?: PhysicalIndex): IndexLookup;
}

export interface IndexerDeps {
  settings: IngestSettings;
  live(): PhysicalIndex;
  /** This process answers questions from the live index: its catalog is kept current as it is written. */
  answering: boolean;
  embeddings: Embeddings;
  cache: EmbeddingCache | undefined;
  enrich: DoiEnricher | undefined;
  events: IndexEvents | undefined;
  log: Logger;
  /** The live catalog changed (a snapshot is due). */
  onLiveChanged(): void;
}

/** A path as the records keep it: relative to the source root, `/`-separated. */
const relative = (root: string, p: string) => {
  const rel = path.relative(root, p).split(path.sep).join('/');
  return rel.startsWith('..') ? p : rel;
};

export function createIndexer(deps: IndexerDeps): Indexer {
  const { settings, log } = deps;
  const target = (into?: PhysicalIndex) => into ?? deps.live();

  function depsFor(h: PhysicalIndex, onProgress?: (e: ProgressEvent) => void): IngestDeps {
    const records = h.recordsForRun();
    const tracked = () => deps.answering && h === deps.live();
    // The lexical catalog is a subscriber of index events: a process that answers nothing (a
    // worker) holds none, and what it writes reaches the serving processes as events. Here, the
    // process's own events are delivered to its catalog directly (events.ts never echoes them
    // back). Without records the catalog is also the only lookup, so it is kept then too.
    const catalog = deps.answering || !records ? h.catalog : undefined;
    return {
      store: h.store,
      embeddings: deps.embeddings,
      log,
      onProgress,
      cache: deps.cache,
      enrich: deps.enrich,
      lookup: records ?? catalogLookup(h.catalog),
      onPut: async (doc, chunks) => {
        catalog?.putDocument(doc, chunks);
        if (tracked()) deps.onLiveChanged();
        await h.records?.put(doc, chunks);
        await deps.events?.publish({ type: 'put', base: h.base, docId: doc.id, access: doc.access, chunks: chunks.length });
      },
      onRemove: async (doc) => {
        catalog?.removeDocument(doc.id);
        if (tracked()) deps.onLiveChanged();
        await h.records?.remove(doc);
        await deps.events?.publish({ type: 'remove', base: h.base, docId: doc.id });
      },
    };
  }

  async function recordProblems(h: PhysicalIndex, t: IngestTarget, summary: IngestSummary): Promise<void> {
    if (!h.records) return;
    for (const o of [...summary.failed, ...summary.skipped])
      await h.records.setProblem(t.sourceId, relative(t.root, o.path), {
        status: o.status === 'failed' ? 'failed' : 'skipped',
        reason: o.reason ?? '',
      });
    // A file that indexes cleanly now is no longer a problem.
    const listed = new Set((await h.records.problems(t.sourceId)).map((p) => p.path));
    for (const o of summary.outcomes) {
      const rel = relative(t.root, o.path);
      if ((o.status === 'indexed' || o.status === 'unchanged') && listed.has(rel)) await h.records.setProblem(t.sourceId, rel, undefined);
    }
  }

  const indexer: Indexer = {
    settings,
    async prepare(source, into) {
      const prepared = await prepareSource(source, { maxFileBytes: settings.maxFileBytes });
      const records = target(into).records;
      for (const p of prepared.problems) await records?.setProblem(source.id, p.path, { status: 'failed', reason: p.reason });
      return prepared;
    },
    async ingest(t, opts = {}) {
      const h = target(opts.into);
      const summary = await ingest(t, settings, depsFor(h, opts.onProgress));
      await recordProblems(h, t, summary);
      return summary;
    },
    async ingestSource(source, opts = {}) {
      const { commit } = await indexer.prepare(source, opts.into);
      const summary = await indexer.ingest(sourceTarget(source), opts);
      await target(opts.into).records?.setSourceState(source.id, { lastSyncAt: new Date().toISOString(), commit, lastError: '' });
      return summary;
    },
    async indexFile(source, rel, opts = {}) {
      const h = deps.live();
      const records = h.records;
      const abs = path.join(source.path, rel);
      // The file as it is now decides: a delete collapsed into a waiting index job (same document)
      // still deletes, and vice versa. A path that is now a link (or reached through one) counts
      // as gone: it is never followed.
      const check = await checkPath(source.path, abs);
      if (!check.ok || check.type !== 'file') {
        const rec = await indexer.lookup().atPath(source.id, rel);
        const refused = !check.ok && !check.absent ? check.reason : undefined;
        await records?.setProblem(source.id, rel, refused ? { status: 'skipped', reason: refused } : undefined);
        if (!rec) return { source: source.id, path: rel, outcome: 'absent' };
        await indexer.remove(rec);
        return { source: source.id, path: rel, outcome: 'removed', chunks: rec.chunkIds.length };
      }
      const summary = await ingest(sourceTarget(source, [abs]), settings, depsFor(h, opts.onProgress));
      const bad = summary.failed[0] ?? summary.skipped.find((o) => o.path === abs);
      if (bad) {
        const status = bad.status === 'failed' ? 'failed' : 'skipped';
        await records?.setProblem(source.id, rel, { status, reason: bad.reason ?? 'unknown', hash: opts.hash });
        return { source: source.id, path: rel, outcome: status, reason: bad.reason };
      }
      await records?.setProblem(source.id, rel, undefined);
      const o = summary.outcomes.find((x) => x.path === abs);
      return {
        source: source.id,
        path: rel,
        outcome: o?.status === 'unchanged' ? 'unchanged' : 'indexed',
        chunks: o?.chunks,
        embedded: summary.chunks.embedded,
      };
    },
    remove: (doc, into) => removeIndexed(doc, depsFor(target(into))),
    setProblem: async (source, rel, problem, into) => {
      await target(into).records?.setProblem(source, rel, problem);
    },
    setSourceState: async (source, state, into) => {
      await target(into).records?.setSourceState(source, state);
    },
    lookup: (into) => depsFor(target(into)).lookup,
  };
  return indexer;
}
