// The one ask flow. Every way a question reaches labbot (a Slack mention, thread reply, DM, edit,
// /labbot ask, the message shortcut, Share, App Home, POST /api/ask, the dashboard, `labbot ask`)
// adapts its input to an asker's facts and its output from an outcome; what may be read, the
// answer, the activity record and the mapping of failures happen here, once.
//
// Access is decided from facts the edges establish (whose conversation it is, from Slack; whether
// another organisation reads it; whether the caller proved the admin token) by one pure rule,
// decideAccess. The groups an access reads are config.ts's groupsForChannel, the only mapping.
import type { Logger } from 'pino';
import type { AskResult, HistoryTurn } from './answer/answer.ts';
import type { Config } from './config.ts';
import { groupsForChannel } from './config.ts';
import { type ActivitySource, type ActivityStore, entryFor } from './store/activity.ts';
import { ChromaUnavailableError } from './store/chroma-store.ts';

/** The ways in. Slack's are conversations; the others are operators and programs. */
export type Surface = 'mention' | 'thread' | 'dm' | 'edit' | 'slash' | 'shortcut' | 'share' | 'home' | 'api' | 'dashboard' | 'cli';

const SLACK_SURFACES: ReadonlySet<Surface> = new Set(['mention', 'thread', 'dm', 'edit', 'slash', 'shortcut', 'share', 'home']);
export const isSlackSurface = (s: Surface) => SLACK_SURFACES.has(s);

/** What the edge knows about who asks, and where. */
export interface AskerFacts {
  surface: Surface;
  /** A Slack conversation id, or (api, dashboard, cli) a channel of access.channels to ask as. */
  channel?: string;
  /** The Slack user who asks. */
  user?: string;
  /** Slack reports the conversation as labbot's own IM with `user` (slack/audience.ts). */
  ownDm?: boolean;
  /** Slack Connect (slack/connect.ts): another organisation reads the conversation, and what the config does then. */
  shared?: 'public-only' | 'refuse' | 'refuse-unchecked';
  /** The caller proved the admin token (HTTP), or holds a dashboard session, or is the operator at the CLI. */
  admin?: boolean;
}

/** What an answer there may read: one person's grants, a conversation's, or ({}) the default group only. */
export type Access = { channel?: string; user?: string };

export type Refusal = 'shared' | 'shared-unchecked' | 'channel-needs-admin' | 'unknown-channel';

export type AccessDecision =
  | { allowed: true; access: Access; groups: string[]; publicOnlyBecauseShared: boolean }
  | { allowed: false; reason: Refusal };

/**
 * The one access rule. In Slack: a conversation another organisation reads gets the default
 * group or nothing (slackConnect); the asker's own grants apply only in labbot's own DM with them;
 * everywhere else the conversation's. Elsewhere: asking as a channel widens what is read, so it
 * needs the admin token, and the channel must be one the config names.
 */
export function decideAccess(facts: AskerFacts, access: Config['access']): AccessDecision {
  const allow = (a: Access, publicOnlyBecauseShared = false): AccessDecision => ({
    allowed: true,
    access: a,
    groups: groupsForChannel(access, a.channel, a.user),
    publicOnlyBecauseShared,
  });
  if (isSlackSurface(facts.surface)) {
    if (facts.shared === 'refuse') return { allowed: false, reason: 'shared' };
    if (facts.shared === 'refuse-unchecked') return { allowed: false, reason: 'shared-unchecked' };
    if (facts.shared === 'public-only') return allow({}, true);
    if (facts.ownDm && facts.user) return allow({ user: facts.user });
    return allow(facts.channel ? { channel: facts.channel } : {});
  }
  const channel = facts.channel && facts.channel !== 'public' ? facts.channel : undefined;
  if (!channel) return allow({});
  if (!facts.admin) return { allowed: false, reason: 'channel-needs-admin' };
  if (!Object.hasOwn(access.channels, channel)) return { allowed: false, reason: 'unknown-channel' };
  return allow({ channel });
}

/** An access decision that lets the question be answered. */
export type AllowedAccess = Extract<AccessDecision, { allowed: true }>;

export interface AskFlowDeps {
  ask(
    question: string,
    opts: { channel?: string; user?: string; k?: number; history?: HistoryTurn[]; onToken?: (delta: string) => void },
  ): Promise<AskResult>;
  /** Chunks in the live index: none means nothing was ingested yet. */
  chunkCount(): number;
  activity?: Pick<ActivityStore, 'recordQuestion'>;
  config: Pick<Config, 'access'>;
  log: Logger;
}

export interface AskInput {
  /** As the asker wrote it. */
  question: string;
  /** What is searched, when it differs (a follow-up rewritten with its thread, answer/followup.ts). */
  searchAs?: string;
  facts: AskerFacts;
  /** Decided already by the edge (to show a notice before answering); else decided here. */
  decision?: AccessDecision;
  k?: number;
  history?: HistoryTurn[];
  onToken?: (delta: string) => void;
  /** Slack message and thread of the question, kept with the activity record. */
  messageTs?: string;
  threadTs?: string;
}

export type AskOutcome =
  | { kind: 'answered'; result: AskResult; decision: AllowedAccess; recordId?: string; latencyMs: number }
  | { kind: 'refused'; reason: Refusal }
  | { kind: 'empty-question' }
  | { kind: 'empty-index' }
  | { kind: 'unavailable' }
  | { kind: 'failed'; error: Error };

const ACTIVITY_SOURCE: Record<Surface, ActivitySource> = {
  mention: 'slack',
  thread: 'slack',
  edit: 'slack',
  shortcut: 'slack',
  share: 'slack',
  home: 'dm',
  dm: 'dm',
  slash: 'slash',
  api: 'api',
  dashboard: 'admin',
  cli: 'api',
};

/** Answers `input` as its asker may be answered. Never throws: failures are outcomes. */
export async function askAs(deps: AskFlowDeps, input: AskInput): Promise<AskOutcome> {
  const question = input.question.trim();
  if (!question) return { kind: 'empty-question' };
  const decision = input.decision ?? decideAccess(input.facts, deps.config.access);
  if (!decision.allowed) return { kind: 'refused', reason: decision.reason };
  if (deps.chunkCount() === 0) return { kind: 'empty-index' };
  const t0 = performance.now();
  let result: AskResult;
  try {
    result = await deps.ask(input.searchAs ?? question, {
      ...decision.access,
      k: input.k,
      history: input.history,
      onToken: input.onToken,
    });
  } catch (err) {
    if (err instanceof ChromaUnavailableError) return { kind: 'unavailable' };
    deps.log.error({ err, surface: input.facts.surface }, 'answering failed');
    return { kind: 'failed', error: err as Error };
  }
  const latencyMs = Math.round(performance.now() - t0);
  let recordId: string | undefined;
  try {
    recordId = await deps.activity?.recordQuestion(
      entryFor(result, {
        source: ACTIVITY_SOURCE[input.facts.surface],
        channel: input.facts.channel ?? (isSlackSurface(input.facts.surface) ? undefined : 'public'),
        user: input.facts.user,
        question,
        searchedAs: input.searchAs && input.searchAs !== question ? input.searchAs : undefined,
        latencyMs,
        messageTs: input.messageTs,
        threadTs: input.threadTs,
        groups: decision.groups,
      }),
    );
  } catch (err) {
    // Losing a log line must not cost the asker their answer; only the vote buttons go.
    deps.log.warn({ err: (err as Error).message, surface: input.facts.surface }, 'could not record the question');
  }
  return { kind: 'answered', result, decision, recordId, latencyMs };
}
