// Slack surfaces beyond messages: the "Ask labbot about this" message shortcut (its callback id
// is in manifest.json) and publishing the App Home tab.
import type { webApi } from '@slack/bolt';
import { groupsForChannel } from '../config.ts';
import type { Kind } from '../types.ts';
import { homeView, permalink, type HomeData } from './home.ts';
import { suggestedPrompts, type SuggestedPrompt } from './prompts.ts';
import { statusText } from './slash.ts';
import type { HandlerDeps } from './types.ts';

export const ASK_SHORTCUT = 'labbot_ask_about_message';

/** The prompts offered to one user (their DM with labbot, the App Home): from what they may read. */
export function promptsFor(deps: Pick<HandlerDeps, 'app' | 'config'>, user: string): SuggestedPrompt[] {
  return suggestedPrompts(deps.config.suggestedPrompts, deps.app.catalog.docs(), groupsForChannel(deps.config.access, undefined, user));
}

/** Questions scanned for the user's own (the activity list is shared by everyone). */
const RECENT_SCAN = 500;

/** The workspace URL (auth.test), once per client: links to messages are built from it. */
const workspaceUrls = new WeakMap<webApi.WebClient, Promise<string | undefined>>();
function workspaceUrl(client: webApi.WebClient): Promise<string | undefined> {
  let url = workspaceUrls.get(client);
  if (!url) {
    url = client.auth.test().then(
      (r) => r.url,
      () => undefined,
    );
    workspaceUrls.set(client, url);
  }
  return url;
}

/** Documents by source and kind, over the groups `user` may read. */
function knownBy(deps: HandlerDeps, user: string): HomeData['known'] {
  const readable = new Set(groupsForChannel(deps.config.access, undefined, user));
  const known: HomeData['known'] = Object.create(null);
  for (const d of deps.app.catalog.docs()) {
    if (!readable.has(d.access)) continue;
    const counts = (known[d.source] ??= {});
    counts[d.kind as Kind] = (counts[d.kind as Kind] ?? 0) + 1;
  }
  return known;
}

export async function publishHome(client: webApi.WebClient, deps: HandlerDeps, user: string): Promise<void> {
  const admin = deps.config.admins.includes(user);
  const [indexStatus, recent, base] = await Promise.all([
    admin ? statusText(deps) : undefined,
    deps.activity.recent(RECENT_SCAN).catch((err: Error) => {
      deps.log.warn({ err: err.message }, 'recent questions unavailable for the App Home');
      return [];
    }),
    workspaceUrl(client),
  ]);
  const view = homeView({
    known: knownBy(deps, user),
    examples: promptsFor(deps, user).map((p) => p.message),
    recent: recent
      .filter((r) => r.user === user)
      .map((r) => ({
        question: r.question,
        ts: r.ts,
        link: r.source === 'slash' ? undefined : permalink(base, r.channel, r.messageTs, r.threadTs),
      })),
    ...(indexStatus !== undefined ? { admin: { indexStatus } } : {}),
  });
  try {
    await client.views.publish({ user_id: user, view });
  } catch (err) {
    deps.log.warn({ user, err: (err as Error).message }, 'views.publish failed');
  }
}
