// Whose conversation a question is asked in, and so whose grants apply: decided here and only here,
// from Slack itself (conversations.info), for every way a question or an answer reaches a
// conversation: mentions, thread replies, DMs, edits, /labbot ask, the message shortcut and Share.
//
// The asker's own grants (access.users) apply only in labbot's own DM with the asker: a
// conversation Slack reports as an IM (is_im) whose `user` is the asker ("one of these users is
// always the calling user, the other's ID is indicated by the user property": labbot is the
// caller). Everywhere else what the conversation may read applies (access.channels by its id, or
// the default group), never a person's grants, because everyone in it reads the answer:
// - a channel or private channel;
// - a group DM (is_mpim): several people, so no one's personal grants (labbot does not narrow to
//   its least-privileged member; an admin may still map the group DM's id in access.channels);
// - a DM between two people: labbot is not in it, so Slack answers channel_not_found, and the
//   other person reads whatever is shared there;
// - an IM that is labbot's DM with someone else than the asker;
// - a conversation labbot could not look up (missing_scope, Slack down): fails closed.
//
// Only a D… id is an IM, so other ids are not looked up: skipping the lookup can only withhold
// grants, never give them. An IM's two members never change, so Slack's answer for one is cached a
// day (…:slack:im:<channel> = its user); a lookup that fails is not cached.
import type { webApi } from '@slack/bolt';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

type WebClient = webApi.WebClient;

const IM_TTL_SECONDS = 24 * 3600;

/** What labbot's answer there may read: one person's grants, or the conversation's. */
export type Access = { channel?: string; user?: string };

/** The conversation fields that say whose DM it is. */
export interface ImFields {
  is_im?: boolean;
  user?: string;
}

/**
 * Pure: the access for `asker` in `channel`, given what Slack said about it (undefined: not looked
 * up, or the lookup failed). The asker's grants only in labbot's own DM with them.
 */
export function accessIn(channel: string, asker: string | undefined, im: ImFields | undefined): Access {
  if (asker && im?.is_im === true && im.user === asker) return { user: asker };
  return { channel };
}

export interface AudienceGuard {
  /** The access for a question by `asker` (undefined: not a person, e.g. another bot) in `channel`. */
  access(client: WebClient, channel: string, asker: string | undefined): Promise<Access>;
}

export function createAudienceGuard(redis: Redis, prefix: string, log: Logger): AudienceGuard {
  const key = (channel: string) => `${prefix}slack:im:${channel}`;
  /** The IM's other member as Slack reports it; undefined when it is not labbot's IM or could not be looked up. */
  async function imUser(client: WebClient, channel: string): Promise<string | undefined> {
    try {
      const cached = await redis.get(key(channel));
      if (cached) return cached;
    } catch (err) {
      log.warn({ err: (err as Error).message, channel }, 'DM owner cache unavailable; asking Slack');
    }
    let im: ImFields;
    try {
      const res = await client.conversations.info({ channel });
      im = (res.channel ?? {}) as ImFields;
    } catch (err) {
      const e = err as { data?: { error?: string }; message?: string };
      // channel_not_found is what Slack answers for a DM between people: labbot is not in it.
      log.info({ channel, err: e.data?.error ?? e.message }, 'could not tell whose DM this is: no personal grants apply');
      return undefined;
    }
    if (im.is_im !== true || typeof im.user !== 'string' || !im.user) return undefined;
    await redis
      .set(key(channel), im.user, 'EX', IM_TTL_SECONDS)
      .catch((err: Error) => log.warn({ err: err.message, channel }, 'could not cache whose DM this is'));
    return im.user;
  }
  return {
    async access(client, channel, asker) {
      if (!asker || !channel.startsWith('D')) return accessIn(channel, asker, undefined);
      const user = await imUser(client, channel);
      return accessIn(channel, asker, user ? { is_im: true, user } : undefined);
    },
  };
}
