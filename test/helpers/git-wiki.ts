// A real git wiki for tests: a bare "remote" and a working clone where pages are edited, committed
// and pushed, the way a GitHub/GitLab wiki is.
import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface GitWiki {
  remote: string;
  work: string;
  write(rel: string, text: string): void;
  remove(rel: string): void;
  move(from: string, to: string): void;
  commitAndPush(message: string): string;
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.org', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    encoding: 'utf8',
  }).trim();

export function createGitWiki(pages: Record<string, string>): GitWiki {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-wiki-'));
  const remote = path.join(dir, 'remote.git');
  const work = path.join(dir, 'work');
  mkdirSync(remote);
  git(remote, 'init', '--quiet', '--bare');
  mkdirSync(work);
  git(work, 'init', '--quiet');
  git(work, 'remote', 'add', 'origin', remote);
  const wiki: GitWiki = {
    remote,
    work,
    write(rel, text) {
      mkdirSync(path.dirname(path.join(work, rel)), { recursive: true });
      writeFileSync(path.join(work, rel), text);
    },
    remove(rel) {
      rmSync(path.join(work, rel));
    },
    move(from, to) {
      mkdirSync(path.dirname(path.join(work, to)), { recursive: true });
      renameSync(path.join(work, from), path.join(work, to));
    },
    commitAndPush(message) {
      git(work, 'add', '-A');
      git(work, 'commit', '--quiet', '-m', message);
      git(work, 'push', '--quiet', 'origin', 'HEAD:main');
      return git(work, 'rev-parse', 'HEAD');
    },
  };
  for (const [rel, text] of Object.entries(pages)) wiki.write(rel, text);
  wiki.commitAndPush('initial pages');
  return wiki;
}

/** A wiki page with a few sections, each naming its page so answers can be traced. */
export function wikiPage(n: number, extra = ''): string {
  const topics = ['centrifuge', 'freezer', 'microscope', 'incubator', 'autoclave', 'pipette', 'thermocycler', 'fume hood'];
  const t = topics[n % topics.length];
  return [
    `# Page ${n}: the ${t} rota`,
    '',
    `## Booking`,
    `Book the ${t} number ${n} on the shared calendar at least one day ahead; slot code PAGE${n}BOOK.`,
    '',
    `## Cleaning`,
    `After use wipe the ${t} number ${n} with 70% ethanol and log it; checklist code PAGE${n}CLEAN.`,
    '',
    `## Contacts`,
    `Questions about the ${t} number ${n} go to the equipment officer; extension ${1000 + n}.${extra ? `\n\n${extra}` : ''}`,
    '',
  ].join('\n');
}

export function githubPush(secret: string, body: object, delivery: string): { headers: Record<string, string>; body: string } {
  const raw = JSON.stringify(body);
  return {
    body: raw,
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'push',
      'x-github-delivery': delivery,
      'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`,
    },
  };
}

export function genericChange(secret: string, body: object, delivery?: string): { headers: Record<string, string>; body: string } {
  const raw = JSON.stringify(body);
  return {
    body: raw,
    headers: {
      'content-type': 'application/json',
      'x-labbot-signature': `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`,
      ...(delivery ? { 'x-labbot-delivery': delivery } : {}),
    },
  };
}
