// Finding, creating and caching one base name's collections (`<base>--<group>`), with the index
// version check every read and write goes through.
import type { ChromaClient, Collection } from 'chromadb';

export class IndexVersionError extends Error {}

/** Collection metadata keys (scalars only: Chroma metadata cannot hold objects). */
export const META = {
  version: 'labbot_index_version',
  group: 'labbot_group',
  indexId: 'labbot_index_id',
} as const;

export const GROUP_SEP = '--';

export interface CollectionSettings {
  base: string;
  /** The version writes must match (the configured settings). */
  version: string;
  /** The version queries must match: the index's own, when it was built with other settings. */
  queryVersion?: string;
  /** Physical index id stored with every collection (see physical-index.ts). */
  indexId?: string;
  /** More scalar metadata stored with new collections (the settings the index is built with). */
  stamp?: Record<string, string | number>;
  efSearch: number;
  m?: number;
  efConstruction?: number;
}

/**
 * How strictly a use needs the collection's vectors to match our settings: writes, vector reads
 * (`true`) and queries (`'query'`) do; scanning texts, counting and deleting (`false`) do not, so a
 * process with new settings can still load the lexical index and serve while a blue/green
 * rebuild runs.
 */
export type Strictness = boolean | 'query';

export interface Collections {
  groupOf(c: Collection): string;
  listOwn(): Promise<Collection[]>;
  get(group: string, create: boolean, strict?: Strictness): Promise<Collection | undefined>;
  forget(group?: string): void;
  versionError(stored: string): IndexVersionError;
  setIndexId(id: string): void;
}

const isNotFound = (err: unknown) =>
  (err as Error).name === 'ChromaNotFoundError' || /not found|does not exist/i.test((err as Error).message);

export function openCollections(client: ChromaClient, s: CollectionSettings): Collections {
  let indexId = s.indexId;
  const cache = new Map<string, Collection>();
  const prefix = `${s.base}${GROUP_SEP}`;

  function versionError(stored: string): IndexVersionError {
    return new IndexVersionError(
      `The index "${s.base}" was built with index version ${stored}, but the current settings give ${s.version} ` +
        `(embedding model or chunking changed). Rebuild it with \`labbot ingest --rebuild\`, or set LABBOT_COLLECTION to a new name.`,
    );
  }

  function check(col: Collection, strict: Strictness): void {
    const expected = strict === 'query' ? (s.queryVersion ?? s.version) : s.version;
    const stored = col.metadata?.[META.version];
    if (strict && stored !== undefined && stored !== expected) throw versionError(String(stored));
  }

  async function open(group: string, create: boolean): Promise<Collection | undefined> {
    const name = prefix + group;
    if (create) {
      return client.getOrCreateCollection({
        name,
        embeddingFunction: null,
        metadata: { ...s.stamp, [META.version]: s.version, [META.group]: group, ...(indexId ? { [META.indexId]: indexId } : {}) },
        configuration: {
          hnsw: { space: 'cosine', ef_construction: s.efConstruction ?? 200, ef_search: s.efSearch, max_neighbors: s.m ?? 16 },
        },
      });
    }
    try {
      return await client.getCollection({ name });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  return {
    groupOf: (c) => c.name.slice(prefix.length),
    async listOwn() {
      const out: Collection[] = [];
      for (let offset = 0; ; offset += 100) {
        const page = await client.listCollections({ limit: 100, offset });
        out.push(...page.filter((c) => c.name.startsWith(prefix)));
        if (page.length < 100) return out;
      }
    },
    async get(group, create, strict = true) {
      const col = cache.get(group) ?? (await open(group, create));
      if (!col) return undefined;
      cache.set(group, col);
      check(col, strict);
      return col;
    },
    forget: (group) => (group === undefined ? cache.clear() : void cache.delete(group)),
    versionError,
    setIndexId: (id) => {
      indexId = id;
    },
  };
}
