// Answering a question asked in Slack (an @mention in a channel, a follow-up, a direct message):
// gather the thread, ask, and post the answer as the message that notifies (streamed as it is
// written when there is a model), or replace an earlier answer when the question was edited.
// While labbot works, progress.ts shows a status line instead of a "Searching…" message.
// Whoever asked always gets an answer or a reason, in their language.
import type { webApi } from '@slack/bolt';
import type { HistoryTurn } from '../answer/answer.ts';
import { messages, type Language } from '../answer/messages.ts';
import { ChromaUnavailableError } from '../store/chroma-store.ts';
import type { ActivitySource } from '../store/activity.ts';
import { askAs, type AllowedAccess, type AskOutcome } from '../ask.ts';
import { slackRefusalText } from './asker-facts.ts';
import { standaloneQuestion } from '../answer/followup.ts';
import { answerMessages, blocksAsMrkdwn, escapeMrkdwn, noticeMessage, resplitIfTooLong, splitText, type SlackMessage } from './format.ts';
import { slackStrings } from './strings.ts';
import { slackToPlain, type UserNames } from './slack-text.ts';
import { usersInfoLookup } from './user-names.ts';
import type { Progress } from './progress.ts';
import { createAnswerStream } from './stream.ts';
import { withDocLinks } from './source-links.ts';
import type { HandlerDeps } from './types.ts';

type WebClient = webApi.WebClient;

/** A question as a listener hands it to the runner: where, by whom, what; the runner decides what it may read. */
export type AskedQuestion = Omit<SlackQuestion, 'access' | 'decision' | 'lang'>;

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
  /**
   * What the answer may read: the conversation's grants, or the asker's in labbot's own DM with
   * them, never both; {} is `public` only. Set by the question runner (audience.ts), never by a listener.
   */
  access: { channel?: string; user?: string };
  /** The ask flow's decision the access comes from (src/ask.ts). */
  decision: AllowedAccess;
  /** The question's language, detected once by the runner (its refusals and notices used it already). */
  lang: Language;
  /** Lines of labbot's own mrkdwn shown above the answer (attachments not read, Slack Connect). */
  notes?: string[];
  /** The asker's team (recipient of a streamed answer outside a DM). */
  team?: string;
  /** Where labbot cannot post in the conversation (not a member): another way to reach the asker. */
  undeliverable?: (msg: SlackMessage) => Promise<void>;
  /** Names of the users mentioned in `text` (users.info), once looked up; "@user" without them. */
  names?: UserNames;
  /** The messages of an earlier answer to this question (it was edited): the new answer replaces them. */
  replaceTs?: string[];
}

/** The question text as asked, without the mention of labbot. */
export const questionText = (q: Pick<SlackQuestion, 'text' | 'botUserId' | 'names'>) =>
  slackToPlain(stripMention(q.text, q.botUserId), q.names);

/** Names for the users mentioned in Slack texts, through the deps' cached users.info. */
export const namesIn = (client: WebClient, deps: Pick<HandlerDeps, 'userNames'>) => (texts: string[]) =>
  deps.userNames.namesFor(texts, usersInfoLookup(client));

const MAX_HISTORY = 20;

/** Removes mentions of the bot ("<@U123>" or "<@U123|labbot>") and a leading mention of anyone. */
function stripMention(text: string, botUserId: string | undefined): string {
  let t = text;
  if (botUserId) t = t.replace(new RegExp(`<@${botUserId}(?:\\|[^>]*)?>`, 'g'), ' ');
  return t
    .replace(/^\s*<@[A-Z0-9]+(?:\|[^>]*)?>/, ' ')
    .replace(/\s+/g, ' ')
    .trim();
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
    const res = await client.conversations.replies({
      channel: q.channel,
      ts: q.threadTs,
      limit: REPLIES_PAGE,
      ...(cursor ? { cursor } : {}),
    });
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

/** A post that waits its turn in the channel (1 message per second; pacer.ts) when the deps have a pacer. */
const paced = <T>(deps: Pick<HandlerDeps, 'pacer'>, channel: string, post: () => Promise<T>): Promise<T> =>
  deps.pacer ? deps.pacer.run(channel, post) : post();

/**
 * Posts the messages (the first replaces `placeholderTs` when given: a streamed preview or an
 * earlier answer); falls back to plain text on a platform error. Returns the ts of every message
 * that now shows the answer.
 */
export async function deliver(
  client: WebClient,
  deps: HandlerDeps,
  where: {
    channel: string;
    threadTs: string | undefined;
    placeholderTs: string | undefined;
    eventId: string;
    undeliverable?: (msg: SlackMessage) => Promise<void>;
  },
  msgs: SlackMessage[],
): Promise<string[]> {
  const shown: string[] = [];
  for (let i = 0; i < msgs.length; i++) {
    const m = msgs[i];
    const update = i === 0 && where.placeholderTs !== undefined;
    try {
      if (update) {
        await client.chat.update({ channel: where.channel, ts: where.placeholderTs!, text: m.text, blocks: m.blocks });
        shown.push(where.placeholderTs!);
      } else {
        const res = await paced(deps, where.channel, () =>
          client.chat.postMessage({
            channel: where.channel,
            thread_ts: where.threadTs,
            text: m.text,
            blocks: m.blocks,
            unfurl_links: false,
          }),
        );
        if (res.ts) shown.push(res.ts);
      }
    } catch (err) {
      const smaller = resplitIfTooLong(err, m); // Slack counted more than we did: post it in smaller parts, never truncated
      if (smaller) {
        msgs.splice(i--, 1, ...smaller);
        continue;
      }
      deps.log.error(
        { eventId: where.eventId, err: slackError(err), method: update ? 'chat.update' : 'chat.postMessage' },
        'Slack rejected a reply',
      );
      shown.push(...(await postPlainText(client, deps, where, m)));
    }
  }
  return shown;
}

/**
 * The new answer to an edited question, in place of the old one: its messages are updated in
 * order, further new ones posted in the thread, old ones left over deleted. Returns the new ts list.
 */
async function deliverReplacing(
  client: WebClient,
  deps: HandlerDeps,
  where: { channel: string; threadTs: string | undefined; eventId: string; undeliverable?: (msg: SlackMessage) => Promise<void> },
  oldTs: string[],
  msgs: SlackMessage[],
): Promise<string[]> {
  const shown: string[] = [];
  const n = Math.min(oldTs.length, msgs.length);
  for (let i = 0; i < n; i++) shown.push(...(await deliver(client, deps, { ...where, placeholderTs: oldTs[i] }, [msgs[i]])));
  if (msgs.length > n) shown.push(...(await deliver(client, deps, { ...where, placeholderTs: undefined }, msgs.slice(n))));
  for (const ts of oldTs.slice(n)) {
    await client.chat
      .delete({ channel: where.channel, ts })
      .catch((err: unknown) =>
        deps.log.warn({ eventId: where.eventId, err: slackError(err) }, 'could not delete a message of the earlier answer'),
      );
  }
  return shown;
}

/**
 * Never silent, never cut short: the blocks were refused (or the update failed), so the whole
 * message goes as text alone, in as many posts as it takes (each within Slack's `text` limit).
 */
async function postPlainText(
  client: WebClient,
  deps: HandlerDeps,
  where: Parameters<typeof deliver>[2],
  m: SlackMessage,
): Promise<string[]> {
  const pieces = splitText(blocksAsMrkdwn(m.blocks) || m.text);
  const posted: string[] = [];
  try {
    for (const text of pieces) {
      const res = await paced(deps, where.channel, () =>
        client.chat.postMessage({ channel: where.channel, thread_ts: where.threadTs, text, unfurl_links: false }),
      );
      if (res.ts) posted.push(res.ts);
    }
  } catch (err2) {
    deps.log.error({ eventId: where.eventId, err: slackError(err2), pieces: pieces.length }, 'could not post even a plain-text reply');
    await where
      .undeliverable?.(m)
      .catch((err3: Error) => deps.log.error({ eventId: where.eventId, err: err3.message }, 'no way left to reach the asker'));
  }
  return posted;
}

/** Puts labbot's own notes (already mrkdwn) above the first message of the answer. */
function withNotes(msgs: SlackMessage[], notes: string[] | undefined): SlackMessage[] {
  if (!notes?.length || msgs.length === 0) return msgs;
  const [first, ...rest] = msgs;
  return [
    { ...first, blocks: [{ type: 'context', elements: notes.map((text) => ({ type: 'mrkdwn' as const, text })) }, ...first.blocks] },
    ...rest,
  ];
}

/** Streamed where Slack streams: a model writes the answer, in a thread, to a known asker (and team outside DMs). */
function streamable(deps: HandlerDeps, q: SlackQuestion): q is SlackQuestion & { threadTs: string } {
  if (!deps.app.chat || !q.threadTs || q.notes?.length || q.replaceTs) return false;
  return q.channel.startsWith('D') || Boolean(q.user && q.team);
}

/**
 * Answers a question in Slack: gathers the thread, asks, records, and posts the answer (or, for an
 * edited question, replaces the earlier one). `progress` shows labbot at work meanwhile. Returns
 * the ts of the messages that show the answer.
 */
export async function answerSlackQuestion(client: WebClient, deps: HandlerDeps, q: SlackQuestion, progress?: Progress): Promise<string[]> {
  const { app, log } = deps;
  // Mentioned users by name, looked up here (after the status is shown, so it is not held up by users.info).
  if (!q.names) q = { ...q, names: await namesIn(client, deps)([stripMention(q.text, q.botUserId)]) };
  const question = questionText(q);
  let lang: Language = q.lang;
  const where = {
    channel: q.channel,
    threadTs: q.threadTs,
    placeholderTs: undefined as string | undefined,
    eventId: q.eventId,
    undeliverable: q.undeliverable,
  };
  const send = async (msgs: SlackMessage[]): Promise<string[]> => {
    const shown = q.replaceTs?.length
      ? await deliverReplacing(client, deps, where, q.replaceTs, msgs)
      : await deliver(client, deps, where, msgs);
    if (shown.some((ts) => !q.replaceTs?.includes(ts))) progress?.posted();
    return shown;
  };
  if (!question) return send([noticeMessage(escapeMrkdwn(messages(lang).emptyQuestion))]);

  try {
    if (app.catalog.chunkCount === 0) return await send([noticeMessage(slackStrings(lang).indexEmpty)]);
    let history: HistoryTurn[] = [];
    if (q.inThread) {
      try {
        history = await threadHistory(client, q, q.replaceTs ?? [], namesIn(client, deps));
      } catch (err) {
        log.warn({ eventId: q.eventId, err: slackError(err) }, 'could not read the thread; answering without its history');
      }
    }
    const rewritten = history.length
      ? await standaloneQuestion({ chat: deps.app.chat, log: deps.log }, question, history)
      : { question, rewritten: false, carried: [] };
    if (rewritten.rewritten) log.debug({ eventId: q.eventId, question, rewritten: rewritten.question }, 'follow-up rewritten');
    // With a model, the answer is streamed as it is written (not when labbot adds notes above it,
    // nor when it replaces an earlier answer); the checked answer replaces the preview when they differ.
    let streamTs: string | undefined;
    const stream = streamable(deps, q)
      ? createAnswerStream(
          client,
          { channel: q.channel, threadTs: q.threadTs, user: q.user, team: q.team },
          {
            onError: (err) =>
              log.warn({ eventId: q.eventId, err: slackError(err) }, 'streaming the answer failed; it will be posted when complete'),
            onStarted: (ts) => {
              streamTs = ts;
              progress?.streaming(ts);
              progress?.posted();
            },
          },
        )
      : undefined;
    const outcome = await askAs(
      { ask: app.ask, chunkCount: () => app.catalog.chunkCount, activity: deps.activity, config: deps.config, log },
      {
        question,
        searchAs: rewritten.question,
        facts: { surface: q.source === 'dm' ? 'dm' : q.inThread ? 'thread' : 'mention', channel: q.channel, user: q.user },
        decision: q.decision,
        history,
        onToken: stream ? (delta: string) => stream.push(delta) : undefined,
        messageTs: q.eventTs,
        threadTs: q.threadTs,
      },
    );
    if (outcome.kind !== 'answered') return await send([noticeMessage(slackOutcomeText(outcome, lang))]);
    const result = withDocLinks(deps, outcome.result, q.access);
    const { recordId } = outcome;
    lang = result.language;
    const msgs = withNotes(answerMessages(result, { recordId, nativeFeedback: true }), q.notes);
    if (stream?.started()) {
      try {
        const { ts, replace } = await stream.finish(result, recordId);
        if (ts && !replace) return [ts];
        streamTs = ts ?? streamTs;
      } catch (err) {
        log.warn({ eventId: q.eventId, err: slackError(err) }, 'could not end the stream; posting the answer');
      }
      // Checking the citations changed the text (or the stream broke): the checked answer replaces the preview.
      if (streamTs) return await deliver(client, deps, { ...where, placeholderTs: streamTs }, msgs);
    }
    return await send(msgs);
  } catch (err) {
    const down = err instanceof ChromaUnavailableError;
    log.error({ eventId: q.eventId, err }, down ? 'Chroma unavailable while answering' : 'answering failed');
    const text = down ? slackStrings(lang).chromaDown : escapeMrkdwn(messages(lang).error);
    return send([noticeMessage(text)]);
  }
}

/** What Slack shows for an ask that has no answer (the ask flow's outcome, src/ask.ts). */
export function slackOutcomeText(outcome: Exclude<AskOutcome, { kind: 'answered' }>, lang: Language): string {
  switch (outcome.kind) {
    case 'empty-index':
      return slackStrings(lang).indexEmpty;
    case 'unavailable':
      return slackStrings(lang).chromaDown;
    case 'empty-question':
      return escapeMrkdwn(messages(lang).emptyQuestion);
    case 'refused':
      return slackRefusalText(outcome.reason, lang);
    case 'failed':
      return escapeMrkdwn(messages(lang).error);
  }
}
