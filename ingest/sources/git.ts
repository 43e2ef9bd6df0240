// A Git-backed wiki as a source (GitHub/GitLab/Gitea wikis are git repositories; Wiki.js, MkDocs
// and Obsidian vaults often sync to one). We drive the git CLI with execFile: five plumbing
// commands need no library, and argument arrays keep remote names and paths out of a shell.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export class GitError extends Error {}

async function git(cwd: string | undefined, args: string[]): Promise<string> {
  try {
    const { stdout } = await run('git', cwd ? ['-C', cwd, ...args] : args, {
      maxBuffer: 64 * 1024 * 1024,
      timeout: 120_000,
      // Never prompt for credentials: a wiki that needs them must be configured with a token URL.
      env: { ...gitEnv(), GIT_TERMINAL_PROMPT: '0' },
    });
    return stdout;
  } catch (err) {
    const e = err as Error & { stderr?: string };
    throw new GitError(`git ${args[0]} failed: ${(e.stderr || e.message).trim().split('\n').slice(-3).join(' ')}`);
  }
}

// Only what git needs from the environment; passed through, never interpreted here.
function gitEnv(): NodeJS.ProcessEnv {
  const keep = ['PATH', 'HOME', 'SSH_AUTH_SOCK', 'GIT_SSH_COMMAND', 'http_proxy', 'https_proxy', 'no_proxy'];
  return Object.fromEntries(keep.filter((k) => process.env[k] !== undefined).map((k) => [k, process.env[k]]));
}

export interface GitSource {
  path: string;
  url?: string;
  branch?: string;
}

/** Clones or fetches, then checks the work tree out at the branch head; returns that commit. */
export async function updateClone(src: GitSource): Promise<string> {
  if (!src.url) {
    // A work tree kept up to date by something else (a wiki's own sync): read where it is.
    if (!existsSync(path.join(src.path, '.git'))) throw new GitError(`${src.path} is not a git work tree and the source has no url`);
    return (await git(src.path, ['rev-parse', 'HEAD'])).trim();
  }
  if (!existsSync(path.join(src.path, '.git'))) {
    mkdirSync(path.dirname(src.path), { recursive: true });
    await git(undefined, ['clone', '--quiet', '--no-tags', ...(src.branch ? ['--branch', src.branch] : []), '--', src.url, src.path]);
  } else {
    await git(src.path, ['fetch', '--quiet', '--prune', '--no-tags', 'origin']);
  }
  const ref = src.branch ? `refs/remotes/origin/${src.branch}` : 'refs/remotes/origin/HEAD';
  const head = (await git(src.path, ['rev-parse', '--verify', `${ref}^{commit}`])).trim();
  await checkout(src.path, head);
  return head;
}

/** Moves the work tree to `commit`, unless it is already at a descendant (never goes back). */
export async function ensureAtLeast(dir: string, commit: string): Promise<void> {
  const current = (await git(dir, ['rev-parse', 'HEAD'])).trim();
  if (current === commit) return;
  if (await isAncestor(dir, commit, current)) return;
  if (!(await hasCommit(dir, commit))) await git(dir, ['fetch', '--quiet', '--no-tags', 'origin']);
  await checkout(dir, commit);
}

async function checkout(dir: string, commit: string): Promise<void> {
  await git(dir, ['checkout', '--quiet', '--force', '--detach', commit]);
  await git(dir, ['clean', '--quiet', '-ffdx']);
}

export async function hasCommit(dir: string, commit: string): Promise<boolean> {
  try {
    await git(dir, ['cat-file', '-e', `${commit}^{commit}`]);
    return true;
  } catch {
    return false;
  }
}

async function isAncestor(dir: string, a: string, b: string): Promise<boolean> {
  try {
    await git(dir, ['merge-base', '--is-ancestor', a, b]);
    return true;
  } catch {
    return false;
  }
}

export interface TreeChange {
  status: 'added' | 'modified' | 'deleted' | 'renamed';
  path: string;
  /** For renames: the old path. */
  from?: string;
}

/** Files changed between two commits (renames detected), parsed from `diff --name-status -z`. */
export async function changedFiles(dir: string, from: string, to: string): Promise<TreeChange[]> {
  const out = await git(dir, ['diff', '--name-status', '-z', '-M', '-l0', from, to]);
  return parseNameStatus(out);
}

export function parseNameStatus(out: string): TreeChange[] {
  const parts = out.split('\0').filter((p) => p !== '');
  const changes: TreeChange[] = [];
  for (let i = 0; i < parts.length; ) {
    const code = parts[i++];
    if (code.startsWith('R') || code.startsWith('C')) {
      const from = parts[i++];
      const to = parts[i++];
      changes.push(code.startsWith('R') ? { status: 'renamed', path: to, from } : { status: 'added', path: to });
    } else {
      const p = parts[i++];
      changes.push({ status: code === 'A' ? 'added' : code === 'D' ? 'deleted' : 'modified', path: p });
    }
  }
  return changes;
}
