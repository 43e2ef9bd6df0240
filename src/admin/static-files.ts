// The dashboard's script and style sheet, read once with an ETag each. This module stays directly
// in src/admin/: it finds static/ next to itself (import.meta.url), and the bundle (bin/bundle.js)
// copies static/ next to its own chunks, so a module one folder deeper would look in the wrong place.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

export interface StaticFile {
  body: Buffer;
  type: string;
  etag: string;
}

function loadStatic(name: string, type: string): StaticFile {
  const body = readFileSync(new URL(`./static/${name}`, import.meta.url));
  return { body, type, etag: `"${createHash('sha1').update(body).digest('hex').slice(0, 16)}"` };
}

/** admin.js and admin.css by file name. */
export function dashboardFiles(): Map<string, StaticFile> {
  return new Map([
    ['admin.js', loadStatic('admin.js', 'text/javascript; charset=utf-8')],
    ['admin.css', loadStatic('admin.css', 'text/css; charset=utf-8')],
  ]);
}
