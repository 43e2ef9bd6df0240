// chat.postMessage takes about 1 message per second per channel (Slack's rate limits page; bursts
// are "not guaranteed"). A 429 does more harm than its own wait: the WebClient pauses its whole
// request queue for the Retry-After, holding up every other channel's answers too. So where
// labbot posts several messages into one channel in a row (a shared answer and its thread) it
// takes its turn here: posts to one channel run one at a time, each starting a full interval
// after the previous one was answered (Slack counted it no later than that). Hand-written: a
// per-channel queue is a dozen lines.
export interface ChannelPacer {
  /** Runs `post` when this process may post to `channel` again. */
  run<T>(channel: string, post: () => Promise<T>): Promise<T>;
}

export function createChannelPacer(intervalMs = 1000): ChannelPacer {
  const channels = new Map<string, { tail: Promise<void>; lastDone: number; pending: number }>();
  return {
    run(channel, post) {
      const c = channels.get(channel) ?? { tail: Promise.resolve(), lastDone: 0, pending: 0 };
      channels.set(channel, c);
      c.pending += 1;
      const result = c.tail.then(async () => {
        const wait = c.lastDone + intervalMs - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        try {
          return await post();
        } finally {
          c.lastDone = Date.now();
          c.pending -= 1;
          // A channel with nothing queued is forgotten once its interval has passed.
          if (c.pending === 0)
            setTimeout(() => c.pending === 0 && channels.get(channel) === c && channels.delete(channel), intervalMs).unref();
        }
      });
      c.tail = result.then(
        () => undefined,
        () => undefined,
      );
      return result;
    },
  };
}
