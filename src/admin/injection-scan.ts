// Which indexed documents hold sentences addressed to an assistant (answer/injection.ts), for the
// dashboard. Finding them means reading every chunk text: O(corpus), and done in one go it held
// the event loop for 5 s on the first view after a 30 MB document (/healthz and Slack acks
// waited). So the check reads chunks in slices of a few milliseconds and yields to the event loop
// between slices, and its results are kept per document content hash: a view after the first
// reads only documents that are new or changed. A view waits for the check (the loop serves other
// requests meanwhile) up to a limit, then says how many documents are still being checked.
//
// Slices on the loop rather than a worker thread: the texts live in this process's catalog, and
// a worker would need each one copied to it (itself O(document) on the loop).
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Logger } from 'pino';
import { findInjectedInstructions } from '../answer/injection.ts';
import type { Catalog, DocRecord } from '../search/catalog.ts';

export interface InjectionHit {
  docId: string;
  source: string;
  path: string;
  title: string;
  access: string;
  lines: string[];
}

export interface InjectionScan {
  found: InjectionHit[];
  /** Documents not checked yet (in their current version). */
  pending: number;
}

export interface InjectionScanner {
  /** Checks the catalog's new and changed documents, waiting at most `waitMs`, and lists what is known. */
  scan(catalog: Catalog, waitMs: number): Promise<InjectionScan>;
}

export interface InjectionScannerOptions {
  log?: Logger;
  /** Longest stretch the check holds the event loop (one chunk is always read). */
  sliceMs?: number;
  /** Sentences kept per document. */
  maxLines?: number;
}

export function createInjectionScanner(opts: InjectionScannerOptions = {}): InjectionScanner {
  const sliceMs = opts.sliceMs ?? 8;
  const maxLines = opts.maxLines ?? 3;
  const checked = new Map<string, { hash: string; lines: string[] }>();
  // Documents to check, by id; a newer version replaces the one waiting.
  const queue = new Map<string, { doc: DocRecord; catalog: Catalog }>();
  let running: Promise<void> | undefined;
  let current: { id: string; hash: string } | undefined;

  async function check(doc: DocRecord, catalog: Catalog, slice: { start: number }): Promise<string[]> {
    const lines: string[] = [];
    for (const chunkId of doc.chunkIds) {
      if (performance.now() - slice.start >= sliceMs) {
        await nextTurn();
        slice.start = performance.now();
      }
      const text = catalog.chunk(chunkId)?.text;
      if (text === undefined) continue;
      for (const line of findInjectedInstructions(text, maxLines)) {
        // Overlapping chunks repeat a sentence: list it once.
        if (lines.length < maxLines && !lines.includes(line)) lines.push(line);
      }
      if (lines.length >= maxLines) break;
    }
    return lines;
  }

  async function run(): Promise<void> {
    const slice = { start: performance.now() };
    // A Map iterates entries added while it runs, so documents queued meanwhile are checked too.
    for (const [id, { doc, catalog }] of queue) {
      queue.delete(id);
      current = { id, hash: doc.contentHash };
      checked.set(id, { hash: doc.contentHash, lines: await check(doc, catalog, slice) });
      current = undefined;
    }
  }

  function ensureRunning(): Promise<void> {
    running ??= run()
      .catch((err: Error) => opts.log?.warn({ err: err.message }, 'admin: the check for planted instructions stopped'))
      .finally(() => {
        running = undefined;
        current = undefined;
      });
    return running;
  }

  return {
    async scan(catalog, waitMs) {
      const seen = new Set<string>();
      for (const d of catalog.docs()) {
        seen.add(d.id);
        const known = checked.get(d.id)?.hash === d.contentHash || queue.get(d.id)?.doc.contentHash === d.contentHash;
        if (!known && !(current?.id === d.id && current.hash === d.contentHash)) queue.set(d.id, { doc: d, catalog });
      }
      for (const id of checked.keys()) if (!seen.has(id)) checked.delete(id);
      if (queue.size) ensureRunning();
      // Also when nothing new was queued: a check already running may be reading one of these.
      if (running && waitMs > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([running, new Promise<void>((r) => (timer = setTimeout(r, waitMs)))]);
        clearTimeout(timer);
      }
      const found: InjectionHit[] = [];
      let pending = 0;
      for (const d of catalog.docs()) {
        const c = checked.get(d.id);
        if (c?.hash !== d.contentHash) pending += 1;
        else if (c.lines.length)
          found.push({ docId: d.id, source: d.source, path: d.path, title: d.title, access: d.access, lines: c.lines });
      }
      found.sort((a, b) => a.source.localeCompare(b.source) || a.path.localeCompare(b.path));
      return { found, pending };
    },
  };
}
