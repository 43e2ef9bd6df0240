// Readable names for the user mentions in incoming Slack text (<@U123> -> "@Ada Okafor"), looked
// up with users.info (scope users:read) before slackToPlain converts the text. Names are kept in a
// bounded in-memory cache with a TTL: a question names few people, the same people again and again.
// A failed lookup (missing_scope, user_not_found, network, slow Slack) gives "@user", is logged once
// and never holds the answer up for more than the lookup timeout.
// Hand-written cache: no LRU library is in package.json, and a Map (which keeps insertion order)
// is all a bounded least-recently-used cache needs here.
import type { webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import type { UserNames } from './slack-text.ts';

/** Looks one user up; resolves to their name (undefined when Slack has none), rejects on failure. */
export type LookupUser = (userId: string) => Promise<string | undefined>;

export interface UserDirectory {
  /** Names for the users mentioned in `texts`, looked up (or taken from the cache) at once. */
  namesFor(texts: string[], lookup: LookupUser): Promise<UserNames>;
  /** Entries held (for tests and status). */
  size(): number;
}

export interface UserDirectoryOptions {
  log: Logger;
  /** Users kept at most; the least recently used go first. */
  max?: number;
  /** How long a name is trusted (people rename themselves). */
  ttlMs?: number;
  /** How long a failed lookup is remembered before it is tried again. */
  failedTtlMs?: number;
  /** The longest an answer waits for users.info. */
  timeoutMs?: number;
  now?: () => number;
}

/** Slack caps display names at 80 characters; anything longer is not a name to search for. */
const MAX_NAME = 80;

const MENTION_ID = /<@([UW][A-Z0-9]+)(?:\|[^<>]*)?>/g;

/** User ids mentioned in Slack-encoded texts, each once. */
export function userIdsIn(texts: string[]): string[] {
  const ids = new Set<string>();
  for (const t of texts) for (const m of t.matchAll(MENTION_ID)) ids.add(m[1]);
  return [...ids];
}

/** One line of plain text: user-controlled, so no line breaks or control characters, and clipped. */
function cleanName(name: string | undefined): string | undefined {
  const clean = (name ?? '')
    .replace(/[\p{Cc}\p{Cf}\s]+/gu, ' ')
    .trim()
    .slice(0, MAX_NAME)
    .trim();
  return clean || undefined;
}

/** Slack's error code of a failed Web API call ("user_not_found"), or the network error's message. */
function errorCode(err: unknown): string {
  const e = err as { data?: { error?: string }; message?: string };
  return e.data?.error ?? e.message ?? String(err);
}

interface Entry {
  name: string | undefined;
  expires: number;
}

export function createUserDirectory(opts: UserDirectoryOptions): UserDirectory {
  const max = opts.max ?? 2_000;
  const ttlMs = opts.ttlMs ?? 60 * 60_000;
  const failedTtlMs = opts.failedTtlMs ?? 10 * 60_000;
  const timeoutMs = opts.timeoutMs ?? 2_000;
  const now = opts.now ?? Date.now;
  const cache = new Map<string, Entry>();
  const pending = new Map<string, Promise<string | undefined>>();
  let scopeMissingLogged = false;

  const put = (id: string, entry: Entry) => {
    cache.delete(id);
    cache.set(id, entry);
    while (cache.size > max) cache.delete(cache.keys().next().value!);
  };

  const fetchName = (id: string, lookup: LookupUser): Promise<string | undefined> => {
    const inFlight = pending.get(id);
    if (inFlight) return inFlight;
    const work = lookup(id).then(
      (name) => {
        put(id, { name: cleanName(name), expires: now() + ttlMs });
        return cleanName(name);
      },
      (err: unknown) => {
        const code = errorCode(err);
        // Remembered as unknown for a while, so one failure is one log line, not one per question.
        put(id, { name: undefined, expires: now() + failedTtlMs });
        if (code === 'missing_scope') {
          if (!scopeMissingLogged)
            opts.log.warn(
              { user: id },
              'users.info needs the users:read scope (reinstall the app after adding it); mentions read as "@user"',
            );
          scopeMissingLogged = true;
        } else {
          opts.log.warn({ user: id, err: code }, 'could not look up a mentioned user; reading the mention as "@user"');
        }
        return undefined;
      },
    );
    pending.set(id, work);
    void work.finally(() => pending.delete(id));
    return work;
  };

  return {
    async namesFor(texts, lookup) {
      const names = new Map<string, string>();
      const misses: string[] = [];
      for (const id of userIdsIn(texts)) {
        const hit = cache.get(id);
        if (hit && hit.expires > now()) {
          put(id, hit); // most recently used
          if (hit.name) names.set(id, hit.name);
        } else {
          misses.push(id);
        }
      }
      if (misses.length) {
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<'late'>((r) => {
          timer = setTimeout(() => r('late'), timeoutMs);
          timer.unref();
        });
        // A slow Slack costs at most timeoutMs; lookups still running then fill the cache for next time.
        const found = Promise.all(misses.map(async (id) => [id, await fetchName(id, lookup)] as const));
        const outcome = await Promise.race([found, late]);
        clearTimeout(timer);
        if (outcome === 'late')
          opts.log.warn({ users: misses.length, timeoutMs }, 'users.info too slow; mentions read as "@user" this time');
        else for (const [id, name] of outcome) if (name) names.set(id, name);
      }
      return (id) => names.get(id);
    },
    size: () => cache.size,
  };
}

/** users.info as a LookupUser: the display name, else the real name (what Slack shows for the person). */
export function usersInfoLookup(client: webApi.WebClient): LookupUser {
  return async (user) => {
    const res = await client.users.info({ user });
    const u = res.user;
    return u?.profile?.display_name || u?.profile?.real_name || u?.real_name || u?.name || undefined;
  };
}
