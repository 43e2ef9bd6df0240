// What every Slack handler receives: labbot's Asker (src/ports.ts), the bot's config and the
// stores, passed in (no globals).
import type { Logger } from 'pino';
import type { Asker } from '../ports.ts';
import type { Config } from '../config.ts';
import type { ActivityStore } from '../store/activity.ts';
import type { AnswerMap } from './answer-map.ts';
import type { AudienceGuard } from './audience.ts';
import type { ConnectGuard } from './connect.ts';
import type { Deduper } from './dedupe.ts';
import type { StatusSupport } from './progress.ts';
import type { Reindexer } from '../queue/reindexer.ts';
import type { ThreadTracker } from './threads.ts';
import type { ShareStore } from './share.ts';
import type { UserDirectory } from './user-names.ts';
import type { ChannelPacer } from './pacer.ts';

export interface HandlerDeps {
  app: Asker;
  /** The bot's config: labbot's, or (a second bot beside it) another one. */
  config: Config;
  activity: ActivityStore;
  reindexer: Reindexer;
  dedupe: Deduper;
  threads: ThreadTracker;
  shares: ShareStore;
  /** Whether a conversation is shared with another organisation (Slack Connect): the one place that decides. */
  connect: ConnectGuard;
  /** Whose conversation a question is in, so whose grants apply (labbot's own DM with the asker, or the conversation's): the one place that decides. */
  audience: AudienceGuard;
  /** Names of mentioned users (users.info), cached. */
  userNames: UserDirectory;
  /** Question ts -> the messages of its answer (edits answer again, deletions take the answer along). */
  answers: AnswerMap;
  /** Where Slack refused a status line (then a reaction shows labbot at work). */
  statusSupport: StatusSupport;
  /** Posts to one channel at Slack's 1 message per second (a long answer's parts, a shared answer's thread). */
  pacer?: ChannelPacer;
  log: Logger;
}
