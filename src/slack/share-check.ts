// Whether a kept private answer may go to its conversation now, decided at the click (the answer
// was kept up to a day ago; the conversation may have been shared with another organisation since,
// and labbot may have restarted with other grants). Refused where labbot refuses (Slack Connect,
// connect.ts); where it reads public material only, unless the answer read no more than that; and
// unless everyone in the conversation may read every group the answer read (audience.ts).
import type { webApi } from '@slack/bolt';
import { decideAccess } from '../ask.ts';
import type { Config } from '../config.ts';
import { slackFacts, slackRefusalText } from './asker-facts.ts';
import type { AudienceGuard } from './audience.ts';
import type { ConnectGuard } from './connect.ts';
import { slackStrings } from './strings.ts';
import type { SharedAnswer } from './share.ts';

export interface ShareCheckDeps {
  connect: ConnectGuard;
  audience: AudienceGuard;
  config: Pick<Config, 'slackConnect' | 'access'>;
}

/** Why `shared` may not be posted in its conversation now, or undefined when it may. */
export async function shareRefusal(deps: ShareCheckDeps, client: webApi.WebClient, shared: SharedAnswer): Promise<string | undefined> {
  const lang = shared.view.language;
  // The asker is the one sharing (share.ts checks it first): their grants count only in their own
  // DM with labbot; asked again of Slack now, as the ask flow decides for a question (src/ask.ts).
  const facts = await slackFacts(deps, client, { surface: 'share', channel: shared.channel, user: shared.asker }, { fresh: true });
  const decision = decideAccess(facts, deps.config.access);
  if (!decision.allowed) return slackRefusalText(decision.reason, lang);
  // Answers kept before the groups were recorded count as restricted (unknown).
  const read = shared.groups ?? ['?'];
  const readable = new Set(decision.groups);
  if (read.every((g) => readable.has(g))) return undefined;
  return decision.publicOnlyBecauseShared ? slackStrings(lang).connectShareStale : slackStrings(lang).shareNotReadable;
}
