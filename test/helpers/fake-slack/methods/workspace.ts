// The workspace around the conversation: who labbot is (auth.test), its members (users.info),
// conversations (conversations.info, with the Slack Connect flags and members a test sets), the
// thread history a test seeds (conversations.replies, paged as Slack pages it) and the Socket Mode URL.
import { refuse, type Body, type Method } from '../args.ts';

/** labbot's own user id (auth.test's user_id): a member of its DMs and of the group DMs it was added to. */
export const BOT_USER = 'UBOT';

export interface FakeUser {
  /** The handle (user.name). */
  name: string;
  /** profile.display_name: may be "" when the person never set one (Slack then shows the real name). */
  display_name: string;
  real_name: string;
}

/** conversations.info fields a test sets; the rest comes from the id's prefix. */
export interface ConversationInfo {
  is_shared?: boolean;
  is_ext_shared?: boolean;
  is_org_shared?: boolean;
  is_pending_ext_shared?: boolean;
  pending_connected_team_ids?: string[];
  /**
   * Who is in the conversation. A D… id is a direct message between its two members; unset, it is
   * labbot's DM with U<the rest of the id> (the DM chat.postMessage to that user id opens). With
   * `mpim` it is a group DM. Slack shows labbot only the DMs and group DMs it is in (BOT_USER):
   * channel_not_found for any other, as for a DM between two people.
   */
  members?: string[];
  /** A group DM (is_mpim; a C… or, for older ones, G… id) with `members`. */
  mpim?: boolean;
  /** Answer this error instead (channel_not_found, missing_scope, …). */
  error?: string;
}

/** A message of a thread's history, as conversations.replies returns it. */
export interface HistoryMessage {
  ts: string;
  user?: string;
  bot_id?: string;
  text: string;
}

export interface Workspace {
  users: Map<string, FakeUser>;
  conversations: Map<string, ConversationInfo>;
  /** Thread histories by "<channel>:<thread ts>". */
  threads: Map<string, HistoryMessage[]>;
}

export function workspaceMethods(ws: Workspace, socketUrl: () => string): Record<string, Method> {
  return {
    'auth.test': () => ({
      ok: true,
      url: 'https://lab.slack.com/',
      team: 'Lab',
      user: 'labbot',
      team_id: 'T0LAB',
      user_id: BOT_USER,
      bot_id: 'BBOT',
    }),
    'users.info': (body) => {
      // As Slack answers it: the user object, names both at the top and in profile.
      if (typeof body.user !== 'string' || !body.user) return refuse('invalid_arguments');
      const u = ws.users.get(body.user);
      if (!u) return refuse('user_not_found');
      const profile = {
        display_name: u.display_name,
        display_name_normalized: u.display_name,
        real_name: u.real_name,
        real_name_normalized: u.real_name,
      };
      return {
        ok: true,
        user: { id: body.user, team_id: 'T0LAB', name: u.name, deleted: false, real_name: u.real_name, is_bot: false, profile },
      };
    },
    'conversations.replies': (body) => repliesPage(ws.threads.get(`${String(body.channel ?? 'C0')}:${String(body.ts)}`) ?? [], body),
    'conversations.info': (body) => conversationInfo(ws.conversations, body),
    'apps.connections.open': () => ({ ok: true, url: socketUrl() }),
  };
}

/**
 * conversations.info as Slack answers a bot token (the shapes of slackapi/slack-api-specs'
 * objs_conversation: the IM object of conversations.* methods, the MPIM object, the channel object):
 * the conversation's type from its id and a test's `members`/`mpim`, its sharing flags, or its error.
 * A DM or group DM labbot is not in is channel_not_found, as is a malformed id.
 */
function conversationInfo(conversations: Map<string, ConversationInfo>, body: Body): Record<string, unknown> {
  const id = body.channel;
  if (typeof id !== 'string' || !/^[CGD][A-Z0-9]+$/.test(id)) return { ok: false, error: 'channel_not_found' };
  const set = conversations.get(id) ?? {};
  if (set.error) return { ok: false, error: set.error };
  const { error: _e, members: listed, mpim, ...flags } = set;
  const created = 1700000000;
  if (id.startsWith('D')) {
    const members = listed ?? [BOT_USER, `U${id.slice(1)}`];
    if (members.length !== 2) return { ok: false, error: 'fake_slack_misconfigured: a DM has two members' };
    if (!members.includes(BOT_USER)) return { ok: false, error: 'channel_not_found' };
    // "One of these users is always the calling user, the other's ID is indicated by the user property."
    const user = members.find((m) => m !== BOT_USER) ?? BOT_USER;
    return {
      ok: true,
      channel: {
        id,
        created,
        is_archived: false,
        is_im: true,
        is_org_shared: false,
        context_team_id: 'T0LAB',
        user,
        is_user_deleted: false,
        priority: 0,
        ...flags,
      },
    };
  }
  if (mpim && !(listed ?? []).includes(BOT_USER)) return { ok: false, error: 'channel_not_found' };
  const name = mpim
    ? `mpdm-${(listed ?? [])
        .filter((m) => m !== BOT_USER)
        .map((m) => m.toLowerCase())
        .join('--')}-1`
    : id.toLowerCase();
  return {
    ok: true,
    channel: {
      id,
      name,
      name_normalized: name,
      created,
      creator: mpim ? (listed ?? [])[0] : 'UCREATOR',
      is_archived: false,
      is_general: false,
      is_channel: !mpim && id.startsWith('C'),
      is_group: !mpim && id.startsWith('G'),
      is_im: false,
      is_mpim: Boolean(mpim),
      is_private: Boolean(mpim) || id.startsWith('G'),
      is_shared: false,
      is_ext_shared: false,
      is_org_shared: false,
      is_pending_ext_shared: false,
      pending_shared: [],
      pending_connected_team_ids: [],
      shared_team_ids: ['T0LAB'],
      context_team_id: 'T0LAB',
      is_member: true,
      topic: { value: '', creator: '', last_set: 0 },
      purpose: { value: '', creator: '', last_set: 0 },
      ...flags,
    },
  };
}

// conversations.replies: oldest first, `limit` per page (default and maximum 1000 for internal
// apps), an opaque cursor in response_metadata.next_cursor and has_more while messages remain. A
// thread the fake does not know returns no messages (Slack would answer thread_not_found; tests
// seed what they read).
const REPLIES_MAX_LIMIT = 1000;

function repliesPage(messages: { ts: string }[], body: Body): Record<string, unknown> {
  const limit = Math.min(REPLIES_MAX_LIMIT, Math.max(1, Number(body.limit ?? REPLIES_MAX_LIMIT) || REPLIES_MAX_LIMIT));
  let start = 0;
  if (body.cursor !== undefined && body.cursor !== '') {
    const decoded = /^next:(\d+)$/.exec(Buffer.from(String(body.cursor), 'base64').toString('utf8'));
    if (!decoded) return { ok: false, error: 'invalid_cursor' };
    start = Number(decoded[1]);
  }
  const page = messages.slice(start, start + limit);
  const more = start + limit < messages.length;
  return {
    ok: true,
    messages: page,
    has_more: more,
    response_metadata: { next_cursor: more ? Buffer.from(`next:${start + limit}`).toString('base64') : '' },
  };
}
