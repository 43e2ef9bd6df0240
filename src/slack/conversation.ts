// How one question goes through the bot: the Slack Connect rule, the "Searching…" placeholder
// (posted before the answer limiter, with the queue position in busy moments), the limiter, and
// the bookkeeping that lets shutdown drain what was acknowledged instead of leaving placeholders
// behind: every answer in flight registers its interrupt notice (in-flight.ts).
import type { webApi } from '@slack/bolt';
import { detectLanguage } from '../search/tokenize.ts';
import { conversationText } from './conversation-texts.ts';
import { noticeMessage } from './format.ts';
import { createInFlightAnswers, type InFlightAnswers } from './in-flight.ts';
import type { Limiter } from './limiter.ts';
import { answerSlackQuestion, postPlaceholder, questionText, type SlackQuestion } from './mentions.ts';
import type { HandlerDeps } from './types.ts';

type WebClient = webApi.WebClient;

export interface QuestionRunner {
  /** Answers q; `extShared` is the envelope's is_ext_shared_channel (Slack Connect). */
  ask(client: WebClient, q: SlackQuestion, ctx: { extShared: boolean }): Promise<void>;
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

/** Sets the assistant thread status; false when Slack refused (then a placeholder message is used). */
async function setStatus(client: WebClient, q: SlackQuestion, status: string): Promise<boolean> {
  try {
    await client.assistant.threads.setStatus({ channel_id: q.channel, thread_ts: q.threadTs!, status });
    return true;
  } catch {
    return false;
  }
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

  async function ask(client: WebClient, q: SlackQuestion, ctx: { extShared: boolean }): Promise<void> {
    const lang = detectLanguage(questionText(q));
    if (ctx.extShared) {
      if (deps.config.slackConnect === 'refuse') {
        deps.log.info({ eventId: q.eventId, channel: q.channel }, 'Slack Connect channel: refused');
        await client.chat
          .postMessage({ channel: q.channel, thread_ts: q.threadTs, ...noticeMessage(conversationText(lang).connectRefused) })
          .catch((err: Error) => deps.log.warn({ eventId: q.eventId, err: err.message }, 'could not post the Slack Connect refusal'));
        return;
      }
      // Another organisation reads this channel: the lab's public material only, whatever the channel's grants.
      q = { ...q, access: {}, notes: [...(q.notes ?? []), conversationText(lang).connectPublicOnly] };
    }
    const position = limit.position();
    // In an assistant thread Slack shows a status under the question; elsewhere a placeholder message does.
    const status = q.source === 'dm' && q.threadTs && questionText(q) && (await deps.threads.isAssistant(q.channel, q.threadTs))
      ? await setStatus(client, q, conversationText(lang).status(position))
      : false;
    const placeholderTs = status ? undefined : await postPlaceholder(client, deps, q, position);
    const answered = placeholderTs || status ? interrupts.register(restartingNotice(client, q, placeholderTs)) : () => undefined;
    try {
      await limit(async () => {
        if (abandoned) return;
        await answerSlackQuestion(client, deps, q, placeholderTs);
      });
    } finally {
      answered();
    }
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
      deps.log.warn({ abandoned: left, ...told, inFlight: running.size }, 'shutdown: answers still running after the drain time were abandoned; their askers were told');
      return { drained: false, abandoned: left, notified: told.notified };
    },
  };
}

const slackErr = (err: unknown) => (err as { data?: { error?: string } }).data?.error ?? (err as Error).message;

/**
 * A mention's or DM's interrupt notice: the placeholder says labbot is restarting; without one
 * (an assistant status), or where it is gone (a stream replaced it), a note in the thread does.
 */
function restartingNotice(client: WebClient, q: SlackQuestion, placeholderTs: string | undefined): () => Promise<unknown> {
  const note = noticeMessage(conversationText(detectLanguage(questionText(q))).restarting);
  const inThread = () => client.chat.postMessage({ channel: q.channel, thread_ts: q.threadTs, ...note });
  return () => (placeholderTs ? client.chat.update({ channel: q.channel, ts: placeholderTs, ...note }).catch(inThread) : inThread());
}
