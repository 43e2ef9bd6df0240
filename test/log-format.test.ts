// Which log lines a process writes: readable for a person at a terminal, JSON for collectors.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { chooseLogFormat } from '../src/log.ts';

describe('the log format', () => {
  it('auto is readable on a terminal and JSON lines elsewhere; an explicit format wins', () => {
    expect(chooseLogFormat('auto', true)).toBe('pretty');
    expect(chooseLogFormat('auto', false)).toBe('json');
    expect(chooseLogFormat('json', true)).toBe('json');
    expect(chooseLogFormat('pretty', false)).toBe('pretty');
  });

  it('LOG_FORMAT is read by the config, auto by default, and a wrong value is refused', () => {
    expect(loadConfig({}).logFormat).toBe('auto');
    expect(loadConfig({ LOG_FORMAT: 'json' }).logFormat).toBe('json');
    expect(() => loadConfig({ LOG_FORMAT: 'colourful' })).toThrow(/LOG_FORMAT/);
  });
});
