// Answering is CPU work (lexical search, fusion, rerank, extractive answer) on the event loop that
// also reads incoming requests. Unbounded, a burst of mentions makes later requests wait behind
// earlier answers before Bolt can ack them. A small limit, and a yield to pending I/O before each
// job, keep acks fast; answers queue instead.
import { setImmediate as yieldToIO } from 'node:timers/promises';

export type Limiter = <T>(job: () => Promise<T>) => Promise<T>;

export function createLimiter(concurrency: number): Limiter {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (job) => {
    if (active >= concurrency) await new Promise<void>((r) => waiting.push(r));
    else active += 1;
    try {
      await yieldToIO();
      return await job();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active -= 1;
    }
  };
}
