// `/labbot ask|reindex|status|help`. Bolt's ack() is called before anything else (Slack gives 3 s);
// answers and progress then go to the command's response_url via respond().
import type { RespondFn, SlashCommand, webApi } from '@slack/bolt';
import { messages, type Language } from '../answer/messages.ts';
import { detectLanguage } from '../search/tokenize.ts';
import { ChromaUnavailableError } from '../store/chroma-store.ts';
import { entryFor } from '../store/activity.ts';
import { answerMessages, escapeMrkdwn, noticeMessage, resplitIfTooLong, type SlackMessage } from './format.ts';
import { deliver } from './mentions.ts';
import { slackText } from './messages.ts';
import { slackToPlain } from './slack-text.ts';
import { conversationText } from './conversation-texts.ts';
import { connectPolicy, connectRefusal } from './connect.ts';
import { groupsForChannel } from '../config.ts';
import { withShareButton } from './share.ts';
import { withDocLinks } from './source-links.ts';
import type { HandlerDeps } from './types.ts';
import { usersInfoLookup } from './user-names.ts';

async function ephemeral(respond: RespondFn, deps: HandlerDeps, msg: SlackMessage): Promise<void> {
  try {
    await respond({ response_type: 'ephemeral', replace_original: false, text: msg.text, blocks: msg.blocks });
  } catch (err) {
    deps.log.error({ err: (err as Error).message }, 'response_url post failed');
  }
}

const notice = (respond: RespondFn, deps: HandlerDeps, mrkdwn: string) => ephemeral(respond, deps, noticeMessage(mrkdwn));

/** Channels decide access; in a DM with the bot (channel id D…) the user's own grants apply. */
function accessFor(command: SlashCommand): { channel?: string; user?: string } {
  return command.channel_id.startsWith('D') ? { user: command.user_id } : { channel: command.channel_id };
}

/** Posts one response_url takes (Slack answers used_url after the fifth). */
const RESPONSE_URL_POSTS = 5;

/**
 * A private answer, never cut short: up to 5 messages go to the response_url; a longer answer
 * sends its first 4 there and the rest with chat.postEphemeral (also seen by the asker alone).
 * Where that fails (labbot is not in the channel, a DM between people) the rest goes to the
 * asker's direct messages with labbot, and the fifth response_url post says so.
 */
async function answerPrivately(deps: HandlerDeps, command: SlashCommand, respond: RespondFn, client: webApi.WebClient | undefined, msgs: SlackMessage[], lang: Language): Promise<void> {
  if (msgs.length <= RESPONSE_URL_POSTS || !client) {
    if (msgs.length > RESPONSE_URL_POSTS) deps.log.error({ messages: msgs.length }, 'no Web API client: a private answer longer than response_url takes loses its tail');
    for (const m of msgs) await ephemeral(respond, deps, m);
    return;
  }
  const viaUrl = msgs.slice(0, RESPONSE_URL_POSTS - 1);
  let rest = msgs.slice(RESPONSE_URL_POSTS - 1);
  for (const m of viaUrl) await ephemeral(respond, deps, m);
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
      deps.log.warn({ channel: command.channel_id, err: (err as { data?: { error?: string } }).data?.error ?? (err as Error).message }, 'chat.postEphemeral failed; the rest of the private answer goes by direct message');
      break;
    }
  }
  if (!rest.length) return;
  // A user id as channel posts in the app's direct conversation with that user; deliver() re-splits
  // what Slack finds too long and falls back to plain text, and says when nothing got through.
  let lost = false;
  const where = { channel: command.user_id, threadTs: undefined, placeholderTs: undefined, eventId: `slash:${command.trigger_id}` };
  await deliver(client, deps, { ...where, undeliverable: async () => void (lost = true) }, rest);
  await notice(respond, deps, escapeMrkdwn(lost ? conversationText(lang).restUndeliverable : conversationText(lang).restByDm));
}

async function ask(deps: HandlerDeps, command: SlashCommand, respond: RespondFn, question: string, client?: webApi.WebClient): Promise<void> {
  const { app } = deps;
  let lang: Language = detectLanguage(question);
  if (!question) return notice(respond, deps, escapeMrkdwn(messages(lang).emptyQuestion));
  if (app.catalog.chunkCount === 0) return notice(respond, deps, slackText(lang).indexEmpty);
  // Slack Connect, decided by the one guard (connect.ts) for this conversation: the rule of mentions.
  let access = accessFor(command);
  const verdict = client ? await deps.connect.verdict(client, command.channel_id) : ({ shared: true, checked: false } as const);
  const policy = connectPolicy(verdict, deps.config.slackConnect);
  if (policy.kind === 'refuse') return notice(respond, deps, connectRefusal(policy, lang));
  if (policy.kind === 'public-only') access = {};
  const t0 = performance.now();
  try {
    const result = withDocLinks(deps, await app.ask(question, access), access);
    lang = result.language;
    let recordId: string | undefined;
    try {
      recordId = await deps.activity.recordQuestion(
        entryFor(result, { source: 'slash', channel: command.channel_id, user: command.user_id, question, latencyMs: performance.now() - t0 }),
      );
    } catch (err) {
      deps.log.warn({ err: (err as Error).message }, 'could not record the question');
    }
    let msgs = answerMessages(result, { recordId });
    if (recordId) {
      try {
        const view = { answer: result.answer, refused: result.refused, citations: result.citations, model: result.model, language: result.language };
        const groups = groupsForChannel(deps.config.access, access.channel, access.user);
        await deps.shares.save(recordId, { asker: command.user_id, channel: command.channel_id, question, view, groups });
        msgs = withShareButton(msgs, recordId, lang);
      } catch (err) {
        deps.log.warn({ err: (err as Error).message }, 'could not keep the answer for sharing; no Share button');
      }
    }
    await answerPrivately(deps, command, respond, client, msgs, lang);
  } catch (err) {
    const down = err instanceof ChromaUnavailableError;
    deps.log.error({ err, command: command.command, trigger: command.trigger_id }, 'slash ask failed');
    await notice(respond, deps, down ? slackText(lang).chromaDown : escapeMrkdwn(messages(lang).error));
  }
}

/** What slash handlers may need beyond respond(): a direct message to the user who ran the command. */
export interface SlashExtras {
  dm?: (user: string, mrkdwn: string) => Promise<void>;
  /** The Web API client: names of mentioned users, and the part of a long answer response_url cannot take. */
  client?: webApi.WebClient;
}

/**
 * A response_url takes at most 5 posts within 30 minutes: it gets the "queued" line and, once
 * every queued source is done, one summary. Progress goes to the admin by direct message.
 */
async function reindex(deps: HandlerDeps, command: SlashCommand, respond: RespondFn, target: string, extras: SlashExtras): Promise<void> {
  const lang = detectLanguage(command.text);
  if (!deps.config.admins.includes(command.user_id)) {
    deps.log.warn({ user: command.user_id }, 'non-admin tried /labbot reindex');
    return notice(respond, deps, slackText(lang).reindexAdminsOnly);
  }
  const results: string[] = [];
  let expected = Number.POSITIVE_INFINITY;
  let queuedPosted: Promise<void> = Promise.resolve();
  let summarised = false;
  const summarise = () => {
    if (summarised || results.length < expected) return;
    summarised = true;
    const text = [`*${escapeMrkdwn(conversationText(lang).reindexDone)}*`, ...results.map((r) => `• ${escapeMrkdwn(r)}`)].join('\n');
    void queuedPosted.then(() => notice(respond, deps, text));
  };
  const progress = (line: string) => {
    if (!extras.dm) return;
    extras.dm(command.user_id, `${escapeMrkdwn(conversationText(lang).reindexProgressByDm)}: ${escapeMrkdwn(line)}`).catch((err: Error) =>
      deps.log.warn({ err: err.message }, 'reindex progress DM failed'),
    );
  };
  try {
    const { queued, message } = await deps.reindexer.reindex(target || 'all', command.user_id, (text, final) => {
      if (!final) return progress(text);
      results.push(text);
      summarise();
    });
    queuedPosted = notice(respond, deps, escapeMrkdwn(message));
    expected = queued.length;
    summarise();
    await queuedPosted;
  } catch (err) {
    await notice(respond, deps, escapeMrkdwn((err as Error).message));
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
  if (st.queue) lines.push(`Queue: ${Object.entries(st.queue).map(([k, v]) => `${escapeMrkdwn(k)} ${v}`).join(', ') || 'empty'}`);
  return lines.join('\n');
}

export async function handleSlashCommand(deps: HandlerDeps, command: SlashCommand, respond: RespondFn, extras: SlashExtras = {}): Promise<void> {
  const names = extras.client ? await deps.userNames.namesFor([command.text], usersInfoLookup(extras.client)) : undefined;
  const text = slackToPlain(command.text, names).trim();
  const [sub = '', ...rest] = text.split(/\s+/);
  const arg = rest.join(' ').trim();
  switch (sub.toLowerCase()) {
    case 'ask':
      return ask(deps, command, respond, arg, extras.client);
    case 'reindex':
      return reindex(deps, command, respond, arg, extras);
    case 'status':
      return notice(respond, deps, await statusText(deps));
    default:
      return notice(respond, deps, slackText(detectLanguage(text)).help);
  }
}
