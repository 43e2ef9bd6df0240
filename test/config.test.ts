import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, groupsForChannel, loadConfig } from '../src/config.ts';

const tmp = () => mkdtempSync(path.join(os.tmpdir(), 'labbot-config-'));

describe('config', () => {
  it('runs on embedded defaults with no keys: hash embeddings, extractive answers', () => {
    const c = loadConfig({ LABBOT_CONFIG: undefined, LABBOT_DATA_DIR: path.join(tmp(), 'd') });
    expect(c.embeddings.provider).toBe('hash');
    expect(c.llm.provider).toBe('none');
    expect(c.port).toBe(3000);
    expect(c.collection).toBe('labbot');
    expect(c.chromaUrl).toBeUndefined();
    expect(c.retrieval.rrfK).toBe(60);
  });

  it('defaults to OpenAI-compatible providers when a base URL or key is set', () => {
    const c = loadConfig({ OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1', LABBOT_CONFIG: undefined });
    expect(c.embeddings.provider).toBe('openai');
    expect(c.llm.provider).toBe('openai');
    expect(c.openai.baseURL).toBe('http://127.0.0.1:11434/v1');
    const mixed = loadConfig({ OPENAI_API_KEY: 'sk-x', EMBEDDINGS: 'hash' });
    expect(mixed.embeddings.provider).toBe('hash');
    expect(mixed.llm.provider).toBe('openai');
  });

  it('names each bad value clearly', () => {
    expect(() => loadConfig({ LABBOT_PORT: 'eighty' })).toThrow(/LABBOT_PORT/);
    expect(() => loadConfig({ CHROMA_URL: 'not a url' })).toThrow(/CHROMA_URL must be a URL/);
    expect(() => loadConfig({ EMBEDDINGS: 'bert' })).toThrow(/EMBEDDINGS/);
    expect(() => loadConfig({ LABBOT_COLLECTION: 'a' })).toThrow(/LABBOT_COLLECTION/);
    expect(() => loadConfig({ LLM: 'openai' })).toThrow(/OPENAI_API_KEY or OPENAI_BASE_URL/);
  });

  it('validates the config file and resolves source paths relative to it', () => {
    const dir = tmp();
    const file = path.join(dir, 'c.json');
    writeFileSync(file, JSON.stringify({ sources: [{ id: 'wiki', type: 'folder', path: 'docs', access: 'pi-only' }] }));
    const c = loadConfig({ LABBOT_CONFIG: file });
    expect(c.sources[0].path).toBe(path.join(dir, 'docs'));
    expect(c.sources[0].access).toBe('pi-only');

    writeFileSync(file, JSON.stringify({ sources: [{ id: 'x', type: 'ftp', path: 'p' }] }));
    expect(() => loadConfig({ LABBOT_CONFIG: file })).toThrow(ConfigError);
    writeFileSync(file, '{ nope');
    expect(() => loadConfig({ LABBOT_CONFIG: file })).toThrow(/not valid JSON/);
    expect(() => loadConfig({ LABBOT_CONFIG: path.join(dir, 'missing.json') })).toThrow(/not found/);
  });

  it('maps channels and users to access groups, public by default', () => {
    const access = { default: 'public', channels: { CPI: ['pi-only'] }, users: { U1: ['pi-only', 'admins'] } };
    expect(groupsForChannel(access, 'CPI')).toEqual(['public', 'pi-only']);
    expect(groupsForChannel(access, 'COTHER')).toEqual(['public']);
    expect(groupsForChannel(access, undefined, 'U1')).toEqual(['public', 'pi-only', 'admins']);
  });
});
