// Answering a question asked in Slack (an @mention in a channel or a direct message): post a
// placeholder at once, gather the thread, ask, then replace the placeholder with the answer.
// Whoever asked always gets an answer or a reason, in their language.
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { webApi } from '@slack/bolt';
import type { HistoryTurn } from '../answer/answer.ts';
import { messages, type Language } from '../answer/messages.ts';
import { detectLanguage } from '../search/tokenize.ts';
import { ChromaUnavailableError } from '../store/chroma-store.ts';
import { entryFor, type ActivitySource } from '../store/activity.ts';
import { rewriteFollowUp, type FollowUpRewrite } from './followup.ts';
import { answerMessages, escapeMrkdwn, noticeMessage, resplitIfTooLong, splitText, type SlackMessage } from './format.ts';
import { slackText } from './messages.ts';
import { slackToPlain, type UserNames } from './slack-text.ts';
import { usersInfoLookup } from './user-names.ts';
import { conversationText } from './conversation-texts.ts';
import { createAnswerStream } from './stream.ts';
import type { HandlerDeps } from './types.ts';

type WebClient = webApi.WebClient;

export interface SlackQuestion {
  eventId: string;
  channel: string;
  /** Thread to answer in; undefined posts at the top level (a DM that is not in a thread). */
  threadTs: string | undefined;
  /** Set when the question is itself inside a thread: earlier turns are history. */
  inThread: boolean;
  eventTs: string;
  user: string | undefined;
  text: string;
  botUserId: string | undefined;
  source: Extract<ActivitySource, 'slack' | 'dm'>;
  /** Access is decided by the channel for mentions and by the user for DMs, never both; {} is `public` only. */
  access: { channel?: string; user?: string };
  /** Lines of labbot's own mrkdwn shown above the answer (attachments not read, Slack Connect). */
  notes?: string[];
  /** The asker's team (recipient of a streamed answer outside a DM). */
  team?: string;
  /** Where labbot cannot post in the conversation (not a member): another way to reach the asker. */
  undeliverable?: (msg: SlackMessage) => Promise<void>;
  /** Names of the users mentioned in `text` (users.info), once looked up; "@user" without them. */
  names?: UserNames;
}

/** The question text as asked, without the mention of labbot. */
export const questionText = (q: Pick<SlackQuestion, 'text' | 'botUserId' | 'names'>) => slackToPlain(stripMention(q.text, q.botUserId), q.names);

/** Names for the users mentioned in Slack texts, through the deps' cached users.info. */
export const namesIn = (client: WebClient, deps: Pick<HandlerDeps, 'userNames'>) => (texts: string[]) => deps.userNames.namesFor(texts, usersInfoLookup(client));

/**
 * Posts the "Searching…" placeholder (with the queue position when answers are waiting) in the
 * question's thread and returns its ts. Called before the answer limiter, so a busy moment shows
 * at once that the question was heard. Nothing is posted for an empty question.
 */
export async function postPlaceholder(client: WebClient, deps: HandlerDeps, q: SlackQuestion, position: number): Promise<string | undefined> {
  const question = questionText(q);
  if (!question) return undefined;
  const lang = detectLanguage(question);
  const working = escapeMrkdwn(messages(lang).working) + (position > 0 ? ` ${escapeMrkdwn(conversationText(lang).queued(position))}` : '');
  // Replies in this thread are follow-ups from now on, mention or not.
  if (q.source === 'slack' && q.threadTs) await deps.threads.remember(q.channel, q.threadTs);
  try {
    const placeholder = await client.chat.postMessage({ channel: q.channel, thread_ts: q.threadTs, ...noticeMessage(working) });
    return placeholder.ts;
  } catch (err) {
    deps.log.warn({ eventId: q.eventId, err: slackError(err) }, 'could not post the placeholder; the answer will be a new message');
    return undefined;
  }
}

const MAX_HISTORY = 20;

/** Removes mentions of the bot ("<@U123>" or "<@U123|labbot>") and a leading mention of anyone. */
export function stripMention(text: string, botUserId: string | undefined): string {
  let t = text;
  if (botUserId) t = t.replace(new RegExp(`<@${botUserId}(?:\\|[^>]*)?>`, 'g'), ' ');
  return t.replace(/^\s*<@[A-Z0-9]+(?:\|[^>]*)?>/, ' ').replace(/\s+/g, ' ').trim();
}

function slackError(err: unknown): string {
  const e = err as { data?: { error?: string; response_metadata?: { messages?: string[] } }; message?: string };
  return [e.data?.error ?? e.message ?? String(err), ...(e.data?.response_metadata?.messages ?? [])].join(' ');
}

/** conversations.replies page size: Slack suggests at most 200 per page. */
const REPLIES_PAGE = 200;
/** Pages read at most (4,000 messages): a thread longer than that is not a conversation any more. */
const MAX_REPLY_PAGES = 20;

/**
 * The newest earlier turns of the thread, oldest first, without the current message and our
 * placeholder. conversations.replies returns the thread oldest first, one page at a time, and has
 * no "newest first" order: every page is read and only the tail is kept, so a thread of 300
 * messages is answered with its last turns, not its first ones.
 */
export async function threadHistory(
  client: WebClient,
  q: Pick<SlackQuestion, 'channel' | 'threadTs' | 'eventTs' | 'botUserId'>,
  skipTs: string[],
  /** Looks up the names of users mentioned in the turns; without it they read "@user". */
  names?: (texts: string[]) => Promise<UserNames>,
): Promise<HistoryTurn[]> {
  if (!q.threadTs) return [];
  const seen = new Set<string>([q.eventTs, ...skipTs]);
  let turns: { role: HistoryTurn['role']; slack: string }[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_REPLY_PAGES; page++) {
    const res = await client.conversations.replies({ channel: q.channel, ts: q.threadTs, limit: REPLIES_PAGE, ...(cursor ? { cursor } : {}) });
    for (const m of res.messages ?? []) {
      // The parent may come again on later pages; each message counts once.
      if (!m.ts || seen.has(m.ts)) continue;
      seen.add(m.ts);
      // The root of an assistant thread is Slack's title ("Chats from …"), not a turn.
      if ((m as { subtype?: string }).subtype === 'assistant_app_thread') continue;
      const text = (m.text ?? '').trim();
      if (!text) continue;
      const fromBot = Boolean(m.bot_id) || (q.botUserId !== undefined && m.user === q.botUserId);
      turns.push({ role: fromBot ? 'assistant' : 'user', slack: fromBot ? text : stripMention(text, q.botUserId) });
    }
    if (turns.length > MAX_HISTORY) turns = turns.slice(-MAX_HISTORY);
    cursor = res.response_metadata?.next_cursor || undefined;
    if (!res.has_more || !cursor) break;
  }
  // Converted once the tail is known, so only the users of the kept turns are looked up.
  turns = turns.slice(-MAX_HISTORY);
  const known = names ? await names(turns.map((t) => t.slack)) : undefined;
  return turns.map((t) => ({ role: t.role, text: slackToPlain(t.slack, known) }));
}

/** Asks the chat model (when there is one) to make the follow-up standalone; carry-over otherwise. */
async function rewrite(deps: HandlerDeps, question: string, history: HistoryTurn[]): Promise<FollowUpRewrite> {
  const fallback = rewriteFollowUp(question, history);
  const chat = deps.app.chat;
  if (!chat || !history.some((t) => t.role === 'user')) return fallback;
  try {
    const transcript = history.map((t) => `${t.role === 'user' ? 'User' : 'Assistant'}: ${t.text.slice(0, 1500)}`).join('\n');
    const reply = await chat.invoke(
      [
        new SystemMessage(
          'Rewrite the last question of a conversation as one standalone search question, in the same language. ' +
            'Keep names, identifiers and numbers exactly. Reply with the question only.',
        ),
        new HumanMessage(`${transcript}\n\nLast question: ${question}`),
      ],
      { signal: AbortSignal.timeout(15_000) },
    );
    const text = (typeof reply.content === 'string' ? reply.content : reply.content.map((c) => ('text' in c ? c.text : '')).join(''))
      .trim()
      .replace(/^["“]|["”]$/g, '');
    if (!text || text.length > 1000) return fallback;
    return { question: text, rewritten: text !== question, carried: [] };
  } catch (err) {
    deps.log.warn({ err: (err as Error).message }, 'follow-up rewrite by the model failed; using keyword carry-over');
    return fallback;
  }
}

/** A post that waits its turn in the channel (1 message per second; pacer.ts) when the deps have a pacer. */
const paced = <T>(deps: Pick<HandlerDeps, 'pacer'>, channel: string, post: () => Promise<T>): Promise<T> => (deps.pacer ? deps.pacer.run(channel, post) : post());

/** Posts (or, when there is a placeholder, updates to) the messages; falls back to plain text on a platform error. */
export async function deliver(
  client: WebClient,
  deps: HandlerDeps,
  where: { channel: string; threadTs: string | undefined; placeholderTs: string | undefined; eventId: string; undeliverable?: (msg: SlackMessage) => Promise<void> },
  msgs: SlackMessage[],
): Promise<void> {
  for (let i = 0; i < msgs.length; i++) {
    const m = msgs[i];
    const update = i === 0 && where.placeholderTs !== undefined;
    try {
      if (update) await client.chat.update({ channel: where.channel, ts: where.placeholderTs!, text: m.text, blocks: m.blocks });
      else await paced(deps, where.channel, () => client.chat.postMessage({ channel: where.channel, thread_ts: where.threadTs, text: m.text, blocks: m.blocks, unfurl_links: false }));
    } catch (err) {
      const smaller = resplitIfTooLong(err, m); // Slack counted more than we did: post it in smaller parts, never truncated
      if (smaller) { msgs.splice(i--, 1, ...smaller); continue; }
      deps.log.error({ eventId: where.eventId, err: slackError(err), method: update ? 'chat.update' : 'chat.postMessage' }, 'Slack rejected a reply');
      // Never silent: the blocks were refused (or the update failed), so send the text alone.
      const text = splitText(m.blocks.map((b) => (b.type === 'section' ? b.text.text : '')).join('\n\n') || m.text)[0] ?? m.text;
      try {
        await paced(deps, where.channel, () => client.chat.postMessage({ channel: where.channel, thread_ts: where.threadTs, text }));
      } catch (err2) {
        deps.log.error({ eventId: where.eventId, err: slackError(err2) }, 'could not post even a plain-text reply');
        await where.undeliverable?.(m).catch((err3: Error) => deps.log.error({ eventId: where.eventId, err: err3.message }, 'no way left to reach the asker'));
      }
    }
  }
}

/** Puts labbot's own notes (already mrkdwn) above the first message of the answer. */
function withNotes(msgs: SlackMessage[], notes: string[] | undefined): SlackMessage[] {
  if (!notes?.length || msgs.length === 0) return msgs;
  const [first, ...rest] = msgs;
  return [{ ...first, blocks: [{ type: 'context', elements: notes.map((text) => ({ type: 'mrkdwn' as const, text })) }, ...first.blocks] }, ...rest];
}

/**
 * Answers a question in Slack: gathers the thread, asks, records, and replaces the placeholder
 * (posted by postPlaceholder before the limiter; undefined means post a new message).
 */
export async function answerSlackQuestion(client: WebClient, deps: HandlerDeps, q: SlackQuestion, placeholderTs?: string): Promise<void> {
  const { app, log } = deps;
  // Mentioned users by name, looked up here (after the placeholder, so it is not held up by users.info).
  if (!q.names) q = { ...q, names: await namesIn(client, deps)([stripMention(q.text, q.botUserId)]) };
  const question = questionText(q);
  let lang: Language = detectLanguage(question);
  const where = { channel: q.channel, threadTs: q.threadTs, placeholderTs, eventId: q.eventId, undeliverable: q.undeliverable };
  if (!question) {
    await deliver(client, deps, where, [noticeMessage(escapeMrkdwn(messages(lang).emptyQuestion))]);
    return;
  }
  if (q.source === 'slack' && q.threadTs && !placeholderTs) await deps.threads.remember(q.channel, q.threadTs);

  const t0 = performance.now();
  try {
    if (app.catalog.chunkCount === 0) {
      await deliver(client, deps, where, [noticeMessage(slackText(lang).indexEmpty)]);
      return;
    }
    let history: HistoryTurn[] = [];
    if (q.inThread) {
      try {
        history = await threadHistory(client, q, where.placeholderTs ? [where.placeholderTs] : [], namesIn(client, deps));
      } catch (err) {
        log.warn({ eventId: q.eventId, err: slackError(err) }, 'could not read the thread; answering without its history');
      }
    }
    const rewritten = history.length ? await rewrite(deps, question, history) : { question, rewritten: false, carried: [] };
    if (rewritten.rewritten) log.debug({ eventId: q.eventId, question, rewritten: rewritten.question }, 'follow-up rewritten');
    // With a model, a direct or assistant-thread answer is streamed as it is written (not when
    // labbot adds notes above it). Channel answers stay one reviewed post: a thread others read
    // gets the checked answer, not a preview that may still change.
    const stream = app.chat && q.source === 'dm' && q.threadTs && !q.notes?.length
      ? createAnswerStream(client, { channel: q.channel, threadTs: q.threadTs, user: q.user, team: q.team }, (err) =>
          log.warn({ eventId: q.eventId, err: slackError(err) }, 'streaming the answer failed; it will be posted when complete'),
        )
      : undefined;
    const onToken = stream
      ? (delta: string) => {
          // The stream replaces the "Searching…" message as soon as there is text to show.
          if (!stream.started() && where.placeholderTs) {
            const ts = where.placeholderTs;
            where.placeholderTs = undefined;
            client.chat.delete({ channel: q.channel, ts }).catch((err: Error) => log.warn({ eventId: q.eventId, err: slackError(err) }, 'could not remove the placeholder'));
          }
          stream.push(delta);
        }
      : undefined;
    const result = await app.ask(rewritten.question, { ...q.access, history, onToken });
    lang = result.language;
    let recordId: string | undefined;
    try {
      recordId = await deps.activity.recordQuestion(
        entryFor(result, { source: q.source, channel: q.channel, user: q.user, question, searchedAs: rewritten.question, latencyMs: performance.now() - t0 }),
      );
    } catch (err) {
      // Losing a log line must not cost the user their answer; only the vote buttons go.
      log.warn({ eventId: q.eventId, err: (err as Error).message }, 'could not record the question');
    }
    const msgs = withNotes(answerMessages(result, { recordId }), q.notes);
    if (stream?.started()) {
      try {
        const { ts, replace } = await stream.finish(result, recordId);
        // Checking the citations changed the text (or the stream broke): the checked answer replaces it.
        if (replace || !ts) await deliver(client, deps, { ...where, placeholderTs: ts }, msgs);
        return;
      } catch (err) {
        log.warn({ eventId: q.eventId, err: slackError(err) }, 'could not end the stream; posting the answer');
      }
    }
    await deliver(client, deps, where, msgs);
  } catch (err) {
    const down = err instanceof ChromaUnavailableError;
    log.error({ eventId: q.eventId, err }, down ? 'Chroma unavailable while answering' : 'answering failed');
    const text = down ? slackText(lang).chromaDown : escapeMrkdwn(messages(lang).error);
    await deliver(client, deps, where, [noticeMessage(text)]);
  }
}
