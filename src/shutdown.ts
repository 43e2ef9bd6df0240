// The shutdown budget, in one place. SIGTERM (or SIGINT) starts it; the process exits by
// forcedExitMs at the latest, whatever is still running (cli.ts), and every part before that has
// its own deadline inside it, so the promised "labbot is restarting" notes are posted before the
// forced exit instead of racing it:
//
//   0 s ─ answers acknowledged before the signal may finish ─ answerDrainMs (10 s)
//       ─ answers still running are told labbot is restarting ─ + interruptNoticeMs (3 s) = 13 s
//       ─ HTTP server, queue (the worker's running job was given the same 13 s, in parallel),
//         lexical snapshot save (~1 s at 114k chunks), Chroma stopped (SIGTERM, SIGKILL at 3 s)
//   20 s ─ forced exit: 7 s of margin for that last part. The embedded Chroma stops on this path
//          too (chroma-supervisor.ts), and Docker's stop_grace_period (30 s) comes after it.
export const SHUTDOWN_BUDGET = {
  forcedExitMs: 20_000,
  answerDrainMs: 10_000,
  interruptNoticeMs: 3_000,
} as const;
