// What labbot does on each Bolt event, command, action and shortcut: questions (mentions, DMs,
// thread replies, the "Ask labbot about this" shortcut), /labbot, feedback votes and Share. The
// work itself lives in answer-question.ts, slash.ts, feedback.ts and share.ts; these listeners route to it.
import type { App as BoltApp, AllMiddlewareArgs, MessageShortcut, SlackCommandMiddlewareArgs, webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import { detectLanguage } from '../search/tokenize.ts';
import type { Vote } from '../store/activity.ts';
import { slackStrings } from './strings.ts';
import type { QuestionRunner } from './conversation.ts';
import { untaggedReplyIsForLabbot } from './etiquette.ts';
import { handleFeedback, parseFeedbackValue } from './feedback.ts';
import { FEEDBACK_DOWN, FEEDBACK_NATIVE, FEEDBACK_UP, type SlackMessage } from './format.ts';
import type { Limiter } from './limiter.ts';
import { routeMention, routeMessage, type MessageEventFields } from './event-routing.ts';
import type { ChannelPacer } from './pacer.ts';
import { createProgressMessage } from './progress-message.ts';
import { SHARE_ACTION, shareAnswer, type SharedAnswer } from './share.ts';
import { shareRefusal } from './share-check.ts';
import { handleSlashCommand, restartingReply, routeSlashCommand, searchingAck } from './slash.ts';
import { slackToPlain } from './slack-text.ts';
import { ASK_SHORTCUT } from './surfaces.ts';
import type { HandlerDeps } from './types.ts';

/** The envelope's own Slack Connect flag; the guard also asks Slack (connect.ts). */
export const envelopeShared = (body: unknown) => (body as { is_ext_shared_channel?: unknown }).is_ext_shared_channel;

/** Mentions, and messages labbot answers without one (DMs, the asker's follow-ups in a thread it answered). */
export function registerQuestionEvents(bolt: BoltApp, deps: HandlerDeps, runner: QuestionRunner): void {
  const { dedupe, log } = deps;
  bolt.event('app_mention', async ({ event, body, client, context }) => {
    const route = routeMention(event, context, deps.config.allowBots);
    if (route.kind === 'ignore') {
      // The bot_id is logged: it is what an admin lists in slack.allowBots to let that bot ask.
      log.info(
        { eventId: body.event_id, channel: event.channel, botId: event.bot_id, user: event.user, reason: route.reason },
        'mention ignored',
      );
      return;
    }
    if (!(await dedupe.claim(body.event_id))) {
      log.info({ eventId: body.event_id }, 'duplicate app_mention ignored');
      return;
    }
    if (!(await dedupe.claimMessage(event.channel, event.ts))) {
      log.info({ eventId: body.event_id }, 'message already answered (delivered as message too)');
      return;
    }
    const hasFiles = ((event as { files?: unknown[] }).files?.length ?? 0) > 0;
    await runner.ask(
      client,
      {
        eventId: body.event_id,
        channel: event.channel,
        threadTs: event.thread_ts ?? event.ts,
        inThread: event.thread_ts !== undefined && event.thread_ts !== event.ts,
        eventTs: event.ts,
        user: event.user,
        text: event.text,
        botUserId: context.botUserId,
        source: 'slack',
        team: body.team_id,
        notes: hasFiles ? [slackStrings(detectLanguage(event.text)).attachmentsNotRead] : undefined,
      },
      { envelopeShared: envelopeShared(body) },
    );
  });

  bolt.event('message', async ({ event, body, client, context }) => {
    const e = event as unknown as MessageEventFields;
    const route = routeMessage(e, context.botUserId);
    if (route.kind === 'ignore') return;
    // Plain replies in channel threads: only the asker's questions, soon after labbot's answer (etiquette.ts).
    if (
      route.kind === 'thread-reply' &&
      !(await untaggedReplyIsForLabbot(
        deps,
        { channel: e.channel, threadTs: route.threadTs, user: e.user, text: e.text ?? '', ts: e.ts },
        context.botUserId,
      ))
    )
      return;
    if (!(await dedupe.claim(body.event_id))) {
      log.info({ eventId: body.event_id }, 'duplicate message event ignored');
      return;
    }
    if (!(await dedupe.claimMessage(e.channel, e.ts))) {
      log.info({ eventId: body.event_id }, 'message already answered (delivered as app_mention too)');
      return;
    }
    const dm = route.kind === 'dm';
    await runner.ask(
      client,
      {
        eventId: body.event_id,
        channel: e.channel,
        threadTs: route.threadTs,
        inThread: dm ? route.inThread : true,
        eventTs: e.ts,
        user: e.user,
        text: e.text ?? '',
        botUserId: context.botUserId,
        source: dm ? 'dm' : 'slack',
        team: body.team_id,
        // A file with a question: the question's text is answered; the file itself is not read.
        notes: route.hasFiles ? [slackStrings(detectLanguage(e.text ?? '')).attachmentsNotRead] : undefined,
      },
      { envelopeShared: envelopeShared(body) },
    );
  });
}

/** "Ask labbot about this": the message is the question; the answer goes in its thread, like a mention there. */
export function registerAskShortcut(bolt: BoltApp, runner: QuestionRunner): void {
  bolt.shortcut({ callback_id: ASK_SHORTCUT, type: 'message_action' }, async ({ ack, shortcut, client, respond, context }) => {
    await ack();
    const s = shortcut as MessageShortcut;
    await runner.ask(
      client,
      {
        eventId: `shortcut:${s.trigger_id}`,
        channel: s.channel.id,
        threadTs: (s.message.thread_ts as string | undefined) ?? s.message.ts,
        inThread: s.message.thread_ts !== undefined && s.message.thread_ts !== s.message.ts,
        eventTs: s.message.ts,
        user: s.user.id,
        text: s.message.text ?? '',
        botUserId: context.botUserId,
        source: 'slack',
        team: s.team?.id,
        // Where labbot cannot post (a DM between people, a channel it is not in), the asker still hears why.
        undeliverable: async (msg) => {
          await respond({ response_type: 'ephemeral', replace_original: false, text: msg.text, blocks: msg.blocks });
        },
      },
      { freshConnect: true },
    );
  });
}

/** 👍/👎 under answers (classic buttons and Slack's native feedback buttons), and Share in channel. */
export function registerActions(bolt: BoltApp, deps: HandlerDeps, runner: QuestionRunner, pacer: ChannelPacer): void {
  const votes: [string, Vote][] = [
    [FEEDBACK_UP, 'up'],
    [FEEDBACK_DOWN, 'down'],
  ];
  for (const [actionId, vote] of votes) {
    bolt.action(actionId, async ({ ack, action, body, respond }) => {
      await ack();
      if (action.type !== 'button') return;
      await handleFeedback(deps, vote, action.value ?? '', body.user.id, respond);
    });
  }
  // Slack's native feedback buttons: one action, the clicked button's value says which vote.
  bolt.action(FEEDBACK_NATIVE, async ({ ack, action, body, respond }) => {
    await ack();
    const parsed = action.type === 'feedback_buttons' ? parseFeedbackValue(action.value) : undefined;
    if (parsed) await handleFeedback(deps, parsed.vote, parsed.recordId, body.user.id, respond);
  });

  bolt.action(SHARE_ACTION, async ({ ack, action, body, respond, client }) => {
    await ack();
    if (action.type !== 'button') return;
    const refusedIn = (shared: SharedAnswer) => shareRefusal(deps, client, shared);
    const post = async (channel: string, m: SlackMessage, threadTs?: string) =>
      (
        await pacer.run(channel, () =>
          client.chat.postMessage({ channel, thread_ts: threadTs, text: m.text, blocks: m.blocks, unfurl_links: false }),
        )
      ).ts;
    await runner.track(shareAnswer({ store: deps.shares, log: deps.log, respond, refusedIn, post }, action.value ?? '', body.user.id));
  });
}

/** Re-sync progress as one message in a user's DM with labbot, edited at most every intervalMs. */
function dmProgress(client: webApi.WebClient, user: string, intervalMs: number, log: Logger) {
  return createProgressMessage(
    {
      // A user id as channel posts in the app's direct conversation with that user; edits need the conversation's id.
      post: async (m) => {
        const r = await client.chat.postMessage({ channel: user, text: m.text, blocks: m.blocks });
        return r.channel && r.ts ? { channel: r.channel, ts: r.ts } : undefined;
      },
      update: async (at, m) => void (await client.chat.update({ channel: at.channel, ts: at.ts, text: m.text, blocks: m.blocks })),
    },
    { intervalMs, log },
  );
}

/** `/labbot`: acknowledged at once (a question with its "Searching…"), then answered, in flight until done. */
export function registerSlashCommand(
  bolt: BoltApp,
  ctx: { deps: HandlerDeps; runner: QuestionRunner; limit: Limiter; progressEditMs: number },
): void {
  const { deps, runner, limit } = ctx;
  bolt.command('/labbot', async ({ ack, command, respond, client }: SlackCommandMiddlewareArgs & AllMiddlewareArgs) => {
    // A question is acknowledged at once with a private "Searching…" (in the ack itself: shown at
    // once, no response_url post spent). Other subcommands answer within moments.
    const route = routeSlashCommand(slackToPlain(command.text));
    const asking = route.kind === 'ask' && route.question !== '';
    await ack(asking ? searchingAck(route.question, limit.position()) : undefined);
    // Only answers wait their turn; help, status and reindex (which only queues) never wait behind them.
    const progressTo = (user: string) => dmProgress(client, user, ctx.progressEditMs, deps.log);
    const work = () => handleSlashCommand(deps, command, respond, { progressTo, client });
    // In flight from the acknowledgement on (queued ones too): a restart tells the asker, and a
    // question still queued when the drain gave up is skipped.
    const answered = asking ? runner.interrupts.register(() => respond(restartingReply(route.question))) : () => undefined;
    try {
      await runner.track(route.kind === 'ask' ? limit(async () => (runner.abandoned() ? undefined : work())) : work());
    } finally {
      answered();
    }
  });
}
