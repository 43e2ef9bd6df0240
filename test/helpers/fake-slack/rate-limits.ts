// The limits Slack puts on how often labbot may send, on the fake's clock (tests move it on).
import type { Body } from './args.ts';
import { dmChannel } from './conversation.ts';

const RESPONSE_URL_POSTS = 5;
const RESPONSE_URL_TTL_MS = 30 * 60_000;
// chat.postMessage: 1 message per second per channel (Slack's documented rate; bursts are "not
// guaranteed"), beyond it 429 with Retry-After: 1, as the Web API answers.
const POST_INTERVAL_MS = 1000;

export type ResponseUrlGate = ReturnType<typeof responseUrlGate>;
export type PostPacing = ReturnType<typeof postPacing>;

/** response_url rules: at most 5 posts, none after 30 minutes (Slack answers 404 with a reason). */
export function responseUrlGate(now: () => number) {
  const issued = new Map<string, { at: number; posts: number }>();
  return {
    issue(id: string) {
      if (!issued.has(id)) issued.set(id, { at: now(), posts: 0 });
    },
    /** Counts a post on the URL, or returns why Slack refuses it. */
    check(id: string): string | undefined {
      const u = issued.get(id);
      if (!u) return 'invalid_url';
      if (now() - u.at > RESPONSE_URL_TTL_MS) return 'expired_url';
      if (u.posts >= RESPONSE_URL_POSTS) return 'used_url';
      u.posts += 1;
      return undefined;
    },
  };
}

/** chat.postMessage's pace per conversation (a user id as channel is the app's DM with them). */
export function postPacing(now: () => number) {
  const lastPost = new Map<string, number>();
  return {
    /** Retry-After seconds when a chat.postMessage to this channel comes too soon after the last accepted one. */
    retryAfter(body: Body): number | undefined {
      const last = lastPost.get(dmChannel(String(body.channel ?? '')));
      if (last !== undefined && now() - last < POST_INTERVAL_MS) return 1;
      return undefined;
    },
    /** An accepted post, in the conversation Slack answered with. */
    posted(channel: string) {
      lastPost.set(channel, now());
    },
  };
}
