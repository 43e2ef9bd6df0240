// A Git-backed wiki as a source (GitHub/GitLab/Gitea wikis are git repositories; Wiki.js, MkDocs
// and Obsidian vaults often sync to one). We drive the git CLI with execFile: five plumbing
// commands need no library, and argument arrays keep remote names and paths out of a shell.
import type { GitAuth } from '../../types.ts';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { childEnv } from '../../config.ts';
import { redactUrls } from '../../log.ts';

const run = promisify(execFile);

export class GitError extends Error {}

export interface GitSource {
  path: string;
  url?: string;
  branch?: string;
  gitAuth?: GitAuth;
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * The variables that hand git its credentials. An HTTP header goes in through git's
 * GIT_CONFIG_COUNT/KEY/VALUE variables (git 2.31+) as http.<url>.extraHeader, scoped to the
 * source's remote: on the command line (`-c`) every `ps` would show it, and in the URL it would
 * be written to the clone's .git/config and quoted by git's own messages.
 * A GIT_CONFIG_COUNT already in labbot's own environment is overridden.
 */
function gitAuthEnv(src: GitSource): Record<string, string> {
  // Never prompt (there is no one to answer): a remote that wants credentials we lack fails.
  const env: Record<string, string> = { GIT_TERMINAL_PROMPT: '0' };
  const auth = src.gitAuth;
  if (auth?.basic && src.url) {
    const value = Buffer.from(`${auth.basic.user}:${auth.basic.password}`).toString('base64');
    Object.assign(env, {
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: `http.${src.url}.extraHeader`,
      GIT_CONFIG_VALUE_0: `Authorization: Basic ${value}`,
    });
  }
  if (auth?.sshKeyPath) {
    // accept-new: the first connection records the host's key, a changed key is refused later
    // (mount a known_hosts to pin it from the start); BatchMode: never ask for a passphrase.
    env.GIT_SSH_COMMAND = `ssh -i ${shellQuote(auth.sshKeyPath)} -o IdentitiesOnly=yes -o BatchMode=yes -o StrictHostKeyChecking=accept-new`;
  }
  return env;
}

/** Git's output and errors as they may be shown: no URL userinfo and none of the source's secrets. */
function scrub(text: string, src: GitSource | undefined): string {
  let out = redactUrls(text);
  const basic = src?.gitAuth?.basic;
  if (basic) {
    const header = Buffer.from(`${basic.user}:${basic.password}`).toString('base64');
    for (const secret of [basic.password, header, basic.password === '' ? basic.user : ''])
      if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  }
  return out;
}

async function git(cwd: string | undefined, args: string[], src?: GitSource): Promise<string> {
  try {
    const noPrompt = ['-c', 'core.askPass=true', '-c', 'credential.interactive=never'];
    const { stdout } = await run('git', [...noPrompt, ...(cwd ? ['-C', cwd] : []), ...args], {
      maxBuffer: 64 * 1024 * 1024,
      timeout: 120_000,
      env: childEnv(src ? gitAuthEnv(src) : { GIT_TERMINAL_PROMPT: '0' }),
    });
    return stdout;
  } catch (err) {
    const e = err as Error & { stderr?: string };
    throw new GitError(scrub(`git ${args[0]} failed: ${(e.stderr || e.message).trim().split('\n').slice(-3).join(' ')}`, src));
  }
}

/** Clones made before credentials left the URL keep them in .git/config: point origin at the clean URL, once a process. */
const remotesChecked = new Set<string>();
async function ensureRemote(src: GitSource & { url: string }): Promise<void> {
  const key = `${src.path}\u0000${src.url}`;
  if (remotesChecked.has(key)) return;
  await git(src.path, ['remote', 'set-url', 'origin', src.url], src);
  remotesChecked.add(key);
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
    await git(undefined, ['clone', '--quiet', '--no-tags', ...(src.branch ? ['--branch', src.branch] : []), '--', src.url, src.path], src);
    const head = (await git(src.path, ['rev-parse', 'HEAD'])).trim();
    await checkout(src.path, head);
    return head;
  }
  // Each git process costs ~0.1 s here, and a wiki edit should be searchable within seconds:
  // fetch just the branch and read the fetched commit from FETCH_HEAD instead of asking git.
  await ensureRemote({ ...src, url: src.url });
  const branch = src.branch ?? (await defaultBranch(src.path));
  await git(src.path, ['fetch', '--quiet', '--no-tags', 'origin', `+refs/heads/${branch}:refs/remotes/origin/${branch}`], src);
  const fetched = /^([0-9a-f]{40,64})\s/.exec(readFileSync(path.join(src.path, '.git', 'FETCH_HEAD'), 'utf8'))?.[1];
  const head = fetched ?? (await git(src.path, ['rev-parse', '--verify', `refs/remotes/origin/${branch}^{commit}`])).trim();
  if (currentHead(src.path) !== head) await checkout(src.path, head);
  return head;
}

const defaultBranches = new Map<string, string>();
async function defaultBranch(dir: string): Promise<string> {
  let b = defaultBranches.get(dir);
  if (!b) {
    b = (await git(dir, ['rev-parse', '--abbrev-ref', 'refs/remotes/origin/HEAD'])).trim().replace(/^origin\//, '');
    defaultBranches.set(dir, b);
  }
  return b;
}

/** The detached HEAD we checked out, read from the file (no process); undefined if symbolic. */
function currentHead(dir: string): string | undefined {
  try {
    const h = readFileSync(path.join(dir, '.git', 'HEAD'), 'utf8').trim();
    return /^[0-9a-f]{40,64}$/.test(h) ? h : undefined;
  } catch {
    return undefined;
  }
}

/** Moves the work tree to `commit`, unless it is already at a descendant (never goes back). */
export async function ensureAtLeast(src: GitSource, commit: string): Promise<void> {
  const dir = src.path;
  const current = currentHead(dir) ?? (await git(dir, ['rev-parse', 'HEAD'])).trim();
  if (current === commit) return;
  if (await isAncestor(dir, commit, current)) return;
  if (!(await hasCommit(dir, commit))) {
    if (src.url) await ensureRemote({ ...src, url: src.url });
    await git(dir, ['fetch', '--quiet', '--no-tags', 'origin'], src);
  }
  await checkout(dir, commit);
}

async function checkout(dir: string, commit: string): Promise<void> {
  try {
    await git(dir, ['checkout', '--quiet', '--force', '--detach', commit]);
  } catch {
    // Only a clone someone tampered with gets here: drop stray files and try once more.
    await git(dir, ['clean', '--quiet', '-ffdx']);
    await git(dir, ['checkout', '--quiet', '--force', '--detach', commit]);
  }
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
/** undefined when `from` is not in the repository any more (history rewritten): sync everything. */
export async function changedFiles(dir: string, from: string, to: string): Promise<TreeChange[] | undefined> {
  if (!/^[0-9a-f]{40,64}$/.test(from)) return undefined;
  try {
    return parseNameStatus(await git(dir, ['diff', '--name-status', '-z', '-M', '-l0', from, to]));
  } catch {
    return undefined;
  }
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
