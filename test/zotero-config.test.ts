// How a Zotero source is written in labbot.config.json, and what a mistake in it says.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { itemRecord, zoteroYear, type ZoteroItem } from '../src/ingest/sources/zotero/record.ts';

function load(sources: unknown[], env: Record<string, string> = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-zconfig-'));
  writeFileSync(path.join(dir, 'labbot.config.json'), JSON.stringify({ sources }));
  return loadConfig({ LABBOT_CONFIG: path.join(dir, 'labbot.config.json'), LABBOT_DATA_DIR: path.join(dir, 'data'), ...env });
}

describe('Zotero sources in the config', () => {
  it('a web library reads its key from the named variable and its API from ZOTERO_API_URL; the mirror is under the data dir', () => {
    const c = load(
      [{ id: 'papers', type: 'zotero', library: 'groups/123456', apiKeyEnv: 'LAB_KEY', collection: 'ABCD2345', poll: '15m' }],
      { LAB_KEY: 'k-123', ZOTERO_API_URL: 'http://127.0.0.1:9/' },
    );
    expect(c.sources[0].zotero).toEqual({
      via: 'web',
      apiUrl: 'http://127.0.0.1:9',
      library: 'groups/123456',
      apiKey: 'k-123',
      collection: 'ABCD2345',
    });
    expect(c.sources[0].path).toMatch(/data[/\\]zotero[/\\]papers$/);
    expect(load([{ id: 'p', type: 'zotero', library: 'users/1' }]).sources[0].zotero).toMatchObject({
      apiUrl: 'https://api.zotero.org',
      apiKey: undefined,
    });
  });

  it('a local library expands ~ to the home folder', () => {
    const c = load([{ id: 'mine', type: 'zotero', path: '~/Zotero' }]);
    expect(c.sources[0].zotero).toMatchObject({ via: 'local', dataDir: path.join(os.homedir(), 'Zotero') });
  });

  it('names each mistake', () => {
    expect(() => load([{ id: 'p', type: 'zotero' }])).toThrow(/a zotero source needs a "library" .* or a "path"/);
    expect(() => load([{ id: 'p', type: 'zotero', library: 'group/1' }])).toThrow(/"users\/<user id>" or "groups\/<group id>"/);
    expect(() => load([{ id: 'p', type: 'zotero', library: 'groups/1', apiKeyEnv: 'NOT_SET_ANYWHERE' }])).toThrow(
      /reads its Zotero API key from NOT_SET_ANYWHERE, which is not set/,
    );
    expect(() => load([{ id: 'p', type: 'folder', path: '.', library: 'groups/1' }])).toThrow(/are for zotero sources/);
    expect(() => load([{ id: 'p', type: 'zotero', library: 'groups/1', collection: 'abc' }])).toThrow(/collection key is 8 characters/);
  });
});

describe("Zotero's record of an item", () => {
  it('reads the year from both date forms, never from a 0000 placeholder', () => {
    expect(zoteroYear('March 15, 2022')).toBe(2022);
    expect(zoteroYear('2019-00-00 Spring 2019')).toBe(2019);
    expect(zoteroYear('0000-00-00 circa 1998')).toBe(1998);
    expect(zoteroYear('0000-00-00 n.d.')).toBeUndefined();
  });

  it('takes authors over other creators, a DOI from extra, and tags and collections as subject terms', () => {
    const item: ZoteroItem = {
      key: 'AAAAAAAA',
      stamp: '1',
      itemType: 'bookSection',
      title: 'A chapter',
      creators: [
        { creatorType: 'editor', firstName: 'Ed', lastName: 'Itor' },
        { creatorType: 'author', lastName: 'Consortium', name: 'Zebrafish Consortium' },
      ],
      extra: 'Some note\nDOI: 10.5555/x.1\n',
      tags: ['fins'],
      collections: ['SUBC2222'],
    };
    const r = itemRecord(
      item,
      new Map([
        ['SUBC2222', { key: 'SUBC2222', name: 'Fins', parent: 'TOPC2222' }],
        ['TOPC2222', { key: 'TOPC2222', name: 'Zebrafish' }],
      ]),
    );
    expect(r).toMatchObject({
      authors: ['Zebrafish Consortium'],
      doi: '10.5555/x.1',
      keywords: ['fins', 'Fins', 'Zebrafish'],
      complete: true,
      url: undefined,
    });
  });
});
