// Whether a kept private answer may go to its conversation now, decided at the click (the answer
// was kept up to a day ago; the conversation may have been shared with another organisation since,
// and labbot may have restarted with other grants). Refused where labbot refuses (Slack Connect,
// connect.ts); where it reads public material only, unless the answer read no more than that; and
// unless everyone in the conversation may read every group the answer read (audience.ts).
import type { webApi } from '@slack/bolt';
import { groupsForChannel, type Config } from '../config.ts';
import type { AudienceGuard } from './audience.ts';
import { connectPolicy, connectRefusal, type ConnectGuard } from './connect.ts';
import { conversationText } from './conversation-texts.ts';
import type { SharedAnswer } from './share.ts';

export interface ShareCheckDeps {
  connect: ConnectGuard;
  audience: AudienceGuard;
  config: Pick<Config, 'slackConnect' | 'access'>;
}

/** Why `shared` may not be posted in its conversation now, or undefined when it may. */
export async function shareRefusal(deps: ShareCheckDeps, client: webApi.WebClient, shared: SharedAnswer): Promise<string | undefined> {
  const policy = connectPolicy(await deps.connect.verdict(client, shared.channel, { fresh: true }), deps.config.slackConnect);
  const lang = shared.view.language;
  if (policy.kind === 'refuse') return connectRefusal(policy, lang);
  // Answers kept before the groups were recorded count as restricted (unknown).
  const read = shared.groups ?? ['?'];
  if (policy.kind === 'public-only' && !read.every((g) => g === deps.config.access.default))
    return conversationText(lang).connectShareStale;
  // The asker is the one sharing (share.ts checks it first): their grants count only in their own DM with labbot.
  const here = await deps.audience.access(client, shared.channel, shared.asker);
  const readable = new Set(groupsForChannel(deps.config.access, here.channel, here.user));
  if (!read.every((g) => readable.has(g))) return conversationText(lang).shareNotReadable;
  return undefined;
}
