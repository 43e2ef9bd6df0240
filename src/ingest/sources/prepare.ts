// What a source needs before its files can be read: a git clone moved to the branch head, or a
// Zotero library's mirror brought up to date. Every whole-source ingest (serve's first start, the
// CLI, a blue/green rebuild) goes through here, so none reads a stale clone or mirror.
import type { SourceConfig } from '../../config.ts';
import type { IngestTarget } from '../../types.ts';
import { updateClone } from './git.ts';
import { syncZoteroSource, type ZoteroSyncOptions } from './zotero/index.ts';

export interface PreparedSource {
  /** The git commit, or the Zotero library version, the files now reflect. */
  commit?: string;
  /** Items of a Zotero library that could not be mirrored, with the path they would have. */
  problems: { path: string; reason: string }[];
}

export async function prepareSource(source: SourceConfig, opts: ZoteroSyncOptions): Promise<PreparedSource> {
  if (source.type === 'git') return { commit: await updateClone(source), problems: [] };
  if (source.type === 'zotero') {
    const r = await syncZoteroSource(source, opts);
    return { commit: r.version, problems: r.problems };
  }
  return { problems: [] };
}

/** The ingest target of a configured source. */
export function sourceTarget(source: SourceConfig, paths?: string[]): IngestTarget {
  return {
    sourceId: source.id,
    root: source.path,
    paths,
    kind: source.kind,
    access: source.access,
    library: source.type === 'zotero' ? 'Zotero' : undefined,
  };
}
