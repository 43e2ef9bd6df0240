// What the asker sees while labbot works, without a message that notifies the thread's followers:
// the thread's status line (assistant.threads.setStatus, rotating loading messages; Slack accepts
// it with chat:write in DMs and channel threads) or, where Slack refuses it, an ⏳ reaction on the
// question. The answer itself is then the message that notifies. Slack clears a status on the next
// reply or after 2 minutes, so a long wait refreshes it, and an answer that only edits (an edited
// question answered again) clears it itself. Bolt 5.1's setStatus() listener helper is the same
// call bound to the event's thread; questions here also come from the shortcut and from edits
// (no such helper) and outlive the listener in the queue, so the Web API call is made directly.
import type { webApi } from '@slack/bolt';
import type { Logger } from 'pino';
import type { Language } from '../answer/messages.ts';
import { slackStrings } from './strings.ts';
import type { SlackMessage } from './format.ts';

type WebClient = webApi.WebClient;

const WORKING_REACTION = 'hourglass_flowing_sand';
/** Slack drops a status after 2 minutes without a reply: refresh well before. */
const STATUS_REFRESH_MS = 90_000;
/** Once Slack refused a status in a kind of conversation, use the reaction there for a while. */
const REFUSAL_MEMORY_MS = 10 * 60_000;

export interface Where {
  channel: string;
  /** The thread the answer goes to (status lines belong to a thread). */
  threadTs: string | undefined;
  /** The question's own message (the reaction goes on it). */
  questionTs: string;
}

export interface Progress {
  /** Shows labbot at work, with the queue position in busy moments (0: working on it now). */
  show(position: number): Promise<void>;
  /** labbot posted into the thread: Slack has cleared the status itself. */
  posted(): void;
  /** A streamed message is on its way: an interruption must end it. */
  streaming(ts: string | undefined): void;
  /** The answer is out: removes whatever still shows labbot at work. */
  done(): Promise<void>;
  /** Tells the asker the answer was cut short (labbot is stopping), in place of the answer. */
  interrupt(note: SlackMessage): Promise<void>;
}

/** Remembers, per process, where Slack refused a status line. */
export interface StatusSupport {
  refused(kind: 'dm' | 'channel'): boolean;
  refuse(kind: 'dm' | 'channel'): void;
}

export function createStatusSupport(now: () => number = Date.now): StatusSupport {
  const until = new Map<string, number>();
  return {
    refused: (kind) => (until.get(kind) ?? 0) > now(),
    refuse: (kind) => void until.set(kind, now() + REFUSAL_MEMORY_MS),
  };
}

const slackError = (err: unknown) => (err as { data?: { error?: string } }).data?.error ?? (err as Error).message;
/** Errors about this one conversation (labbot not in it, a thread gone): no reason to stop trying elsewhere. */
const THIS_CONVERSATION_ONLY = new Set([
  'not_in_channel',
  'channel_not_found',
  'thread_not_found',
  'invalid_thread_ts',
  'message_not_found',
  'is_archived',
  'ratelimited',
]);

export function createProgress(client: WebClient, where: Where, lang: Language, deps: { log: Logger; support: StatusSupport }): Progress {
  const kind = where.channel.startsWith('D') ? 'dm' : 'channel';
  const texts = slackStrings(lang);
  let mode: 'none' | 'status' | 'reaction' = 'none';
  let statusShowing = false;
  let finished = false;
  let streamTs: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let position = 0;

  const stopTimer = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
  };
  const setStatus = async (status: string) => {
    await client.assistant.threads.setStatus({
      channel_id: where.channel,
      thread_ts: where.threadTs!,
      status,
      ...(status ? { loading_messages: texts.loading.slice(0, 10) } : {}),
    });
  };
  const react = async () => {
    try {
      await client.reactions.add({ channel: where.channel, timestamp: where.questionTs, name: WORKING_REACTION });
      mode = 'reaction';
    } catch (err) {
      deps.log.debug(
        { err: slackError(err), channel: where.channel },
        'no working reaction either; the answer will come without a sign of progress',
      );
    }
  };
  const unreact = async () => {
    if (mode !== 'reaction') return;
    mode = 'none';
    await client.reactions
      .remove({ channel: where.channel, timestamp: where.questionTs, name: WORKING_REACTION })
      .catch((err: unknown) => deps.log.debug({ err: slackError(err) }, 'could not remove the working reaction'));
  };
  const clearStatus = async () => {
    if (!statusShowing) return;
    statusShowing = false;
    await setStatus('').catch((err: unknown) => deps.log.debug({ err: slackError(err) }, 'could not clear the status'));
  };

  return {
    async show(n) {
      if (finished) return;
      position = n;
      if (mode === 'reaction') return;
      if (where.threadTs && !deps.support.refused(kind)) {
        try {
          await setStatus(texts.status(position));
          mode = 'status';
          statusShowing = true;
          if (!timer) {
            timer = setInterval(() => {
              if (statusShowing) void setStatus(texts.status(position)).catch(() => undefined);
            }, STATUS_REFRESH_MS);
            timer.unref();
          }
          return;
        } catch (err) {
          if (!THIS_CONVERSATION_ONLY.has(slackError(err))) deps.support.refuse(kind);
          deps.log.info({ err: slackError(err), channel: where.channel }, 'Slack refused a status line here; showing a reaction instead');
        }
      }
      if (mode === 'none') await react();
    },
    posted() {
      statusShowing = false;
      stopTimer();
    },
    streaming(ts) {
      streamTs = ts;
    },
    async done() {
      finished = true;
      stopTimer();
      await Promise.all([clearStatus(), unreact()]);
    },
    async interrupt(note) {
      finished = true;
      stopTimer();
      if (streamTs) {
        // The streamed text was never checked: end the stream and put the note in its place.
        await client.chat.stopStream({ channel: where.channel, ts: streamTs }).catch(() => undefined);
        await client.chat.update({ channel: where.channel, ts: streamTs, text: note.text, blocks: note.blocks });
      } else {
        await client.chat.postMessage({ channel: where.channel, thread_ts: where.threadTs, text: note.text, blocks: note.blocks });
        statusShowing = false;
      }
      await unreact();
    },
  };
}
