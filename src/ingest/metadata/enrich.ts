// DOI enrichment during ingest: the document's DOI (from any layer) is looked up through an
// adapter (src/enrich/crossref-enricher.ts in the app; none when enrichment is off) and Crossref's
// record joins the layers where it belongs. A lookup that fails leaves the document as it is,
// marked pending so that a later sync tries again; it never fails the document.
import type { Block } from '../../types.ts';
import { normalizeDoi } from './coerce.ts';
import { crossrefLayer, titleMatchesText, withCrossrefLayer, type CrossrefRecord } from './crossref.ts';
import { resolveMeta, type MetaLayer } from './layers.ts';

export type DoiLookup = { status: 'found'; record: CrossrefRecord } | { status: 'not-found' } | { status: 'unavailable'; reason: string };

/** A bibliographic service that knows DOIs (Crossref), as the pipeline sees it. */
export interface DoiEnricher {
  /** Part of every content hash while enrichment is on, so turning it on or off re-indexes. */
  tag: string;
  /** False while the service is known to be unreachable: a pending document is then not re-read. */
  available(): Promise<boolean>;
  lookup(doi: string): Promise<DoiLookup>;
}

export interface Enrichment {
  layers: MetaLayer[];
  /** The service could not be asked: the document is indexed as it is and tried again later. */
  pending: boolean;
  /** The DOI was read from the file and Crossref says it names another work: not the document's. */
  foreignDoi: boolean;
  warnings: string[];
}

/** The text of a document's first blocks (its first page, near enough), to recognise its title in. */
function openingText(blocks: Block[], max = 6000): string {
  let out = '';
  for (const b of blocks) {
    if (out.length >= max) break;
    if (b.type === 'heading' || b.type === 'paragraph' || b.type === 'code') out += `${b.text}\n`;
    else if (b.type === 'list') out += `${b.items.join('\n')}\n`;
    else if (b.type === 'slide') out += `${b.title}\n${b.body}\n`;
  }
  return out;
}

export async function enrichFromDoi(
  layers: MetaLayer[],
  blocks: Block[],
  enricher: DoiEnricher,
  isFilesOwn: (l: MetaLayer) => boolean,
): Promise<Enrichment> {
  const none = { layers, pending: false, foreignDoi: false, warnings: [] };
  const { meta, from } = resolveMeta(layers);
  const doi = meta.doi && normalizeDoi(meta.doi);
  if (!doi) return none;
  // An adapter that throws (a bug, a store gone) costs the document its enrichment, never its indexing.
  const found = await enricher
    .lookup(doi)
    .catch((err: Error): DoiLookup => ({ status: 'unavailable', reason: `lookup failed (${err.message})` }));
  if (found.status === 'unavailable')
    return { ...none, pending: true, warnings: [`Crossref: ${found.reason}; indexed without it, tried again at the next sync`] };
  if (found.status === 'not-found') return none;
  const source = layers.find((l) => l.origin === from.doi);
  // A DOI the lab wrote down is the document's; one read from the file is checked against it.
  const fromFile = !source || source.inferred === true || isFilesOwn(source);
  const text = `${meta.title ?? ''}\n${openingText(blocks)}`;
  if (fromFile && found.record.title && !titleMatchesText(found.record.title, text)) {
    return {
      ...none,
      foreignDoi: true,
      warnings: [`the DOI ${doi} in the file is Crossref's record of another work ("${found.record.title.slice(0, 120)}"); not used`],
    };
  }
  return { ...none, layers: withCrossrefLayer(layers, crossrefLayer(found.record), isFilesOwn) };
}
