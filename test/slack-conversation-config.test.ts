// The conversation settings in labbot.config.json: the follow-up window (minutes, 10 by default,
// 0 for mentions only) and the lab's own suggested prompts (1 to 4, each a title and a message).
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';

function configWith(file: Record<string, unknown>) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-conversation-'));
  const configFile = path.join(dir, 'labbot.config.json');
  writeFileSync(configFile, JSON.stringify(file));
  return () => loadConfig({ LABBOT_CONFIG: configFile, LABBOT_DATA_DIR: path.join(dir, 'data') });
}

describe('conversation settings', () => {
  it('follow-ups: 10 minutes unless set; 0 allowed; negative or over a day refused with the key named', () => {
    expect(configWith({})().followUpMinutes).toBe(10);
    expect(configWith({ followUpMinutes: 0 })().followUpMinutes).toBe(0);
    expect(configWith({ followUpMinutes: -1 })).toThrow(/followUpMinutes/);
    expect(configWith({ followUpMinutes: 2000 })).toThrow(/followUpMinutes/);
  });
  it('suggested prompts: unset means derived from the index; 1 to 4 with a title and a message each', () => {
    expect(configWith({})().suggestedPrompts).toBeUndefined();
    const mine = [{ title: 'Freezer', message: 'Where is box AB-07?' }];
    expect(configWith({ suggestedPrompts: mine })().suggestedPrompts).toEqual(mine);
    expect(configWith({ suggestedPrompts: [] })).toThrow(/suggestedPrompts/);
    expect(configWith({ suggestedPrompts: Array.from({ length: 5 }, () => mine[0]) })).toThrow(/suggestedPrompts/);
    expect(configWith({ suggestedPrompts: [{ title: 'x' }] })).toThrow(/suggestedPrompts\.0\.message/);
    expect(configWith({ suggestedPrompts: [{ ...mine[0], extra: 1 }] })).toThrow(/suggestedPrompts/);
  });
});
