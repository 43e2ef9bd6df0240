// How one question goes through the bot: whose grants apply (audience.ts), the Slack Connect rule, the status line (shown before the
// answer limiter, with the queue position in busy moments), the limiter, what happened to the
// question meanwhile (edited: answered again in place; deleted: its answer goes too), the thread's
// follow-up window, and the bookkeeping that lets shutdown drain what was acknowledged: every
// answer in flight registers how to tell its asker it was cut short (in-flight.ts).
import type { webApi } from '@slack/bolt';
import { detectLanguage } from '../search/tokenize.ts';
import { slackStrings } from './strings.ts';
import { decideAccess } from '../ask.ts';
import { slackFacts, slackRefusalText } from './asker-facts.ts';
import { noticeMessage } from './format.ts';
import { createInFlightAnswers, type InFlightAnswers } from './in-flight.ts';
import type { Limiter } from './limiter.ts';
import { answerSlackQuestion, questionText, type AskedQuestion, type SlackQuestion } from './answer-question.ts';
import { createProgress } from './progress.ts';
import type { HandlerDeps } from './types.ts';

type WebClient = webApi.WebClient;

export interface QuestionRunner {
  /**
   * Answers q. Slack Connect: `envelopeShared` is the event envelope's is_ext_shared_channel, when
   * there is one; `freshConnect` asks Slack again however recent the cached verdict (no event).
   */
  ask(client: WebClient, q: AskedQuestion, ctx?: { envelopeShared?: unknown; freshConnect?: boolean }): Promise<void>;
  /** Counts other work (slash commands) as in flight, so the drain waits for it too. */
  track<T>(work: Promise<T>): Promise<T>;
  /** Work running or waiting. */
  inFlight(): number;
  /** Where every answer in flight (mentions, DMs, slash asks, …) registers how to tell its asker it was interrupted. */
  interrupts: InFlightAnswers;
  /** True once the drain gave up waiting: work still queued is skipped (its asker was told). */
  abandoned(): boolean;
  /**
   * Waits up to answerMs for every acknowledged question to be answered. Whatever is left then
   * is abandoned: queued work is skipped, and every registered answer's asker is told labbot is
   * restarting, within noticeMs.
   */
  drain(deadlines: { answerMs: number; noticeMs: number }): Promise<{ drained: boolean; abandoned: number; notified: number }>;
}

export function createQuestionRunner(deps: HandlerDeps, limit: Limiter): QuestionRunner {
  const running = new Set<Promise<unknown>>();
  const interrupts = createInFlightAnswers((err) => deps.log.warn({ err: slackErr(err) }, 'could not tell an asker labbot is restarting'));
  let abandoned = false;

  const track = <T>(work: Promise<T>): Promise<T> => {
    running.add(work);
    void work.then(
      () => running.delete(work),
      () => running.delete(work),
    );
    return work;
  };

  type ConnectContext = { envelopeShared?: unknown; freshConnect?: boolean };

  /** The question was edited or deleted while it was answered: answer the new text in place, or take the answer away. */
  async function afterwards(client: WebClient, q: SlackQuestion, shown: string[], ctx: ConnectContext): Promise<void> {
    const later = await deps.answers.finish(q.channel, q.eventTs, { answerTs: shown, threadTs: q.threadTs, user: q.user });
    if (later.deleted) {
      await deleteAnswer(client, deps, q.channel, q.eventTs, shown);
      return;
    }
    if (later.editedText !== undefined) await ask(client, { ...q, text: later.editedText, names: undefined, replaceTs: shown }, ctx);
  }

  async function ask(client: WebClient, asked: AskedQuestion, ctx: ConnectContext = {}): Promise<void> {
    const lang = detectLanguage(questionText(asked));
    // What this question may read: decided once, by the ask flow's rule (src/ask.ts), from what
    // Slack says about the conversation (asker-facts.ts).
    const facts = await slackFacts(
      deps,
      client,
      {
        surface: asked.replaceTs?.length ? 'edit' : asked.source === 'dm' ? 'dm' : asked.inThread ? 'thread' : 'mention',
        channel: asked.channel,
        user: asked.user,
      },
      { envelope: ctx.envelopeShared, fresh: ctx.freshConnect },
    );
    const decision = decideAccess(facts, deps.config.access);
    if (!decision.allowed) {
      deps.log.info(
        { eventId: asked.eventId, channel: asked.channel, reason: decision.reason },
        'Slack Connect channel (or not known): refused',
      );
      const refusal = noticeMessage(slackRefusalText(decision.reason, lang));
      await client.chat.postMessage({ channel: asked.channel, thread_ts: asked.threadTs, ...refusal }).catch(async (err: Error) => {
        deps.log.warn({ eventId: asked.eventId, err: err.message }, 'could not post the Slack Connect refusal');
        await asked.undeliverable?.(refusal).catch(() => {});
      });
      return;
    }
    // Another organisation reads this channel: the lab's public material only, whatever the channel's grants.
    const notes = decision.publicOnlyBecauseShared ? [...(asked.notes ?? []), slackStrings(lang).connectPublicOnly] : asked.notes;
    const q: SlackQuestion = { ...asked, access: decision.access, decision, notes, lang };
    // Follow-ups without a mention, for a little while, from this asker only (reply-intent.ts): from
    // now (a follow-up typed while labbot works is for it too), and again from the answer.
    const followUps = q.source === 'slack' && q.threadTs && q.user ? { channel: q.channel, threadTs: q.threadTs, user: q.user } : undefined;
    const openFollowUps = () =>
      followUps && deps.threads.openFollowUp(followUps.channel, followUps.threadTs, followUps.user, deps.config.followUpMinutes * 60_000);
    await openFollowUps();
    const position = limit.position();
    // A status line under the question (or a reaction on it), never a message that notifies the thread.
    const progress = questionText(q)
      ? createProgress(client, { channel: q.channel, threadTs: q.threadTs, questionTs: q.eventTs }, lang, {
          log: deps.log,
          support: deps.statusSupport,
        })
      : undefined;
    await progress?.show(position);
    const restarting = noticeMessage(slackStrings(lang).restarting);
    const unregister = interrupts.register(async () => {
      if (progress) await progress.interrupt(restarting);
      else await client.chat.postMessage({ channel: q.channel, thread_ts: q.threadTs, ...restarting });
    });
    await deps.answers.begin(q.channel, q.eventTs);
    let shown: string[] | undefined;
    try {
      shown = await limit(async () => {
        if (abandoned) return undefined;
        if (position > 0) await progress?.show(0);
        return answerSlackQuestion(client, deps, q, progress);
      });
    } finally {
      unregister();
      await progress?.done();
    }
    if (!shown) return;
    await openFollowUps();
    await afterwards(client, q, shown, ctx);
  }

  return {
    ask: (client, q, ctx) => track(ask(client, q, ctx)),
    track,
    inFlight: () => running.size,
    interrupts,
    abandoned: () => abandoned,
    async drain({ answerMs, noticeMs }) {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((r) => {
        timer = setTimeout(() => r('timeout'), answerMs);
      });
      // New work may join while waiting (an event handed over at the last moment): loop until none is left.
      let outcome: 'done' | 'timeout' = 'done';
      while (running.size > 0 && outcome === 'done') {
        outcome = await Promise.race([Promise.allSettled([...running]).then(() => 'done' as const), timedOut]);
      }
      clearTimeout(timer);
      if (outcome === 'done') return { drained: true, abandoned: 0, notified: 0 };
      abandoned = true;
      const left = interrupts.size();
      const told = await interrupts.interruptAll(noticeMs);
      deps.log.warn(
        { abandoned: left, ...told, inFlight: running.size },
        'shutdown: answers still running after the drain time were abandoned; their askers were told',
      );
      return { drained: false, abandoned: left, notified: told.notified };
    },
  };
}

/** A question was deleted: its answer goes too (and labbot forgets it). */
export async function deleteAnswer(
  client: WebClient,
  deps: HandlerDeps,
  channel: string,
  questionTs: string,
  answerTs: string[],
): Promise<void> {
  for (const ts of answerTs) {
    await client.chat
      .delete({ channel, ts })
      .catch((err: Error) => deps.log.warn({ channel, ts, err: err.message }, 'could not delete the answer of a deleted question'));
  }
  await deps.answers.forget(channel, questionTs);
}

const slackErr = (err: unknown) => (err as { data?: { error?: string } }).data?.error ?? (err as Error).message;
