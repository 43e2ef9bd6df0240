// Progress that stays one message: posted at the first update, then edited in place (chat.update)
// at most once per interval, the latest text winning, so a long re-sync is one message that
// changes instead of a direct message per step. Edits notify nobody, which is what progress
// wants. Hand-written: a post, a timer and the latest text are the whole of it.
import type { Logger } from 'pino';
import type { SlackMessage } from './format.ts';

export interface ProgressTarget {
  /** Posts the message; returns where it went (a DM's channel id differs from the user id posted to). */
  post(m: SlackMessage): Promise<{ channel: string; ts: string } | undefined>;
  update(at: { channel: string; ts: string }, m: SlackMessage): Promise<void>;
}

export interface ProgressMessage {
  /** The text to show now; posted at once the first time, otherwise shown at the next allowed edit. */
  set(m: SlackMessage): void;
  /** Shows the final text as soon as an edit in flight is done, and stops further edits. */
  finish(m: SlackMessage): Promise<void>;
}

export function createProgressMessage(target: ProgressTarget, opts: { intervalMs: number; log: Logger }): ProgressMessage {
  let at: { channel: string; ts: string } | undefined;
  let shown: string | undefined;
  let pending: SlackMessage | undefined;
  let lastEdit = 0;
  let inFlight: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let broken = false;
  let finished = false;

  const key = (m: SlackMessage) => JSON.stringify(m.blocks) + m.text;
  const show = async (m: SlackMessage) => {
    if (broken || key(m) === shown) return;
    try {
      if (at) await target.update(at, m);
      else at = await target.post(m);
      shown = key(m);
    } catch (err) {
      // Rather no progress than a stream of errors: the final summary also goes to response_url.
      broken = true;
      opts.log.warn(
        { err: (err as { data?: { error?: string } }).data?.error ?? (err as Error).message },
        'could not post or edit the progress message',
      );
    } finally {
      lastEdit = Date.now();
    }
  };
  const flush = () => {
    timer = undefined;
    const m = pending;
    pending = undefined;
    if (!m || finished) return;
    inFlight = show(m).finally(() => {
      inFlight = undefined;
      if (pending) schedule();
    });
  };
  const schedule = () => {
    if (inFlight || timer || finished) return;
    const wait = at ? lastEdit + opts.intervalMs - Date.now() : 0;
    if (wait <= 0) flush();
    else timer = setTimeout(flush, wait);
  };
  return {
    set(m) {
      if (finished) return;
      pending = m;
      schedule();
    },
    async finish(m) {
      finished = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      pending = undefined;
      await inFlight;
      await show(m);
    },
  };
}
