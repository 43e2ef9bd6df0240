// `/labbot <question>`, `/labbot ask|reindex|status|help`. Bolt's ack() is called before anything
// else (Slack gives 3 s); a question is acknowledged with a private "Searching…" that repeats it
// (the ack's own body: shown at once, costing none of response_url's 5 posts). Slack cannot
// replace or delete a command's acknowledgement, so it stays above the answer as the question
// asked. Answers, notices and progress go to the command's response_url via respond().
import type { RespondFn, SlashCommand, webApi } from '@slack/bolt';
import { messages, type Language } from '../answer/messages.ts';
import { detectLanguage } from '../search/tokenize.ts';
import { ChromaUnavailableError } from '../store/chroma-store.ts';
import { answerMessages, escapeMrkdwn, noticeMessage, resplitIfTooLong, type SlackMessage } from './format.ts';
import { deliver } from './answer-question.ts';
import { slackStrings } from './strings.ts';
import { slackToPlain } from './slack-text.ts';
import { askAs } from '../ask.ts';
import { slackFacts } from './asker-facts.ts';
import { slackOutcomeText } from './answer-question.ts';
import { withShareButton } from './share.ts';
import { withDocLinks } from './source-links.ts';
import type { ProgressMessage } from './progress-message.ts';
import type { ReindexUpdate } from '../queue/reindexer.ts';
import type { HandlerDeps } from './types.ts';
import { usersInfoLookup } from './user-names.ts';

/** Private replies on the command's response_url (each a new ephemeral message; Slack takes 5). */
export interface PrivateReplies {
  send(msg: SlackMessage): Promise<void>;
}

function privateReplies(respond: RespondFn, deps: HandlerDeps): PrivateReplies {
  return {
    async send(msg) {
      try {
        await respond({ response_type: 'ephemeral', replace_original: false, text: msg.text, blocks: msg.blocks });
      } catch (err) {
        deps.log.error({ err: (err as Error).message }, 'response_url post failed');
      }
    },
  };
}

const notice = (reply: PrivateReplies, mrkdwn: string) => reply.send(noticeMessage(mrkdwn));

/** Posts one response_url takes (Slack answers used_url after the fifth). */
const RESPONSE_URL_POSTS = 5;

/**
 * A private answer, never cut short: up to 5 messages go to the response_url; a longer answer
 * sends its first 4 there and the rest with chat.postEphemeral (also seen by the asker alone).
 * Where that fails (labbot is not in the channel, a DM between people) the rest goes to the
 * asker's direct messages with labbot, and the fifth response_url post says so.
 */
async function answerPrivately(
  deps: HandlerDeps,
  command: SlashCommand,
  reply: PrivateReplies,
  client: webApi.WebClient | undefined,
  msgs: SlackMessage[],
  lang: Language,
): Promise<void> {
  if (msgs.length <= RESPONSE_URL_POSTS || !client) {
    if (msgs.length > RESPONSE_URL_POSTS)
      deps.log.error({ messages: msgs.length }, 'no Web API client: a private answer longer than response_url takes loses its tail');
    for (const m of msgs) await reply.send(m);
    return;
  }
  const viaUrl = msgs.slice(0, RESPONSE_URL_POSTS - 1);
  let rest = msgs.slice(RESPONSE_URL_POSTS - 1);
  for (const m of viaUrl) await reply.send(m);
  while (rest.length) {
    try {
      await client.chat.postEphemeral({ channel: command.channel_id, user: command.user_id, text: rest[0].text, blocks: rest[0].blocks });
      rest = rest.slice(1);
    } catch (err) {
      const smaller = resplitIfTooLong(err, rest[0]); // Slack counted more than we did: smaller parts, never truncated
      if (smaller) {
        rest = [...smaller, ...rest.slice(1)];
        continue;
      }
      deps.log.warn(
        { channel: command.channel_id, err: (err as { data?: { error?: string } }).data?.error ?? (err as Error).message },
        'chat.postEphemeral failed; the rest of the private answer goes by direct message',
      );
      break;
    }
  }
  if (!rest.length) return;
  // A user id as channel posts in the app's direct conversation with that user; deliver() re-splits
  // what Slack finds too long and falls back to plain text, and says when nothing got through.
  let lost = false;
  const where = { channel: command.user_id, threadTs: undefined, placeholderTs: undefined, eventId: `slash:${command.trigger_id}` };
  await deliver(client, deps, { ...where, undeliverable: async () => void (lost = true) }, rest);
  await notice(reply, escapeMrkdwn(lost ? slackStrings(lang).restUndeliverable : slackStrings(lang).restByDm));
}

async function ask(
  deps: HandlerDeps,
  command: SlashCommand,
  reply: PrivateReplies,
  question: string,
  client?: webApi.WebClient,
): Promise<void> {
  const { app } = deps;
  let lang: Language = detectLanguage(question);
  // Whose grants apply and Slack Connect, from Slack as for a mention (asker-facts.ts); the rule is the ask flow's.
  const facts = await slackFacts(deps, client, { surface: 'slash', channel: command.channel_id, user: command.user_id });
  const outcome = await askAs(
    { ask: app.ask, chunkCount: () => app.catalog.chunkCount, activity: deps.activity, config: deps.config, log: deps.log },
    { question, facts },
  );
  if (outcome.kind !== 'answered') return notice(reply, slackOutcomeText(outcome, lang));
  try {
    const access = outcome.decision.access;
    const result = withDocLinks(deps, outcome.result, access);
    lang = result.language;
    const { recordId } = outcome;
    let msgs = answerMessages(result, { recordId });
    if (recordId) {
      try {
        const view = {
          answer: result.answer,
          refused: result.refused,
          citations: result.citations,
          model: result.model,
          language: result.language,
        };
        await deps.shares.save(recordId, {
          asker: command.user_id,
          channel: command.channel_id,
          question,
          view,
          groups: outcome.decision.groups,
        });
        msgs = withShareButton(msgs, recordId, lang);
      } catch (err) {
        deps.log.warn({ err: (err as Error).message }, 'could not keep the answer for sharing; no Share button');
      }
    }
    await answerPrivately(deps, command, reply, client, msgs, lang);
  } catch (err) {
    const down = err instanceof ChromaUnavailableError;
    deps.log.error({ err, command: command.command, trigger: command.trigger_id }, 'slash ask failed');
    await notice(reply, down ? slackStrings(lang).chromaDown : escapeMrkdwn(messages(lang).error));
  }
}

/** What slash handlers may need beyond respond(). */
export interface SlashExtras {
  /** A message in the user's direct messages with labbot that shows progress, edited in place (progress-message.ts). */
  progressTo?: (user: string) => ProgressMessage;
  /** The Web API client: names of mentioned users, and the part of a long answer response_url cannot take. */
  client?: webApi.WebClient;
}

/** The re-sync's lines, one per source in the order queued, under a heading. */
function reindexMessage(_lang: Language, heading: string, lines: Map<string, string>, seconds?: number): SlackMessage {
  const head = `*${escapeMrkdwn(heading)}*${seconds === undefined ? '' : ` · ${seconds} s`}`;
  return noticeMessage([head, ...[...lines.values()].map((l) => `• ${escapeMrkdwn(l)}`)].join('\n'));
}

/**
 * A response_url takes at most 5 posts within 30 minutes, so it gets only the "queued" line and,
 * once every queued source is done, the summary (privately, in the channel where the command
 * ran). Progress is one message in the admin's direct messages with labbot, edited as sources
 * move on (at most every few seconds) and ending as the same summary, which stays there when a
 * re-sync outlasts the response_url's 30 minutes.
 */
async function reindex(
  deps: HandlerDeps,
  command: SlashCommand,
  reply: PrivateReplies,
  target: string,
  extras: SlashExtras,
): Promise<void> {
  const lang = detectLanguage(command.text);
  if (!deps.config.admins.includes(command.user_id)) {
    deps.log.warn({ user: command.user_id }, 'non-admin tried /labbot reindex');
    return notice(reply, slackStrings(lang).reindexAdminsOnly);
  }
  const t0 = Date.now();
  const lines = new Map<string, string>();
  const finals = new Set<string>();
  const progress = extras.progressTo?.(command.user_id);
  let expected: string[] | undefined;
  let queuedPosted: Promise<void> = Promise.resolve();
  let summarised = false;
  const elapsed = () => Math.round((Date.now() - t0) / 1000);
  const summarise = () => {
    if (summarised || !expected || !expected.every((s) => finals.has(s))) return;
    summarised = true;
    const summary = reindexMessage(lang, slackStrings(lang).reindexDone, lines, elapsed());
    void progress?.finish(summary);
    void queuedPosted.then(() => reply.send(summary));
  };
  const onUpdate = (u: ReindexUpdate) => {
    if (finals.has(u.source)) return;
    lines.set(u.source, u.text);
    if (u.final) finals.add(u.source);
    if (!summarised) progress?.set(reindexMessage(lang, slackStrings(lang).reindexProgressByDm, lines, elapsed()));
    summarise();
  };
  try {
    const { queued, message } = await deps.reindexer.reindex(target || 'all', command.user_id, onUpdate);
    queuedPosted = notice(reply, escapeMrkdwn(message));
    expected = queued;
    summarise();
    await queuedPosted;
  } catch (err) {
    await notice(reply, escapeMrkdwn((err as Error).message));
  }
}

export async function statusText(deps: HandlerDeps): Promise<string> {
  const { app } = deps;
  const stats = app.catalog.stats();
  const st = await deps.reindexer.status().catch((err: Error) => {
    deps.log.warn({ err: err.message }, 'reindexer status failed');
    return { lastSync: {} as Record<string, string>, queue: undefined };
  });
  const ids = new Set([...Object.keys(stats.bySource), ...deps.config.sources.map((s) => s.id)]);
  const lines = [`*Index* \`${escapeMrkdwn(app.version)}\`: ${stats.documents} documents, ${stats.chunks} chunks`];
  for (const id of [...ids].sort()) {
    const s = stats.bySource[id];
    const last = st.lastSync[id] ? `last sync ${st.lastSync[id]}` : 'no sync since start';
    lines.push(`• *${escapeMrkdwn(id)}*: ${s?.documents ?? 0} documents, ${s?.chunks ?? 0} chunks (${last})`);
  }
  if (st.queue)
    lines.push(
      `Queue: ${
        Object.entries(st.queue)
          .map(([k, v]) => `${escapeMrkdwn(k)} ${v}`)
          .join(', ') || 'empty'
      }`,
    );
  return lines.join('\n');
}

/** What a `/labbot` command asks for. */
export type SlashRoute = { kind: 'help' } | { kind: 'status' } | { kind: 'reindex'; target: string } | { kind: 'ask'; question: string };

/**
 * The one rule for reading `/labbot <text>` (documented in docs/slack.md): `ask …` is always a
 * question; a first word `help` or `status` (any case, trailing ?!. allowed) is that subcommand
 * only when nothing follows it; `reindex` only when at most one word follows (a source id or
 * `all`). Anything else is a question, so "status of the TP53 antibody order?" or "help me
 * plan a qPCR" are answered; empty text is the help. A question that must start with one of those
 * words alone ("/labbot status?") can be asked as `/labbot ask status?`.
 */
export function routeSlashCommand(plain: string): SlashRoute {
  const text = plain.trim();
  if (!text) return { kind: 'help' };
  const [first = '', ...rest] = text.split(/\s+/);
  const word = first.toLowerCase();
  if (word === 'ask') return { kind: 'ask', question: rest.join(' ').trim() };
  const bare = word.replace(/[?!.]+$/, '');
  if (rest.length === 0 && (bare === 'help' || bare === 'status')) return { kind: bare };
  if (word === 'reindex' && rest.length <= 1) return { kind: 'reindex', target: rest[0] ?? '' };
  return { kind: 'ask', question: text };
}

/** A /labbot question cut short by a restart: its asker hears so privately, under their "Searching…". */
export function restartingReply(question: string): {
  response_type: 'ephemeral';
  replace_original: false;
  text: string;
  blocks: SlackMessage['blocks'];
} {
  return {
    response_type: 'ephemeral',
    replace_original: false,
    ...noticeMessage(escapeMrkdwn(slackStrings(detectLanguage(question)).restarting)),
  };
}

/**
 * The private "Searching…" a question is acknowledged with: the question itself (a command is not
 * echoed anywhere else, and this message stays above the answer) and, in busy moments, the queue
 * position.
 */
export function searchingAck(
  question: string,
  position: number,
): { response_type: 'ephemeral'; text: string; blocks: SlackMessage['blocks'] } {
  const lang = detectLanguage(question);
  const working = escapeMrkdwn(messages(lang).working) + (position > 0 ? ` ${escapeMrkdwn(slackStrings(lang).queued(position))}` : '');
  return { response_type: 'ephemeral', ...noticeMessage(`>${escapeMrkdwn(question.replace(/\s+/g, ' '))}\n${working}`) };
}

export async function handleSlashCommand(
  deps: HandlerDeps,
  command: SlashCommand,
  respond: RespondFn,
  extras: SlashExtras = {},
): Promise<void> {
  const names = extras.client ? await deps.userNames.namesFor([command.text], usersInfoLookup(extras.client)) : undefined;
  const text = slackToPlain(command.text, names).trim();
  const route = routeSlashCommand(text);
  switch (route.kind) {
    case 'ask':
      return ask(deps, command, privateReplies(respond, deps), route.question, extras.client);
    case 'reindex':
      return reindex(deps, command, privateReplies(respond, deps), route.target, extras);
    case 'status':
      return notice(privateReplies(respond, deps), await statusText(deps));
    default:
      return notice(privateReplies(respond, deps), slackStrings(detectLanguage(text)).help);
  }
}
