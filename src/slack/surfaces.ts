// Slack surfaces beyond messages: the "Ask labbot about this" message shortcut (its callback id
// is in manifest.json) and publishing the App Home tab.
import type { webApi } from '@slack/bolt';
import type { HandlerDeps } from './types.ts';
import { homeView } from './home.ts';
import { statusText } from './slash.ts';

export const ASK_SHORTCUT = 'labbot_ask_about_message';

/** Questions scanned for the user's own (the activity list is shared by everyone). */
const RECENT_SCAN = 500;

export async function publishHome(client: webApi.WebClient, deps: HandlerDeps, user: string): Promise<void> {
  const [indexStatus, recent] = await Promise.all([
    statusText(deps),
    deps.activity.recent(RECENT_SCAN).catch((err: Error) => {
      deps.log.warn({ err: err.message }, 'recent questions unavailable for the App Home');
      return [];
    }),
  ]);
  const view = homeView({ indexStatus, recent: recent.filter((r) => r.user === user) });
  try {
    await client.views.publish({ user_id: user, view });
  } catch (err) {
    deps.log.warn({ user, err: (err as Error).message }, 'views.publish failed');
  }
}
