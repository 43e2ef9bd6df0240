// What Slack says about who asks where, as the one ask flow's facts (src/ask.ts decides from them):
// whose conversation it is (audience.ts) and whether another organisation reads it (connect.ts).
// Every Slack way in (mention, thread reply, DM, edit, /labbot ask, the shortcut, Share) asks here.
import type { webApi } from '@slack/bolt';
import type { AskerFacts, Refusal, Surface } from '../ask.ts';
import type { Config } from '../config.ts';
import type { Language } from '../search/tokenize.ts';
import type { AudienceGuard } from './audience.ts';
import { type ConnectGuard, connectPolicy } from './connect.ts';
import { slackStrings } from './strings.ts';

export interface SlackFactsDeps {
  audience: AudienceGuard;
  connect: ConnectGuard;
  config: Pick<Config, 'slackConnect'>;
}

/**
 * The facts for a question by `user` in `channel`. Without a client nothing can be looked up, so
 * the facts fail closed: not labbot's DM, and shared with an organisation not checked.
 */
export async function slackFacts(
  deps: SlackFactsDeps,
  client: webApi.WebClient | undefined,
  where: { surface: Surface; channel: string; user: string | undefined },
  ctx: { envelope?: unknown; fresh?: boolean } = {},
): Promise<AskerFacts> {
  const access = client ? await deps.audience.access(client, where.channel, where.user) : { channel: where.channel };
  const verdict = client ? await deps.connect.verdict(client, where.channel, ctx) : ({ shared: true, checked: false } as const);
  const policy = connectPolicy(verdict, deps.config.slackConnect);
  const shared =
    policy.kind === 'refuse' ? (policy.checked ? 'refuse' : 'refuse-unchecked') : policy.kind === 'public-only' ? 'public-only' : undefined;
  return {
    surface: where.surface,
    channel: where.channel,
    user: where.user,
    ownDm: where.user !== undefined && access.user === where.user,
    shared,
  };
}

/** Why labbot does not answer in this conversation, in the asker's language. */
export function slackRefusalText(reason: Refusal, lang: Language): string {
  const t = slackStrings(lang);
  return reason === 'shared' ? t.connectRefused : t.connectUnchecked;
}
