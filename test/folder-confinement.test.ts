// Reading inside a source root: links are refused wherever they sit, even links that point back
// inside the root, and special files never block the reader.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkPath, listFolder, readInside } from '../src/ingest/sources/folder.ts';

describe('reading inside a source root', () => {
  let root: string;
  let outside: string;
  let linkedRoot: string;

  beforeAll(() => {
    const base = mkdtempSync(path.join(os.tmpdir(), 'labbot-confine-'));
    root = path.join(base, 'root');
    outside = path.join(base, 'outside');
    mkdirSync(path.join(root, 'dir'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(path.join(root, 'dir', 'page.md'), 'inside');
    writeFileSync(path.join(outside, 'secret.md'), 'outside');
    symlinkSync(path.join(root, 'dir'), path.join(root, 'alias'));
    symlinkSync(path.join(root, 'dir', 'page.md'), path.join(root, 'same.md'));
    symlinkSync(outside, path.join(root, 'out'));
    execFileSync('mkfifo', [path.join(root, 'pipe.md')]);
    linkedRoot = path.join(base, 'root-link');
    symlinkSync(root, linkedRoot);
  });

  it('reads a regular file, also when the root itself is a link', async () => {
    expect((await readInside(root, path.join(root, 'dir', 'page.md'))).toString()).toBe('inside');
    expect((await readInside(linkedRoot, path.join(linkedRoot, 'dir', 'page.md'))).toString()).toBe('inside');
  });

  it('refuses a final link and a link on the path, even when they point inside the root', async () => {
    await expect(readInside(root, path.join(root, 'same.md'))).rejects.toThrow(/symbolic link/);
    await expect(readInside(root, path.join(root, 'alias', 'page.md'))).rejects.toThrow(/symbolic link/);
    await expect(readInside(root, path.join(root, 'out', 'secret.md'))).rejects.toThrow(/symbolic link/);
    await expect(readInside(root, path.join(root, '..', 'outside', 'secret.md'))).rejects.toThrow(/outside the source root/);
  });

  it('refuses a FIFO without blocking', async () => {
    await expect(readInside(root, path.join(root, 'pipe.md'))).rejects.toThrow(/not a regular file/);
    expect(await checkPath(root, path.join(root, 'pipe.md'))).toEqual({ ok: false, absent: false, reason: 'not a regular file' });
  });

  it('checkPath names the link on a path, and tells a missing path from a refused one', async () => {
    expect(await checkPath(root, path.join(root, 'alias', 'page.md'))).toMatchObject({
      ok: false,
      absent: false,
      reason: expect.stringMatching(/"alias" is a symbolic link/),
    });
    expect(await checkPath(root, path.join(root, 'dir', 'gone.md'))).toEqual({ ok: false, absent: true });
    expect(await checkPath(root, path.join(root, 'dir', 'page.md'))).toMatchObject({ ok: true, type: 'file' });
  });

  it('a listing skips links and reports them; a target reached through a link lists nothing', async () => {
    const all = await listFolder(root);
    expect(all.files.map((f) => f.rel)).toEqual(['dir/page.md']);
    expect(all.ignored.map((i) => path.basename(i.path)).sort()).toEqual(['alias', 'out', 'same.md']);
    const through = await listFolder(root, path.join(root, 'out', 'secret.md'));
    expect(through.files).toEqual([]);
    expect(through.ignored[0].reason).toMatch(/symbolic link/);
  });
});
