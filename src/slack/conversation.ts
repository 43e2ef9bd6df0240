// How one question goes through the bot: the Slack Connect rule, the "Searching…" placeholder
// (posted before the answer limiter, with the queue position in busy moments), the limiter, and
// the bookkeeping that lets shutdown drain what was acknowledged instead of leaving placeholders
// behind.
import type { webApi } from '@slack/bolt';
import { detectLanguage } from '../search/tokenize.ts';
import { conversationText } from './conversation-texts.ts';
import { connectPolicy, connectRefusal } from './connect.ts';
import { noticeMessage } from './format.ts';
import type { Limiter } from './limiter.ts';
import { answerSlackQuestion, postPlaceholder, questionText, type SlackQuestion } from './mentions.ts';
import type { HandlerDeps } from './types.ts';

type WebClient = webApi.WebClient;

export interface QuestionRunner {
  /**
   * Answers q. Slack Connect: `envelopeShared` is the event envelope's is_ext_shared_channel, when
   * there is one; `freshConnect` asks Slack again however recent the cached verdict (no event).
   */
  ask(client: WebClient, q: SlackQuestion, ctx?: { envelopeShared?: unknown; freshConnect?: boolean }): Promise<void>;
  /** Counts other work (slash commands) as in flight, so the drain waits for it too. */
  track<T>(work: Promise<T>): Promise<T>;
  /** Work running or waiting. */
  inFlight(): number;
  /**
   * Waits up to timeoutMs for every acknowledged question to be answered. Whatever is left then
   * is abandoned: its placeholder says labbot is restarting, and queued work is skipped.
   */
  drain(timeoutMs: number): Promise<{ drained: boolean; abandoned: number }>;
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
  /** Placeholders posted whose answer has not replaced them yet. */
  const open = new Map<string, { client: WebClient; channel: string; ts: string | undefined; threadTs: string | undefined; question: string }>();
  let abandoned = false;

  const track = <T>(work: Promise<T>): Promise<T> => {
    running.add(work);
    void work.then(
      () => running.delete(work),
      () => running.delete(work),
    );
    return work;
  };

  async function ask(client: WebClient, q: SlackQuestion, ctx: { envelopeShared?: unknown; freshConnect?: boolean } = {}): Promise<void> {
    const lang = detectLanguage(questionText(q));
    const verdict = await deps.connect.verdict(client, q.channel, { envelope: ctx.envelopeShared, fresh: ctx.freshConnect });
    const policy = connectPolicy(verdict, deps.config.slackConnect);
    if (policy.kind === 'refuse') {
      deps.log.info({ eventId: q.eventId, channel: q.channel, checked: policy.checked }, 'Slack Connect channel (or not known): refused');
      const refusal = noticeMessage(connectRefusal(policy, lang));
      await client.chat
        .postMessage({ channel: q.channel, thread_ts: q.threadTs, ...refusal })
        .catch(async (err: Error) => {
          deps.log.warn({ eventId: q.eventId, err: err.message }, 'could not post the Slack Connect refusal');
          await q.undeliverable?.(refusal).catch(() => {});
        });
      return;
    }
    // Another organisation reads this channel: the lab's public material only, whatever the channel's grants.
    if (policy.kind === 'public-only') q = { ...q, access: {}, notes: [...(q.notes ?? []), conversationText(lang).connectPublicOnly] };
    const position = limit.position();
    // In an assistant thread Slack shows a status under the question; elsewhere a placeholder message does.
    const status = q.source === 'dm' && q.threadTs && questionText(q) && (await deps.threads.isAssistant(q.channel, q.threadTs))
      ? await setStatus(client, q, conversationText(lang).status(position))
      : false;
    const placeholderTs = status ? undefined : await postPlaceholder(client, deps, q, position);
    const key = `${q.channel}:${placeholderTs ?? q.eventTs}`;
    if (placeholderTs || status) open.set(key, { client, channel: q.channel, ts: placeholderTs, threadTs: q.threadTs, question: questionText(q) });
    try {
      await limit(async () => {
        if (abandoned) return;
        await answerSlackQuestion(client, deps, q, placeholderTs);
      });
    } finally {
      open.delete(key);
    }
  }

  return {
    ask: (client, q, ctx) => track(ask(client, q, ctx)),
    track,
    inFlight: () => running.size,
    async drain(timeoutMs) {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((r) => {
        timer = setTimeout(() => r('timeout'), timeoutMs);
      });
      // New work may join while waiting (an event handed over at the last moment): loop until none is left.
      let outcome: 'done' | 'timeout' = 'done';
      while (running.size > 0 && outcome === 'done') {
        outcome = await Promise.race([Promise.allSettled([...running]).then(() => 'done' as const), timedOut]);
      }
      clearTimeout(timer);
      if (outcome === 'done') return { drained: true, abandoned: 0 };
      abandoned = true;
      const left = [...open.values()];
      open.clear();
      await Promise.allSettled(
        left.map((p) => {
          const note = noticeMessage(conversationText(detectLanguage(p.question)).restarting);
          return p.ts ? p.client.chat.update({ channel: p.channel, ts: p.ts, ...note }) : p.client.chat.postMessage({ channel: p.channel, thread_ts: p.threadTs, ...note });
        }),
      );
      deps.log.warn({ abandoned: left.length, inFlight: running.size }, 'shutdown: answers still running after the drain time were abandoned');
      return { drained: false, abandoned: left.length };
    },
  };
}
