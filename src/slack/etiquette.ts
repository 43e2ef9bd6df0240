// The thread etiquette at the edge: reads a thread's follow-up window from Redis, closes it when
// someone else speaks, and asks reply-intent.ts (pure) whether an untagged reply is for labbot.
import type { HandlerDeps } from './types.ts';
import { answersUntaggedReply } from './reply-intent.ts';

export async function untaggedReplyIsForLabbot(
  deps: Pick<HandlerDeps, 'threads' | 'config' | 'log'>,
  reply: { channel: string; threadTs: string; user: string | undefined; text: string; ts: string },
  botUserId: string | undefined,
): Promise<boolean> {
  const window = await deps.threads.followUp(reply.channel, reply.threadTs);
  // Someone else joined in: the thread is the people's conversation again, mentions only.
  if (window && reply.user && reply.user !== window.user) await deps.threads.closeFollowUp(reply.channel, reply.threadTs);
  const verdict = answersUntaggedReply(window, reply, { now: Date.now(), windowMs: deps.config.followUpMinutes * 60_000, botUserId });
  deps.log.debug({ channel: reply.channel, ts: reply.ts, answer: verdict.answer, reason: verdict.reason }, 'untagged thread reply');
  return verdict.answer;
}
