// pino logger factory; the level comes from Config so nothing here reads the environment.
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

// scheme://userinfo@ : the userinfo runs to the last "@" before the host (a password with a raw
// "@" is still all removed); it cannot contain "/", whitespace or a quote.
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#"'\\<>]*@/gi;

/**
 * Text with the userinfo (user name and password) of every URL in it removed, for logs and error
 * messages: "redis://:secret@host:6379" -> "redis://host:6379".
 */
export function redactUrls(text: string): string {
  return text.replace(USERINFO, '$1');
}

export function createLogger(level: string, name = 'labbot', destination: DestinationStream = pino.destination(2)): Logger {
  // Logs go to stderr so `--json` output on stdout stays machine-readable. Every line passes
  // through redactUrls on its way out: a REDIS_URL (or git remote) password can reach a log by
  // many roads (a message, an error from a client library, a logged config value), and scrubbing
  // the finished line covers all of them.
  return pino({ name, level, hooks: { streamWrite: redactUrls } }, destination);
}
