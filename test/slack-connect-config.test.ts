// The Slack Connect setting in labbot.config.json: refuse by default, "public" allowed, anything
// else a clear error naming the key.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';

function configWith(file: Record<string, unknown>) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-connect-'));
  const configFile = path.join(dir, 'labbot.config.json');
  writeFileSync(configFile, JSON.stringify(file));
  return () => loadConfig({ LABBOT_CONFIG: configFile, LABBOT_DATA_DIR: path.join(dir, 'data') });
}

describe('slackConnect setting', () => {
  it('defaults to refuse and accepts public', () => {
    expect(configWith({})().slackConnect).toBe('refuse');
    expect(configWith({ slackConnect: 'public' })().slackConnect).toBe('public');
  });
  it('rejects other values with the key named', () => {
    expect(configWith({ slackConnect: 'everything' })).toThrow(/slackConnect/);
  });
});
