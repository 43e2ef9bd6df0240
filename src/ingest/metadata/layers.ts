// A document's metadata is a stack of layers, most trusted first: front matter, per-file
// sidecars, library bibliographies, the source's own records (Zotero), the file's embedded
// metadata (PDF info, Office properties, HTML meta), then what is inferred from the text.
// Each field comes from the first layer that has it, and the document remembers which layer
// that was, so the dashboard can say where a wrong year came from. Access is not merged here:
// every layer's claim goes to the one access rule (ingest/access.ts).
import type { DocMeta } from '../../types.ts';
import type { AccessClaim } from '../access.ts';

export interface MetaLayer {
  /** Where the values come from, as a lab member would name it ("front matter", "library.bib"). */
  origin: string;
  meta: DocMeta;
  /** The layer could not be read as a whole (so it may have carried the access group). */
  unreadable?: string;
  /** Values the layer had that could not be used, for the file's warnings. */
  warnings?: string[];
  /**
   * The layer is a library's own record of the document (Zotero, a reference manager's export):
   * a bibliographic field it lacks is left empty rather than taken from an inferred layer.
   */
  complete?: boolean;
  /** The layer's values are inferred from the text or the file name, not written by anyone. */
  inferred?: boolean;
}

/** The bibliographic fields whose origin is recorded. */
export const PROVENANCE_FIELDS = [
  'title',
  'authors',
  'year',
  'journal',
  'doi',
  'url',
  'kind',
  'keywords',
  'id',
  'updated',
  'language',
] as const;
export type ProvenanceField = (typeof PROVENANCE_FIELDS)[number];
export type Provenance = Partial<Record<ProvenanceField, string>>;

export interface ResolvedMeta {
  meta: DocMeta;
  /** For each field that has a value, the origin of the layer it came from. */
  from: Provenance;
}

const NOT_MERGED = new Set<string>(['access', 'invalidAccess', 'unreadableFrontMatter']);

const hasValue = (v: unknown) =>
  v !== undefined &&
  v !== null &&
  (typeof v === 'string' ? v.trim() !== '' : Array.isArray(v) ? v.length > 0 : typeof v === 'number' ? Number.isFinite(v) : true);

/** Per field, the first layer with a non-empty value wins; `from` says which layer that was. */
export function resolveMeta(layers: MetaLayer[]): ResolvedMeta {
  const out: Record<string, unknown> = {};
  const from: Provenance = {};
  let complete = false;
  for (const layer of layers) {
    if (layer.inferred && complete) continue;
    complete ||= layer.complete === true;
    for (const [key, value] of Object.entries(layer.meta)) {
      if (NOT_MERGED.has(key) || hasValue(out[key]) || !hasValue(value)) continue;
      out[key] = Array.isArray(value) ? [...value] : value;
      if ((PROVENANCE_FIELDS as readonly string[]).includes(key)) from[key as ProvenanceField] = layer.origin;
    }
  }
  return { meta: out as DocMeta, from };
}

/** What each layer says about access, for the one access rule. */
export function accessClaims(layers: MetaLayer[]): AccessClaim[] {
  return layers.map((l) => ({
    origin: l.origin,
    access: l.meta.access,
    invalidAccess: l.meta.invalidAccess,
    unreadable: l.unreadable ?? l.meta.unreadableFrontMatter,
  }));
}
