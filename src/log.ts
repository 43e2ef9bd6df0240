// pino logger factory; the level comes from Config so nothing here reads the environment.
import { pino, type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';

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

export type LogFormat = 'auto' | 'pretty' | 'json';

/** Readable lines for a person at a terminal; JSON lines for anything that collects logs. */
export function chooseLogFormat(format: LogFormat, terminal: boolean): 'pretty' | 'json' {
  if (format === 'auto') return terminal ? 'pretty' : 'json';
  return format;
}

/**
 * stderr (where every log goes), as lines a person reads: time, level and message, fields after.
 * Colour follows the terminal (and NO_COLOR), as pino-pretty decides it.
 */
export function prettyDestination(): DestinationStream {
  return pretty({ destination: 2, sync: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname,name' });
}

export function createLogger(
  level: string,
  name = 'labbot',
  destination: DestinationStream = pino.destination(2),
  secrets: string[] = [],
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
  return pino({ name, level, hooks: { streamWrite: redact } }, destination);
}
