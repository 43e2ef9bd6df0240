// Answering is CPU work (lexical search, fusion, rerank, extractive answer) on the event loop that
// also reads incoming requests. Unbounded, a burst of mentions makes later requests wait behind
// earlier answers before Bolt can ack them. A small limit, and a yield to pending I/O before each
// job, keep acks fast; answers queue instead. Hand-written: it is a dozen lines, and the queue
// position ("2 questions before yours") and the drain at shutdown need its state.
import { setImmediate as yieldToIO } from 'node:timers/promises';

export interface Limiter {
  <T>(job: () => Promise<T>): Promise<T>;
  /** Where a job queued now would stand: 0 when a slot is free, else 1 for "next", 2, … */
  position(): number;
  /** Jobs running or waiting. */
  size(): number;
  /** Resolves once no job is running or waiting. */
  idle(): Promise<void>;
}

export function createLimiter(concurrency: number): Limiter {
  let active = 0;
  const waiting: (() => void)[] = [];
  let idleWaiters: (() => void)[] = [];
  const settle = () => {
    if (active > 0 || waiting.length > 0) return;
    const w = idleWaiters;
    idleWaiters = [];
    for (const r of w) r();
  };
  const limit = (async <T>(job: () => Promise<T>): Promise<T> => {
    if (active >= concurrency) await new Promise<void>((r) => waiting.push(r));
    else active += 1;
    try {
      await yieldToIO();
      return await job();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active -= 1;
      settle();
    }
  }) as Limiter;
  limit.position = () => (active < concurrency ? 0 : waiting.length + 1);
  limit.size = () => active + waiting.length;
  limit.idle = () => (active === 0 && waiting.length === 0 ? Promise.resolve() : new Promise<void>((r) => idleWaiters.push(r)));
  return limit;
}
