// pino logger factory; the level comes from Config so nothing here reads the environment.
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string, name = 'labbot'): Logger {
  // Logs go to stderr so `--json` output on stdout stays machine-readable.
  return pino({ name, level }, pino.destination(2));
}
