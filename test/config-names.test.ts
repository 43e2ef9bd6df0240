// Config maps looked up with names from Slack and HTTP; proxy and rate-limit settings.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, groupsForChannel, loadConfig, readConfigFile } from '../src/config.ts';

function fileWith(json: string): string {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'labbot-names-')), 'labbot.config.json');
  writeFileSync(file, json);
  return file;
}

describe('channel and user names', () => {
  it('answers prototype names with the default group only', () => {
    const { access } = readConfigFile(fileWith('{"access":{"channels":{"CPI":["pi-only"]},"users":{"U1":["admins"]}}}'), true);
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
      expect(groupsForChannel(access, name), name).toEqual(['public']);
      expect(groupsForChannel(access, undefined, name), name).toEqual(['public']);
      expect(name in access.channels, name).toBe(false);
    }
    // With no config file at all, too.
    const none = readConfigFile('/nonexistent/labbot.config.json', false);
    expect(groupsForChannel(none.access, 'constructor', '__proto__')).toEqual(['public']);
  });

  it('keeps a channel literally named "__proto__" from the file', () => {
    const { access } = readConfigFile(fileWith('{"access":{"channels":{"__proto__":["pi-only"],"constructor":["admins"]}}}'), true);
    expect(Object.keys(access.channels).sort()).toEqual(['__proto__', 'constructor']);
    expect(groupsForChannel(access, '__proto__')).toEqual(['public', 'pi-only']);
    expect(groupsForChannel(access, 'constructor')).toEqual(['public', 'admins']);
  });

  it('still names bad groups clearly', () => {
    expect(() => readConfigFile(fileWith('{"access":{"channels":{"CPI":["Bad Group"]}}}'), true)).toThrow(
      /access\.channels\.CPI\.0: an access group/,
    );
    expect(() => readConfigFile(fileWith('{"access":{"channels":["CPI"]}}'), true)).toThrow(ConfigError);
  });
});

describe('proxy and rate-limit settings', () => {
  const env = (extra: Record<string, string>) => ({ LABBOT_CONFIG: fileWith('{}'), ...extra });
  it('parses LABBOT_TRUST_PROXY like Express', () => {
    expect(loadConfig(env({})).trustProxy).toBe(false);
    expect(loadConfig(env({ LABBOT_TRUST_PROXY: 'true' })).trustProxy).toBe(true);
    expect(loadConfig(env({ LABBOT_TRUST_PROXY: '1' })).trustProxy).toBe(1);
    expect(loadConfig(env({ LABBOT_TRUST_PROXY: 'loopback, 10.0.0.0/8' })).trustProxy).toBe('loopback, 10.0.0.0/8');
    expect(() => loadConfig(env({ LABBOT_TRUST_PROXY: 'a b' }))).toThrow(/LABBOT_TRUST_PROXY/);
  });

  it('parses LABBOT_ASK_RATE', () => {
    expect(loadConfig(env({})).askRateLimit).toEqual({ max: 30, windowMs: 60_000 });
    expect(loadConfig(env({ LABBOT_ASK_RATE: '5/10s' })).askRateLimit).toEqual({ max: 5, windowMs: 10_000 });
    expect(loadConfig(env({ LABBOT_ASK_RATE: 'off' })).askRateLimit).toBeUndefined();
    expect(() => loadConfig(env({ LABBOT_ASK_RATE: 'lots' }))).toThrow(/LABBOT_ASK_RATE/);
  });
});
