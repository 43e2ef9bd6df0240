// The drain contract between shutdown and whatever answers a question: each answer in flight
// registers how to tell its asker it was interrupted (edit the "Searching…" placeholder, post in
// the thread, reply on response_url, end a stream or a status: whatever the answer's surface
// is), and unregisters once answered. At shutdown the drain waits for answers up to its
// deadline, then calls every notice still registered, each once, bounded by a deadline of its
// own, so every asker hears either the answer or why not before the process exits.
export type InterruptNotice = () => Promise<unknown>;

export interface InFlightAnswers {
  /** Registers an answer in flight; call the returned function once it is answered (idempotent). */
  register(notice: InterruptNotice): () => void;
  /** Answers registered and not yet answered. */
  size(): number;
  /** Calls every registered notice once, in parallel, and waits at most `deadlineMs` for them. */
  interruptAll(deadlineMs: number): Promise<{ notified: number; failed: number; unfinished: number }>;
}

export function createInFlightAnswers(onError?: (err: unknown) => void): InFlightAnswers {
  const notices = new Set<InterruptNotice>();
  return {
    register(notice) {
      // A fresh function per registration: the same notice registered twice counts twice.
      const entry: InterruptNotice = () => notice();
      notices.add(entry);
      return () => void notices.delete(entry);
    },
    size: () => notices.size,
    async interruptAll(deadlineMs) {
      const left = [...notices];
      notices.clear();
      let notified = 0;
      let failed = 0;
      const runs = left.map((n) =>
        Promise.resolve()
          .then(n)
          .then(
            () => void (notified += 1),
            (err: unknown) => {
              failed += 1;
              onError?.(err);
            },
          ),
      );
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all(runs), new Promise<void>((r) => (timer = setTimeout(r, deadlineMs)))]);
      clearTimeout(timer);
      return { notified, failed, unfinished: left.length - notified - failed };
    },
  };
}
