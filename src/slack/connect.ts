// Slack Connect: whether a conversation is shared with another organisation, decided here and
// only here, from Slack itself (conversations.info), for every way a question or an answer reaches
// a conversation: mentions, thread replies, DMs, /labbot ask, the message shortcut, Share.
//
// Which flags count (docs.slack.dev, "Conversation object"):
// - is_ext_shared: part of a channel shared with a remote organisation. Counts.
// - is_pending_ext_shared: on its way to becoming ext-shared, waiting for approval; Slack's advice
//   is to treat it as shared already (pending_connected_team_ids / pending_shared list the
//   organisations invited). Counts: an invited organisation may be let in at any moment.
// - is_org_shared: shared between workspaces of one Enterprise Grid organisation, the lab's own.
//   Does not count by itself (its access mapping is the organisation's business).
// - is_shared: true for either kind of sharing. Counts unless is_org_shared explains it: sharing
//   Slack does not describe is treated as external (fail closed).
// An event's own envelope flag (is_ext_shared_channel) counts too, and a lookup that fails (Slack
// down, missing_scope, channel_not_found in a private channel or a DM labbot is not in) counts as
// shared: labbot never answers where it could not check.
//
// Verdicts are cached in Redis (…:slack:connect:<channel>): a shared channel for an hour, an
// internal one for two minutes (Share and the message shortcut, which post to the channel with no
// event to go by, always ask Slack again unless the channel is already known to be shared). channel_shared sets the verdict at once and channel_unshared drops
// it, so the TTLs only matter when such an event was missed (labbot down while it was sent): a
// channel shared in that moment is seen as shared within two minutes; one unshared, within the hour
// (until then labbot still refuses there, the safe side).
import type { App as BoltApp, webApi } from '@slack/bolt';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

type WebClient = webApi.WebClient;

const SHARED_TTL_SECONDS = 3600;
const INTERNAL_TTL_SECONDS = 120;

/** The conversation fields that say whether it is shared (absent ones are false/empty). */
export interface SharingFlags {
  is_shared?: boolean;
  is_ext_shared?: boolean;
  is_org_shared?: boolean;
  is_pending_ext_shared?: boolean;
  pending_shared?: unknown[];
  pending_connected_team_ids?: unknown[];
}

/** True when the conversation is (or is about to be) shared with another organisation. */
function sharedWithOtherOrg(c: SharingFlags): boolean {
  if (c.is_ext_shared || c.is_pending_ext_shared) return true;
  if ((c.pending_shared?.length ?? 0) > 0 || (c.pending_connected_team_ids?.length ?? 0) > 0) return true;
  return Boolean(c.is_shared && !c.is_org_shared);
}

export type ConnectVerdict =
  /** Only this organisation reads the conversation: the channel's own access applies. */
  | { shared: false }
  /** Another organisation reads it (or labbot could not tell): `checked` says which. */
  | { shared: true; checked: boolean };

export interface ConnectGuard {
  /**
   * Whether `channel` is shared with another organisation. `envelope` is the event's own
   * is_ext_shared_channel when the request was an event (a true there is enough); `fresh` asks
   * Slack even when a verdict is cached (for what posts to the channel without an event: Share, the
   * message shortcut).
   */
  verdict(client: WebClient, channel: string, opts?: { envelope?: unknown; fresh?: boolean }): Promise<ConnectVerdict>;
  /** channel_shared: shared from now on, without asking Slack. */
  shared(channel: string): Promise<void>;
  /** channel_unshared: forget the verdict; the next question asks Slack (it may still be shared with others). */
  unshared(channel: string): Promise<void>;
}

export function createConnectGuard(redis: Redis, prefix: string, log: Logger): ConnectGuard {
  const key = (channel: string) => `${prefix}slack:connect:${channel}`;
  const remember = async (channel: string, shared: boolean) => {
    try {
      await redis.set(key(channel), shared ? '1' : '0', 'EX', shared ? SHARED_TTL_SECONDS : INTERNAL_TTL_SECONDS);
    } catch (err) {
      log.warn({ err: (err as Error).message, channel }, 'could not cache whether the channel is shared; Slack is asked again next time');
    }
  };
  return {
    async verdict(client, channel, opts = {}) {
      if (opts.envelope === true) {
        await remember(channel, true);
        return { shared: true, checked: true };
      }
      try {
        const cached = await redis.get(key(channel));
        if (cached === '1') return { shared: true, checked: true };
        if (cached === '0' && !opts.fresh) return { shared: false };
      } catch (err) {
        log.warn({ err: (err as Error).message, channel }, 'Slack Connect cache unavailable; asking Slack');
      }
      let flags: SharingFlags;
      try {
        const res = await client.conversations.info({ channel });
        if (!res.channel) throw new Error('conversations.info returned no channel');
        flags = res.channel as SharingFlags;
      } catch (err) {
        const e = err as { data?: { error?: string }; message?: string };
        log.warn(
          { channel, err: e.data?.error ?? e.message },
          'could not tell whether the conversation is shared with another organisation; treating it as shared',
        );
        return { shared: true, checked: false };
      }
      const shared = sharedWithOtherOrg(flags);
      await remember(channel, shared);
      return shared ? { shared: true, checked: true } : { shared: false };
    },
    async shared(channel) {
      await remember(channel, true);
    },
    async unshared(channel) {
      try {
        await redis.del(key(channel));
      } catch (err) {
        log.warn({ err: (err as Error).message, channel }, 'could not forget the Slack Connect verdict; it expires within the hour');
      }
    },
  };
}

/** What a verdict means for an answer, by the `slackConnect` setting. */
export type ConnectPolicy =
  | { kind: 'answer' }
  /** Answer from the `public` documents only, and say so. */
  | { kind: 'public-only' }
  /** Do not answer; `checked` false means labbot could not tell (the reason it gives differs). */
  | { kind: 'refuse'; checked: boolean };

export function connectPolicy(verdict: ConnectVerdict, setting: 'refuse' | 'public'): ConnectPolicy {
  if (!verdict.shared) return { kind: 'answer' };
  return setting === 'public' ? { kind: 'public-only' } : { kind: 'refuse', checked: verdict.checked };
}

/** channel_shared / channel_unshared (bot events; channels:read, groups:read): the verdict follows at once. */
export function listenForSharing(bolt: BoltApp, guard: ConnectGuard, log: Logger): void {
  bolt.event('channel_shared', async ({ event }) => {
    log.info({ channel: event.channel }, 'channel shared with another organisation');
    await guard.shared(event.channel);
  });
  bolt.event('channel_unshared', async ({ event }) => {
    log.info({ channel: event.channel }, 'channel no longer shared with an organisation');
    await guard.unshared(event.channel);
  });
}
