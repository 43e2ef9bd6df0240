// The Slack bot: Bolt over the Events API (an express Router at POST /slack/events, mounted by the
// server before its JSON parser) or Socket Mode when SLACK_APP_TOKEN is set. Listeners live in
// listeners.ts, agent.ts, edits.ts and connect.ts (the work in answer-question.ts, slash.ts, feedback.ts
// and share.ts); this file builds their shared stores, wires them to Bolt, and stops cleanly.
import { App as BoltApp, ExpressReceiver, LogLevel, SocketModeReceiver, type Logger as BoltLogger } from '@slack/bolt';
import express from 'express';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Asker } from '../ports.ts';
import type { Config } from '../config.ts';
import { SHUTDOWN_BUDGET } from '../shutdown.ts';
import type { ActivityStore } from '../store/activity.ts';
import { registerAgentSurfaces } from './agent.ts';
import { createAnswerMap } from './answer-map.ts';
import { createAudienceGuard } from './audience.ts';
import { createConnectGuard, listenForSharing } from './connect.ts';
import { createQuestionRunner } from './conversation.ts';
import { createDeduper } from './dedupe.ts';
import { registerEditHandlers } from './edits.ts';
import { fastEventAck, type FastEventAck } from './fast-ack.ts';
import { createLimiter } from './limiter.ts';
import { envelopeShared, registerActions, registerAskShortcut, registerQuestionEvents, registerSlashCommand } from './listeners.ts';
import { visibleFetch } from './outgoing.ts';
import { createChannelPacer, type ChannelPacer } from './pacer.ts';
import { createStatusSupport } from './progress.ts';
import type { Reindexer } from '../queue/reindexer.ts';
import { createShareStore } from './share.ts';
import { createThreadTracker } from './threads.ts';
import type { HandlerDeps } from './types.ts';
import { createUserDirectory } from './user-names.ts';

export interface SlackBotDeps {
  app: Asker;
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

type SlackSettings = NonNullable<Config['slack']>;

/** Bolt's logger interface on top of pino, so Slack logs land in the same stream. */
function boltLogger(log: Logger): BoltLogger {
  const child = log.child({ component: 'bolt' });
  const text = (msg: unknown[]) =>
    msg.map((m) => (typeof m === 'string' ? m : m instanceof Error ? m.message : JSON.stringify(m))).join(' ');
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

/** The stores and helpers every handler shares, on this process's Redis under its key prefix. */
function createHandlerDeps(deps: SlackBotDeps, pacer: ChannelPacer, log: Logger): HandlerDeps {
  const prefix = deps.keyPrefix ?? 'labbot:';
  return {
    app: deps.app,
    config: deps.config,
    activity: deps.activity,
    reindexer: deps.reindexer,
    dedupe: createDeduper(deps.redis, prefix, { log }),
    threads: createThreadTracker(deps.redis, prefix, { log }),
    shares: createShareStore(deps.redis, prefix, log),
    connect: createConnectGuard(deps.redis, prefix, log),
    audience: createAudienceGuard(deps.redis, prefix, log),
    userNames: createUserDirectory({ log }),
    answers: createAnswerMap(deps.redis, prefix, log),
    statusSupport: createStatusSupport(),
    pacer,
    log,
  };
}

/**
 * Bolt on Socket Mode (an app token) or on the Events API: then an express Router that acks
 * events itself before Bolt handles them, refusing new ones once `accepting()` is false.
 */
function createBolt(
  slack: SlackSettings,
  logger: BoltLogger,
  log: Logger,
  accepting: () => boolean,
): { bolt: BoltApp; router?: express.Router; acker?: FastEventAck } {
  const clientOptions = {
    // WebClient builds `${slackApiUrl}${method}`: the trailing slash matters.
    ...(slack.apiUrl ? { slackApiUrl: slack.apiUrl.endsWith('/') ? slack.apiUrl : `${slack.apiUrl}/` } : {}),
    // 429s are retried after Retry-After by the WebClient; this bounds other transient failures.
    retryConfig: { retries: 3, factor: 2, minTimeout: 200, maxTimeout: 5000 },
    // Web API calls and respond() both go through it: nothing invisible or a control character is posted.
    fetch: visibleFetch(),
  };
  if (slack.appToken) {
    const receiver = new SocketModeReceiver({ appToken: slack.appToken, logger, installerOptions: { clientOptions } });
    return { bolt: new BoltApp({ token: slack.botToken, receiver, logger, clientOptions }) };
  }
  if (!slack.signingSecret) throw new Error('HTTP mode needs SLACK_SIGNING_SECRET.');
  const receiver = new ExpressReceiver({
    signingSecret: slack.signingSecret,
    endpoints: '/slack/events',
    // Ack first, work after: the HTTP response goes out when ack() runs, not when the answer is ready.
    processBeforeResponse: false,
    logger,
  });
  const bolt = new BoltApp({ token: slack.botToken, receiver, logger, clientOptions });
  const router = express.Router();
  const acker = fastEventAck({ bolt, signingSecret: slack.signingSecret, log, accepting });
  router.use(acker);
  router.use(receiver.router as express.Router);
  return { bolt, router, acker };
}

export async function createSlackBot(deps: SlackBotDeps): Promise<SlackBot> {
  const slack = deps.config.slack;
  if (!slack) throw new Error('Slack is not configured: set SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET (or SLACK_APP_TOKEN).');
  const log = deps.log.child({ component: 'slack' });
  const pacer = createChannelPacer();
  const handlerDeps = createHandlerDeps(deps, pacer, log);
  const limit = createLimiter(deps.concurrency ?? 4);
  let stopping = false;
  const { bolt, router, acker } = createBolt(slack, boltLogger(deps.log), log, () => !stopping);
  const runner = createQuestionRunner(handlerDeps, limit);

  registerQuestionEvents(bolt, handlerDeps, runner);
  registerSlashCommand(bolt, { deps: handlerDeps, runner, limit, progressEditMs: deps.progressEditMs ?? 3000 });
  registerActions(bolt, handlerDeps, runner, pacer);
  registerAskShortcut(bolt, runner);
  // Slack's agent experience (the DM as the conversation, suggested prompts, the legacy pane) and the App Home.
  registerAgentSurfaces(bolt, handlerDeps, runner, deps.redis, deps.keyPrefix ?? 'labbot:');
  // Edited questions are answered again; deleted ones take their answer along.
  registerEditHandlers(bolt, handlerDeps, runner, envelopeShared);
  // channel_shared / channel_unshared keep the Slack Connect verdicts current.
  listenForSharing(bolt, handlerDeps.connect, log);
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
      const outcome = await runner.drain({
        answerMs: deps.drainMs ?? SHUTDOWN_BUDGET.answerDrainMs,
        noticeMs: SHUTDOWN_BUDGET.interruptNoticeMs,
      });
      if (!outcome.drained) log.warn(outcome, 'Slack answers did not finish in the drain time');
    },
  };
}
