// The one rule for a document's access group. Every way metadata reaches a document (front
// matter, per-file sidecars, library bibliographies, a source's own metadata such as Zotero's)
// hands its claim here as a layer; nothing else decides a group. It fails closed: a layer that
// cannot be read, a value that is not a group name, or two layers that name different groups
// keep the document out of the index, with the reason shown on the dashboard.

import { ACCESS_GROUP } from '../types.ts';
import { describeValue as describe } from './describe-value.ts';

/** The field names that carry an access group, compared case-insensitively, in every format. */
export const ACCESS_KEYS = ['access', 'access_group', 'access-group', 'accessgroup'] as const;

/** What one metadata layer says about access. */
export interface AccessClaim {
  /** Where the claim comes from, as a lab member would name it: "front matter", "paper.yaml". */
  origin: string;
  /** A valid group name. */
  access?: string;
  /** A value that was given but is not a group name (shown as written). */
  invalidAccess?: string;
  /** The layer could not be read as a whole: it may have been the one restricting the document. */
  unreadable?: string;
}

export type AccessDecision = { ok: true; group: string; origin: string } | { ok: false; reason: string };

/**
 * Reads the access field of a record of metadata fields (front matter, YAML/JSON sidecar, a
 * BibTeX or CSL entry, RIS tags mapped to names). Keys are matched without regard to case; a
 * value that is present but is not one group name is `invalidAccess`, never ignored.
 */
export function readAccessField(raw: Record<string, unknown>): Pick<AccessClaim, 'access' | 'invalidAccess'> {
  let found: { key: string; value: unknown } | undefined;
  for (const [k, v] of Object.entries(raw)) {
    if (!(ACCESS_KEYS as readonly string[]).includes(k.toLowerCase().trim())) continue;
    if (found && found.value !== v) {
      // Two spellings with different values ("access" and "Access"): which one was meant is unknown.
      if (normaliseGroup(found.value) !== normaliseGroup(v))
        return { invalidAccess: `two values (${describe(found.value)} and ${describe(v)})` };
    }
    found ??= { key: k, value: v };
  }
  if (!found) return {};
  const v = found.value;
  if (v === undefined) return {};
  const group = normaliseGroup(v);
  if (group) return { access: group };
  return { invalidAccess: describe(v) };
}

/**
 * Reads the access field of one layer written in several places: a library entry's own fields and
 * the "key: value" lines of its Extra field (Zotero exports Extra as CSL `note`, BibTeX `note`, RIS
 * `M2`; Better BibTeX turns `tex.access: x` lines into fields). Places that name different groups
 * make the value invalid: which one was meant is unknown.
 */
export function readAccessFields(records: Record<string, unknown>[]): Pick<AccessClaim, 'access' | 'invalidAccess'> {
  let found: Pick<AccessClaim, 'access' | 'invalidAccess'> = {};
  for (const r of records) {
    const claim = readAccessField(r);
    if (claim.invalidAccess !== undefined) return claim;
    if (!claim.access) continue;
    if (found.access && found.access !== claim.access) return { invalidAccess: `two values ("${found.access}" and "${claim.access}")` };
    found = claim;
  }
  return found;
}

/** A group name from a written value ("Pi-Only " -> "pi-only"), or undefined. */
function normaliseGroup(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const g = v.trim().toLowerCase();
  return ACCESS_GROUP.test(g) ? g : undefined;
}

/**
 * The group of a document from its layers' claims, most specific first (front matter, per-file
 * sidecars, library entries, the source's own metadata), then the source's configured `access`,
 * then the installation's default.
 */
export function decideAccess(claims: AccessClaim[], sourceAccess: string | undefined, defaultAccess: string): AccessDecision {
  const unreadable = claims.find((c) => c.unreadable);
  if (unreadable)
    return {
      ok: false,
      reason: `${unreadable.origin} cannot be read (${unreadable.unreadable}); not indexed, since its access group cannot be known`,
    };
  const invalid = claims.find((c) => c.invalidAccess !== undefined);
  if (invalid)
    return {
      ok: false,
      reason: `access ${invalid.invalidAccess} in ${invalid.origin} is not a valid group name; not indexed, so it cannot leak into the wrong channel`,
    };
  const named = claims.filter((c): c is AccessClaim & { access: string } => c.access !== undefined);
  const other = named.find((c) => c.access !== named[0]?.access);
  if (other) {
    return {
      ok: false,
      reason: `access disagrees: ${named[0].origin} says "${named[0].access}", ${other.origin} says "${other.access}"; not indexed until they agree`,
    };
  }
  if (named[0]) return { ok: true, group: named[0].access, origin: named[0].origin };
  if (sourceAccess !== undefined) return { ok: true, group: sourceAccess, origin: 'source config' };
  return { ok: true, group: defaultAccess, origin: 'default' };
}
