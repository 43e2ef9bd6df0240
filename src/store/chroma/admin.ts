// Administration of one base name's collections as a whole: their version, settings and identity.
import type { ChromaClient, Collection } from 'chromadb';
import { META, type Collections } from './collections.ts';

export interface CollectionInfo {
  group: string;
  metadata: Record<string, unknown>;
  efSearch: number | undefined;
  m: number | undefined;
  efConstruction: number | undefined;
}

type Hnsw = { ef_search?: number; max_neighbors?: number; ef_construction?: number } | null;
const hnswOf = (c: Collection) => (c.configuration as { hnsw?: Hnsw } | undefined)?.hnsw ?? undefined;

export async function storedVersion(cols: Collections): Promise<string | undefined> {
  const v = (await cols.listOwn())[0]?.metadata?.[META.version];
  return v === undefined ? undefined : String(v);
}

export async function assertVersion(cols: Collections, version: string): Promise<void> {
  for (const c of await cols.listOwn()) {
    const v = c.metadata?.[META.version];
    if (v !== undefined && v !== version) throw cols.versionError(String(v));
  }
}

export async function describeCollections(cols: Collections): Promise<CollectionInfo[]> {
  return (await cols.listOwn()).map((c) => {
    const hnsw = hnswOf(c);
    return {
      group: cols.groupOf(c),
      metadata: { ...(c.metadata ?? {}) },
      efSearch: hnsw?.ef_search,
      m: hnsw?.max_neighbors,
      efConstruction: hnsw?.ef_construction,
    };
  });
}

export async function dropAll(client: ChromaClient, cols: Collections): Promise<void> {
  for (const c of await cols.listOwn()) await client.deleteCollection({ name: c.name });
  cols.forget();
}

export async function setIndexId(cols: Collections, id: string): Promise<void> {
  cols.setIndexId(id);
  for (const c of await cols.listOwn()) {
    if (c.metadata?.[META.indexId] === id) continue;
    // Chroma replaces metadata on modify: write it back whole.
    await c.modify({ metadata: { ...(c.metadata ?? {}), [META.indexId]: id } });
  }
  cols.forget();
}

export async function applySearchSetting(
  cols: Collections,
  efSearch: number,
): Promise<{ group: string; from: number | undefined; to: number }[]> {
  const changed: { group: string; from: number | undefined; to: number }[] = [];
  for (const c of await cols.listOwn()) {
    const from = hnswOf(c)?.ef_search;
    if (from === efSearch) continue;
    await c.modify({ configuration: { hnsw: { ef_search: efSearch } } });
    changed.push({ group: cols.groupOf(c), from, to: efSearch });
  }
  if (changed.length) cols.forget();
  return changed;
}
