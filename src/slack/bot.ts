// The Slack bot: Bolt over the Events API (an express Router at POST /slack/events, mounted by the
// server before its JSON parser) or Socket Mode when SLACK_APP_TOKEN is set. Handlers live in
// mentions.ts, slash.ts and feedback.ts; this file wires them to Bolt.
import { App as BoltApp, ExpressReceiver, LogLevel, SocketModeReceiver, type AllMiddlewareArgs, type Logger as BoltLogger, type MessageShortcut, type SlackCommandMiddlewareArgs, type webApi } from '@slack/bolt';
import express from 'express';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { App } from '../app.ts';
import type { Config } from '../config.ts';
import type { ActivityStore, Vote } from '../store/activity.ts';
import { createDeduper } from './dedupe.ts';
import { handleFeedback, parseFeedbackValue } from './feedback.ts';
import { FEEDBACK_DOWN, FEEDBACK_NATIVE, FEEDBACK_UP, noticeMessage, type SlackMessage } from './format.ts';
import type { Reindexer } from './reindexer.ts';
import { createLimiter, type Limiter } from './limiter.ts';
import { createChannelPacer } from './pacer.ts';
import { createProgressMessage } from './progress-message.ts';
import { fastEventAck, type FastEventAck } from './fast-ack.ts';
import { createQuestionRunner, type QuestionRunner } from './conversation.ts';
import { SHUTDOWN_BUDGET } from '../shutdown.ts';
import { conversationText } from './conversation-texts.ts';
import { detectLanguage } from '../search/tokenize.ts';
import { handleSlashCommand, restartingReply, routeSlashCommand, searchingAck } from './slash.ts';
import { slackToPlain } from './slack-text.ts';
import { routeMessage, type MessageEventFields } from './message-events.ts';
import { createThreadTracker } from './threads.ts';
import { createShareStore, SHARE_ACTION, shareAnswer, type SharedAnswer } from './share.ts';
import { createConnectGuard, listenForSharing, shareRefusal } from './connect.ts';
import { ASK_SHORTCUT } from './surfaces.ts';
import { registerAgentSurfaces } from './agent.ts';
import { createAnswerMap } from './answer-map.ts';
import { registerEditHandlers } from './edits.ts';
import { untaggedReplyIsForLabbot } from './etiquette.ts';
import { createStatusSupport } from './progress.ts';
import type { HandlerDeps } from './types.ts';
import { createUserDirectory } from './user-names.ts';
import { visibleFetch } from './outgoing.ts';

export interface SlackBotDeps {
  app: App;
  config: Config;
  redis: Redis;
  activity: ActivityStore;
  reindexer: Reindexer;
  log: Logger;
  /** Redis key prefix for event dedupe (default "labbot:"). */
  keyPrefix?: string;
  /** Questions answered at once by this process; more wait their turn (default 4). */
  concurrency?: number;
  /** At stop, how long acknowledged questions may take to be answered (default SHUTDOWN_BUDGET.answerDrainMs, src/shutdown.ts). */
  drainMs?: number;
  /** Re-sync progress message: the least time between two edits (default 3 s; Slack's chat.update is Tier 3, 50+ a minute). */
  progressEditMs?: number;
}

export interface SlackBot {
  /** HTTP mode: mount with createHttpApp(app, { routers: [bot.router] }). Undefined in Socket Mode. */
  router?: express.Router;
  mode: 'http' | 'socket';
  /** Socket Mode: opens the WebSocket. HTTP mode: nothing to do (the server owns the port). */
  start(): Promise<void>;
  /**
   * Stops taking events and drains acknowledged questions: answers may finish within drainMs,
   * then every one still running tells its asker labbot is restarting (within interruptNoticeMs).
   */
  stop(): Promise<void>;
}

/** Bolt's logger interface on top of pino, so Slack logs land in the same stream. */
function boltLogger(log: Logger): BoltLogger {
  const child = log.child({ component: 'bolt' });
  const text = (msg: unknown[]) => msg.map((m) => (typeof m === 'string' ? m : m instanceof Error ? m.message : JSON.stringify(m))).join(' ');
  let level = LogLevel.INFO;
  return {
    debug: (...msg: unknown[]) => child.debug(text(msg)),
    info: (...msg: unknown[]) => child.info(text(msg)),
    warn: (...msg: unknown[]) => child.warn(text(msg)),
    error: (...msg: unknown[]) => child.error(text(msg)),
    setLevel: (l: LogLevel) => {
      level = l;
    },
    getLevel: () => level,
    setName: () => {},
  };
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
function slashListener(ctx: { handlerDeps: HandlerDeps; runner: QuestionRunner; limit: Limiter; progressEditMs: number; log: Logger }) {
  const { handlerDeps, runner, limit } = ctx;
  return async ({ ack, command, respond, client }: SlackCommandMiddlewareArgs & AllMiddlewareArgs) => {
    // A question is acknowledged at once with a private "Searching…" (in the ack itself: shown at
    // once, no response_url post spent). Other subcommands answer within moments.
    const route = routeSlashCommand(slackToPlain(command.text));
    const asking = route.kind === 'ask' && route.question !== '';
    await ack(asking ? searchingAck(route.question, limit.position()) : undefined);
    // Only answers wait their turn; help, status and reindex (which only queues) never wait behind them.
    const progressTo = (user: string) => dmProgress(client, user, ctx.progressEditMs, ctx.log);
    const work = () => handleSlashCommand(handlerDeps, command, respond, { progressTo, client });
    // In flight from the acknowledgement on (queued ones too): a restart tells the asker, and a
    // question still queued when the drain gave up is skipped.
    const answered = asking ? runner.interrupts.register(() => respond(restartingReply(route.question))) : () => undefined;
    try {
      await runner.track(route.kind === 'ask' ? limit(async () => (runner.abandoned() ? undefined : work())) : work());
    } finally {
      answered();
    }
  };
}

export async function createSlackBot(deps: SlackBotDeps): Promise<SlackBot> {
  const slack = deps.config.slack;
  if (!slack) throw new Error('Slack is not configured: set SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET (or SLACK_APP_TOKEN).');
  const log = deps.log.child({ component: 'slack' });
  const logger = boltLogger(deps.log);
  const pacer = createChannelPacer();
  const handlerDeps: HandlerDeps = {
    app: deps.app,
    config: deps.config,
    activity: deps.activity,
    reindexer: deps.reindexer,
    dedupe: createDeduper(deps.redis, deps.keyPrefix ?? 'labbot:', { log }),
    threads: createThreadTracker(deps.redis, deps.keyPrefix ?? 'labbot:', { log }),
    shares: createShareStore(deps.redis, deps.keyPrefix ?? 'labbot:', log),
    connect: createConnectGuard(deps.redis, deps.keyPrefix ?? 'labbot:', log),
    userNames: createUserDirectory({ log }),
    answers: createAnswerMap(deps.redis, deps.keyPrefix ?? 'labbot:', log),
    statusSupport: createStatusSupport(),
    pacer,
    log,
  };
  const clientOptions = {
    // WebClient builds `${slackApiUrl}${method}`: the trailing slash matters.
    ...(slack.apiUrl ? { slackApiUrl: slack.apiUrl.endsWith('/') ? slack.apiUrl : `${slack.apiUrl}/` } : {}),
    // 429s are retried after Retry-After by the WebClient; this bounds other transient failures.
    retryConfig: { retries: 3, factor: 2, minTimeout: 200, maxTimeout: 5000 },
    // Web API calls and respond() both go through it: nothing invisible or a control character is posted.
    fetch: visibleFetch(),
  };

  const limit = createLimiter(deps.concurrency ?? 4);

  let bolt: BoltApp;
  let router: express.Router | undefined;
  let acker: FastEventAck | undefined;
  let stopping = false;
  if (slack.appToken) {
    const receiver = new SocketModeReceiver({ appToken: slack.appToken, logger, installerOptions: { clientOptions } });
    bolt = new BoltApp({ token: slack.botToken, receiver, logger, clientOptions });
  } else {
    if (!slack.signingSecret) throw new Error('HTTP mode needs SLACK_SIGNING_SECRET.');
    const receiver = new ExpressReceiver({
      signingSecret: slack.signingSecret,
      endpoints: '/slack/events',
      // Ack first, work after: the HTTP response goes out when ack() runs, not when the answer is ready.
      processBeforeResponse: false,
      logger,
    });
    bolt = new BoltApp({ token: slack.botToken, receiver, logger, clientOptions });
    router = express.Router();
    acker = fastEventAck({ bolt, signingSecret: slack.signingSecret, log, accepting: () => !stopping });
    router.use(acker);
    router.use(receiver.router as express.Router);
  }

  const runner = createQuestionRunner(handlerDeps, limit);
  /** The envelope's own Slack Connect flag; the guard also asks Slack (connect.ts). */
  const envelopeShared = (body: unknown) => (body as { is_ext_shared_channel?: unknown }).is_ext_shared_channel;

  bolt.event('app_mention', async ({ event, body, client, context }) => {
    if (!(await handlerDeps.dedupe.claim(body.event_id))) {
      log.info({ eventId: body.event_id }, 'duplicate app_mention ignored');
      return;
    }
    if (!(await handlerDeps.dedupe.claimMessage(event.channel, event.ts))) {
      log.info({ eventId: body.event_id }, 'message already answered (delivered as message too)');
      return;
    }
    const hasFiles = ((event as { files?: unknown[] }).files?.length ?? 0) > 0;
    await runner.ask(client, {
      eventId: body.event_id,
      channel: event.channel,
      threadTs: event.thread_ts ?? event.ts,
      inThread: event.thread_ts !== undefined && event.thread_ts !== event.ts,
      eventTs: event.ts,
      user: event.user,
      text: event.text,
      botUserId: context.botUserId,
      source: 'slack',
      // Only the channel: a user's own grants must not widen what a shared channel sees.
      access: { channel: event.channel },
      team: body.team_id,
      notes: hasFiles ? [conversationText(detectLanguage(event.text)).attachmentsNotRead] : undefined,
    }, { envelopeShared: envelopeShared(body) });
  });

  bolt.event('message', async ({ event, body, client, context }) => {
    const e = event as unknown as MessageEventFields;
    const route = routeMessage(e, context.botUserId);
    if (route.kind === 'ignore') return;
    // Plain replies in channel threads: only the asker's questions, soon after labbot's answer (etiquette.ts).
    if (route.kind === 'thread-reply' && !(await untaggedReplyIsForLabbot(handlerDeps, { channel: e.channel, threadTs: route.threadTs, user: e.user, text: e.text ?? '', ts: e.ts }, context.botUserId))) return;
    if (!(await handlerDeps.dedupe.claim(body.event_id))) {
      log.info({ eventId: body.event_id }, 'duplicate message event ignored');
      return;
    }
    if (!(await handlerDeps.dedupe.claimMessage(e.channel, e.ts))) {
      log.info({ eventId: body.event_id }, 'message already answered (delivered as app_mention too)');
      return;
    }
    const dm = route.kind === 'dm';
    await runner.ask(client, {
      eventId: body.event_id,
      channel: e.channel,
      threadTs: route.threadTs,
      inThread: dm ? route.inThread : true,
      eventTs: e.ts,
      user: e.user,
      text: e.text ?? '',
      botUserId: context.botUserId,
      source: dm ? 'dm' : 'slack',
      access: dm ? { user: e.user! } : { channel: e.channel },
      team: body.team_id,
      // A file with a question: the question's text is answered; the file itself is not read.
      notes: route.hasFiles ? [conversationText(detectLanguage(e.text ?? '')).attachmentsNotRead] : undefined,
    }, { envelopeShared: envelopeShared(body) });
  });

  bolt.command('/labbot', slashListener({ handlerDeps, runner, limit, progressEditMs: deps.progressEditMs ?? 3000, log }));

  const votes: [string, Vote][] = [
    [FEEDBACK_UP, 'up'],
    [FEEDBACK_DOWN, 'down'],
  ];
  for (const [actionId, vote] of votes) {
    bolt.action(actionId, async ({ ack, action, body, respond }) => {
      await ack();
      if (action.type !== 'button') return;
      await handleFeedback(handlerDeps, vote, action.value ?? '', body.user.id, respond);
    });
  }
  // Slack's native feedback buttons: one action, the clicked button's value says which vote.
  bolt.action(FEEDBACK_NATIVE, async ({ ack, action, body, respond }) => {
    await ack();
    const parsed = action.type === 'feedback_buttons' ? parseFeedbackValue(action.value) : undefined;
    if (parsed) await handleFeedback(handlerDeps, parsed.vote, parsed.recordId, body.user.id, respond);
  });

  bolt.shortcut({ callback_id: ASK_SHORTCUT, type: 'message_action' }, async ({ ack, shortcut, client, respond, context }) => {
    await ack();
    const s = shortcut as MessageShortcut;
    const inDm = s.channel.id.startsWith('D');
    // The message is the question; the answer goes in its thread, like a mention there.
    await runner.ask(client, {
      eventId: `shortcut:${s.trigger_id}`,
      channel: s.channel.id,
      threadTs: (s.message.thread_ts as string | undefined) ?? s.message.ts,
      inThread: s.message.thread_ts !== undefined && s.message.thread_ts !== s.message.ts,
      eventTs: s.message.ts,
      user: s.user.id,
      text: s.message.text ?? '',
      botUserId: context.botUserId,
      source: 'slack',
      access: inDm ? { user: s.user.id } : { channel: s.channel.id },
      team: s.team?.id,
      // Where labbot cannot post (a DM between people, a channel it is not in), the asker still hears why.
      undeliverable: async (msg) => {
        await respond({ response_type: 'ephemeral', replace_original: false, text: msg.text, blocks: msg.blocks });
      },
    }, { freshConnect: true });
  });

  // Slack's agent experience (the DM as the conversation, suggested prompts, the legacy pane) and the App Home.
  registerAgentSurfaces(bolt, handlerDeps, runner, deps.redis, deps.keyPrefix ?? 'labbot:');
  // Edited questions are answered again; deleted ones take their answer along.
  registerEditHandlers(bolt, handlerDeps, runner, envelopeShared);
  // channel_shared / channel_unshared keep the Slack Connect verdicts current.
  listenForSharing(bolt, handlerDeps.connect, log);

  bolt.action(SHARE_ACTION, async ({ ack, action, body, respond, client }) => {
    await ack();
    if (action.type !== 'button') return;
    const refusedIn = (shared: SharedAnswer) => shareRefusal(handlerDeps, client, shared);
    const post = async (channel: string, m: SlackMessage, threadTs?: string) =>
      (await pacer.run(channel, () => client.chat.postMessage({ channel, thread_ts: threadTs, text: m.text, blocks: m.blocks, unfurl_links: false }))).ts;
    await runner.track(shareAnswer({ store: handlerDeps.shares, log, respond, refusedIn, post }, action.value ?? '', body.user.id));
  });

  bolt.error(async (err) => {
    log.error({ err: err.message, code: err.code }, 'unhandled error in a Slack handler');
  });

  return {
    router,
    mode: slack.appToken ? 'socket' : 'http',
    async start() {
      if (slack.appToken) await bolt.start();
    },
    async stop() {
      // Stop taking events (HTTP: 503, so Slack redelivers them elsewhere or after the restart),
      // hand over what was acknowledged, then let answers finish within the drain time.
      stopping = true;
      // Counted as in flight, so the drain below also waits for events Bolt has not finished.
      if (acker) void runner.track(acker.flush());
      // Socket Mode: close the socket first; events not yet acknowledged are redelivered by Slack.
      if (slack.appToken) await bolt.stop();
      const outcome = await runner.drain({ answerMs: deps.drainMs ?? SHUTDOWN_BUDGET.answerDrainMs, noticeMs: SHUTDOWN_BUDGET.interruptNoticeMs });
      if (!outcome.drained) log.warn(outcome, 'Slack answers did not finish in the drain time');
    },
  };
}
