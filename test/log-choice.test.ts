// How a process logs: the level and format chosen from the config and whether the log's stream is
// a terminal, and the logger built from that choice (readable lines, still redacted).
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, type LogSettings } from '../src/config.ts';
import { chooseLogging, createLogger } from '../src/log.ts';

const settings = (over: Partial<LogSettings> = {}): LogSettings => ({
  level: 'info',
  levelSet: false,
  format: 'auto',
  noColor: false,
  ...over,
});

describe('chooseLogging', () => {
  it('auto: readable lines on a terminal, JSON lines anywhere else', () => {
    expect(chooseLogging(settings(), { role: 'service', tty: true })).toEqual({ level: 'info', format: 'pretty', colorize: true });
    expect(chooseLogging(settings(), { role: 'service', tty: false })).toEqual({ level: 'info', format: 'json', colorize: false });
  });

  it('LOG_FORMAT decides whatever the stream is; colour only on a terminal', () => {
    expect(chooseLogging(settings({ format: 'json' }), { role: 'service', tty: true }).format).toBe('json');
    expect(chooseLogging(settings({ format: 'pretty' }), { role: 'service', tty: false })).toEqual({
      level: 'info',
      format: 'pretty',
      colorize: false,
    });
  });

  it('NO_COLOR keeps readable lines and drops the colour', () => {
    expect(chooseLogging(settings({ noColor: true }), { role: 'command', tty: true })).toMatchObject({ format: 'pretty', colorize: false });
  });

  it('a command logs warnings and worse unless LOG_LEVEL is set; a service logs at LOG_LEVEL', () => {
    expect(chooseLogging(settings(), { role: 'command', tty: false }).level).toBe('warn');
    expect(chooseLogging(settings({ level: 'info', levelSet: true }), { role: 'command', tty: false }).level).toBe('info');
    expect(chooseLogging(settings({ level: 'debug', levelSet: true }), { role: 'command', tty: true }).level).toBe('debug');
    expect(chooseLogging(settings(), { role: 'service', tty: false }).level).toBe('info');
    expect(chooseLogging(settings({ level: 'error', levelSet: true }), { role: 'service', tty: false }).level).toBe('error');
  });
});

describe('the log settings in the config', () => {
  const env = (extra: Record<string, string>) => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'labbot-log-')), 'labbot.config.json');
    writeFileSync(file, '{}');
    return loadConfig({ LABBOT_CONFIG: file, ...extra }).log;
  };

  it('defaults to info, unset, auto, colour', () => {
    expect(env({})).toEqual({ level: 'info', levelSet: false, format: 'auto', noColor: false });
    expect(env({ LOG_LEVEL: '', LOG_FORMAT: '', NO_COLOR: '' })).toEqual({
      level: 'info',
      levelSet: false,
      format: 'auto',
      noColor: false,
    });
  });

  it('reads LOG_LEVEL, LOG_FORMAT and NO_COLOR', () => {
    expect(env({ LOG_LEVEL: 'info', LOG_FORMAT: 'json', NO_COLOR: '1' })).toEqual({
      level: 'info',
      levelSet: true,
      format: 'json',
      noColor: true,
    });
    expect(() => env({ LOG_FORMAT: 'fancy' })).toThrow(/LOG_FORMAT/);
  });
});

describe('createLogger', () => {
  const sink = () => {
    const out: string[] = [];
    return { out, stream: { write: (s: string) => void out.push(s) } };
  };

  it('writes JSON lines by default', () => {
    const { out, stream } = sink();
    createLogger('info', 'labbot', stream).info({ docs: 2 }, 'hello');
    expect(JSON.parse(out[0])).toMatchObject({ level: 30, name: 'labbot', docs: 2, msg: 'hello' });
  });

  it('writes one readable line per entry when pretty, with the secrets still removed', () => {
    const secret = 'hunter2-hunter2-hunter2';
    const { out, stream } = sink();
    const log = createLogger('info', 'labbot', stream, [secret], { format: 'pretty', colorize: false });
    log.warn({ url: `redis://:${secret}@127.0.0.1:6379`, token: secret }, `connecting with ${secret}`);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] WARN \(labbot\): connecting with \[redacted\] \{.*"url":"redis:\/\/127\.0\.0\.1:6379"/,
    );
    expect(out[0].trimEnd().split('\n')).toHaveLength(1);
    expect(out[0]).not.toContain(secret);
    expect(out[0]).not.toContain('\x1b[');
    expect(() => JSON.parse(out[0])).toThrow();
  });

  it('colours the level only when told to', () => {
    const { out, stream } = sink();
    createLogger('info', 'labbot', stream, [], { format: 'pretty', colorize: true }).info('hi');
    expect(out[0]).toContain('\x1b[');
  });
});
