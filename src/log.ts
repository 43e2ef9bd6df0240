// pino logger factory; the level and format come from Config so nothing here reads the environment.
import { createRequire } from 'node:module';
import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogSettings } from './config.ts';

export type { Logger };

export type LogFormat = 'pretty' | 'json';

/** What a process logs and how: what chooseLogging decides, what createLogger builds. */
export interface LogChoice {
  level: LogSettings['level'];
  format: LogFormat;
  colorize: boolean;
}

/**
 * How a process logs. A service (serve, worker) logs what it does at LOG_LEVEL, info by default:
 * that log is its output. A command's output is its answer on stdout, so its log says only what
 * went wrong (warn) unless LOG_LEVEL is set. LOG_FORMAT=auto writes readable lines when the log's
 * own stream is a terminal (a person reads it) and JSON lines otherwise (a file, a collector, a
 * pipe: something keeps or parses them).
 */
export function chooseLogging(settings: LogSettings, facts: { role: 'service' | 'command'; tty: boolean }): LogChoice {
  const level = facts.role === 'command' && !settings.levelSet ? 'warn' : settings.level;
  const format = settings.format === 'auto' ? (facts.tty ? 'pretty' : 'json') : settings.format;
  // Colour codes only mean something to a terminal: forced pretty lines into a file stay plain text.
  return { level, format, colorize: format === 'pretty' && facts.tty && !settings.noColor };
}

type PrettyFactory = typeof import('pino-pretty').prettyFactory;

/**
 * Readable lines on top of `destination`. pino-pretty's own stream pipes through a Transform, so
 * the last lines before a process.exit could be lost; its formatter called in the write is as
 * synchronous as the JSON path. Loaded only here (about 30 ms), which only a terminal pays for.
 */
function prettyStream(destination: DestinationStream, colorize: boolean): DestinationStream {
  const { prettyFactory } = createRequire(import.meta.url)('pino-pretty') as { prettyFactory: PrettyFactory };
  const pretty = prettyFactory({ colorize, singleLine: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
  return { write: (line: string) => destination.write(pretty(line)) };
}

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

/** The forms a secret takes in a log line: as is, inside a JSON string, in a URL, in a Basic header. */
function secretForms(secrets: string[]): string[] {
  const forms = new Set<string>();
  for (const s of secrets) {
    forms.add(s);
    forms.add(JSON.stringify(s).slice(1, -1));
    forms.add(encodeURIComponent(s));
    forms.add(Buffer.from(s).toString('base64'));
  }
  // Longest first: a secret that contains another is replaced whole.
  return [...forms].filter((f) => f.length >= 8).sort((a, b) => b.length - a.length);
}

export function createLogger(
  level: string,
  name = 'labbot',
  destination: DestinationStream = pino.destination(2),
  secrets: string[] = [],
  output: Pick<LogChoice, 'format' | 'colorize'> = { format: 'json', colorize: false },
): Logger {
  // Logs go to stderr so `--json` output on stdout stays machine-readable. Every line passes
  // through the redaction on its way out: a REDIS_URL (or git remote) password, a token or a
  // webhook secret can reach a log by many roads (a message, an error from a client library, a
  // logged config value), and scrubbing the finished line covers all of them.
  const forms = secretForms(secrets);
  const redact = (line: string) => {
    let out = redactUrls(line);
    for (const f of forms) if (out.includes(f)) out = out.split(f).join('[redacted]');
    return out;
  };
  // The redaction runs on the JSON line, before the pretty stream formats it.
  const out = output.format === 'pretty' ? prettyStream(destination, output.colorize) : destination;
  return pino({ name, level, hooks: { streamWrite: redact } }, out);
}
