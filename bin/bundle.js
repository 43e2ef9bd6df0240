// labbot's CLI as one bundle of its TypeScript sources, built with esbuild into
// dist/<fingerprint>/ the first time these exact sources are run. `node bin/bundle.js` builds it
// ahead (the Docker image does); bin/labbot.js runs it.
//
// Why a bundle: through tsx, every one of ~150 source files is resolved and transformed by a
// loader thread, which was about half a second of a restart before the lexical index even started
// loading. A bundle loads as plain JavaScript. Packages stay in node_modules (not bundled), and
// dynamic imports stay lazy (split into chunks), so Bolt and the parsers still load only when used.
//
// A bundle's directory is named by a hash of what it was built from and is never changed once
// there: a running process that loads a lazy chunk later finds it intact, and processes that
// start at once may each build one; the first to rename its build into place wins.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const SOURCES = ['src'];
// Older bundles kept: a process started from one may still load its lazy chunks.
const KEEP = 5;
// A build directory this old was left by a process that died while building.
const STALE_BUILD_MS = 10 * 60_000;

function filesUnder(dir, out = []) {
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) filesUnder(p, out);
    else if (e.isFile()) out.push(p);
  }
  return out;
}

/** A hash of the sources (paths and contents), these build settings and esbuild's version. */
export function fingerprint() {
  const h = createHash('sha256');
  h.update(createRequire(import.meta.url)('esbuild/package.json').version);
  h.update(readFileSync(fileURLToPath(import.meta.url)));
  for (const dir of SOURCES) {
    for (const f of filesUnder(path.join(root, dir))) {
      h.update(`\0${path.relative(root, f)}\0`);
      h.update(readFileSync(f));
    }
  }
  return h.digest('hex').slice(0, 16);
}

/** Removes bundles beyond the newest KEEP (never `current`) and builds left by dead processes. */
function prune(current) {
  const now = Date.now();
  const entries = readdirSync(dist, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => ({ name: e.name, mtime: statSync(path.join(dist, e.name)).mtimeMs }));
  const bundles = entries.filter((e) => /^[0-9a-f]{16}$/.test(e.name) && e.name !== current).sort((a, b) => b.mtime - a.mtime);
  for (const e of bundles.slice(KEEP)) rmSync(path.join(dist, e.name), { recursive: true, force: true });
  for (const e of entries)
    if (e.name.endsWith('.tmp') && now - e.mtime > STALE_BUILD_MS) rmSync(path.join(dist, e.name), { recursive: true, force: true });
}

const MANIFEST = 'manifest.json';

/** Every file of a build and its size, written last into the build before it is renamed into place. */
function writeManifest(dir) {
  const files = Object.fromEntries(filesUnder(dir).map((f) => [path.relative(dir, f), statSync(f).size]));
  writeFileSync(path.join(dir, MANIFEST), JSON.stringify({ files }));
}

/**
 * Whether a bundle is whole: every file its manifest lists is there at its size. A bundle with a
 * chunk deleted or cut short by hand (or by a full disk) would otherwise start, and fail only when
 * that chunk is first imported: Slack's, mid-serve. Sizes, not contents: a stat per file (about 30)
 * costs well under a millisecond of every start, where hashing 2 MB would cost several.
 */
function isWhole(dir) {
  try {
    const { files } = JSON.parse(readFileSync(path.join(dir, MANIFEST), 'utf8'));
    return Object.entries(files).every(([f, size]) => statSync(path.join(dir, f), { throwIfNoEntry: false })?.size === size);
  } catch {
    return false;
  }
}

/** The bundle's entry file for the current sources, built first when there is none. */
export async function ensureBundle() {
  const fp = fingerprint();
  const dir = path.join(dist, fp);
  const entry = path.join(dir, 'cli.js');
  if (existsSync(dir)) {
    if (isWhole(dir)) return entry;
    // Moved aside, not deleted in place: a process may still be running from it. prune removes it.
    process.stderr.write(`labbot: the bundle ${path.relative(root, dir)} is damaged; building it again\n`);
    try {
      renameSync(dir, `${dir}.${process.pid}.damaged.tmp`);
    } catch {
      // Another starting process moved it first.
    }
  }
  const { build } = await import('esbuild');
  const tmp = `${dir}.${process.pid}.tmp`;
  try {
    await build({
      entryPoints: { cli: path.join(root, 'src', 'cli.ts') },
      outdir: tmp,
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      packages: 'external',
      sourcemap: 'linked',
      logLevel: 'silent',
    });
    // The dashboard reads its static files next to its own module (import.meta.url).
    cpSync(path.join(root, 'src', 'admin', 'static'), path.join(tmp, 'static'), { recursive: true });
    writeManifest(tmp);
    renameSync(tmp, dir);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    // Another process renamed the same build into place first.
    if (!isWhole(dir)) throw err;
  }
  prune(fp);
  return entry;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(path.relative(root, await ensureBundle()));
}
