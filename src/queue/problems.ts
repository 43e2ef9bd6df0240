// Files that could not be indexed, kept with their reasons (dashboard, `/labbot status`) until
// they index cleanly.
import path from 'node:path';
import type { IngestSummary } from '../ingest/pipeline.ts';
import type { SourceConfig } from '../config.ts';
import type { RecordStore } from '../store/records.ts';

/** Records the skipped and failed files of an in-process ingest of a whole source. */
export async function recordProblems(records: RecordStore | undefined, source: SourceConfig, summary: IngestSummary): Promise<void> {
  if (!records) return;
  for (const o of [...summary.failed, ...summary.skipped]) {
    const rel = path.relative(source.path, o.path).split(path.sep).join('/');
    await records.setProblem(source.id, rel.startsWith('..') ? o.path : rel, {
      status: o.status === 'failed' ? 'failed' : 'skipped',
      reason: o.reason ?? '',
    });
  }
}
