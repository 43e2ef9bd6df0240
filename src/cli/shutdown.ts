// How the long-running commands (serve, worker) stop on a signal.
import type { Logger } from 'pino';
import { SHUTDOWN_BUDGET } from '../shutdown.ts';

/** SIGTERM/SIGINT: stop taking work, let in-flight work finish, exit within a bounded time. */
export function onShutdown(log: Logger, close: () => Promise<void>): void {
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    log.info({ signal }, 'shutting down');
    // The whole budget (src/shutdown.ts): every part of close() has a deadline inside it.
    const forced = setTimeout(() => {
      log.warn({ afterMs: SHUTDOWN_BUDGET.forcedExitMs }, 'shutdown did not finish in time; exiting anyway');
      process.exit(1);
    }, SHUTDOWN_BUDGET.forcedExitMs);
    forced.unref();
    try {
      await close();
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'error while shutting down');
    }
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}
