// A real pino logger whose JSON lines are kept in memory, so tests can check what was logged.
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';

export interface CapturedLog {
  log: Logger;
  lines: Record<string, unknown>[];
  /** Lines whose message contains the text. */
  find(text: string): Record<string, unknown>[];
}

export function captureLog(level = 'info'): CapturedLog {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString('utf8').split('\n')) if (l.trim()) lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  return { log: pino({ level }, stream), lines, find: (text) => lines.filter((l) => String(l.msg ?? '').includes(text)) };
}
