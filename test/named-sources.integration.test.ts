// A name that matches nothing does not silence the index. On a shelf of PDFs with no metadata
// (authors on page 1, Zotero file names, info dictionaries dated the download day), "What did
// Sharma et al. 2022 find about fin length?" was refused ("couldn't find Sharma 2022") although
// the paper is indexed. Page 1 now gives such a PDF its metadata, so the name restricts the
// answer to it. Where no metadata reader can help (papers copied into .txt files, names only in
// their first lines), the documents that carry the name in their first lines or file name are
// searched first and the answer says the name matched no metadata; a name the index's metadata
// rules out (and nothing carries) is still refused.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Labbot } from '../src/app.ts';
import { makeShelf, makeTextShelf, type ShelfFile } from './fixtures/shelf.ts';
import { chatEnv, passageLine, startFakeOpenAI, type FakeOpenAI } from './helpers/fake-openai.ts';
import { openTestApp } from './helpers/app.ts';

const LAB = path.resolve('examples/lab');

async function shelfDir(files?: ShelfFile[]): Promise<{ dir: string; shelf: ShelfFile[] }> {
  const shelf = files ?? (await makeShelf());
  const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-shelf-'));
  for (const f of shelf) writeFileSync(path.join(dir, f.name), f.bytes);
  return { dir, shelf };
}

/** The shelf and the sample lab as two folder sources of one app, both ingested. */
async function shelfBesideLab(files: ShelfFile[]): Promise<{ app: Labbot; shelf: ShelfFile[] }> {
  const made = await shelfDir(files);
  const app = await openTestApp({
    fileConfig: {
      sources: [
        { id: 'shelf', type: 'folder', path: made.dir },
        { id: 'lab', type: 'folder', path: LAB },
      ],
      access: { default: 'public', channels: {} },
    },
  });
  for (const s of app.config.sources) expect((await app.ingestSource(s)).failed).toEqual([]);
  return { app, shelf: made.shelf };
}

const docOf = (shelf: ShelfFile[], title: string) => `shelf:${shelf.find((f) => f.paper.title === title)!.name}`;

describe('named sources on a shelf without metadata, beside the sample lab (no model)', () => {
  let app: Labbot;
  let shelf: ShelfFile[];
  beforeAll(async () => {
    ({ app, shelf } = await shelfBesideLab(await makeShelf()));
  });
  afterAll(async () => app?.close());

  it('answers "What did Sharma et al. 2022 find about fin length?" from the Sharma paper alone, by the metadata its page 1 prints', async () => {
    const sharma = docOf(shelf, 'Loss of kcnk5b lengthens zebrafish fins');
    const r = await app.ask('What did Sharma et al. 2022 find about fin length?');
    expect(r.refused).toBe(false);
    expect(r.source).toMatchObject({ restricts: true, documents: 1 });
    expect(r.source?.unmatched).toBeUndefined();
    expect(new Set(r.passages.map((p) => p.doc_id))).toEqual(new Set([sharma]));
    expect(r.citations.length).toBeGreaterThan(0);
    expect(r.citations.every((c) => c.label.startsWith('[Sharma et al., 2022, '))).toBe(true);
    expect(r.answer).not.toContain("No document's metadata matches");
  });

  it('tells two papers by the same author apart by the year on their first page', async () => {
    for (const [question, title] of [
      ['In Novak et al. (2019): how much did fin length change?', 'Fgf20a signalling sets the pace of fin outgrowth'],
      ['In Novak et al. (2023): how much did fin length change?', 'Calcineurin restrains fin outgrowth in adult zebrafish'],
    ]) {
      const r = await app.ask(question);
      expect(r.passages[0].doc_id, question).toBe(docOf(shelf, title));
    }
  });

  it('finds a paper whose info dictionary names its authors but dates it the day it was downloaded', async () => {
    const download = shelf.find((f) => f.style === 'download')!;
    const r = await app.ask(download.question);
    expect(r.passages[0].doc_id).toBe(`shelf:${download.name}`);
  });

  it("still refuses a source the index's metadata rules out and no document carries", async () => {
    const r = await app.ask('In the Zhang 2019 paper, which antibody was used for p53?');
    expect(r.refused).toBe(true);
    expect(r.passages).toEqual([]);
    expect(r.answer).toMatch(/Zhang 2019/);
  });

  it('still restricts to the paper whose metadata matches', async () => {
    const r = await app.ask('In the Weber 2020 paper, how often was the chase sampled?');
    expect(r.source).toMatchObject({ restricts: true, documents: 1 });
    expect(new Set(r.passages.map((p) => p.doc_id))).toEqual(new Set(['lab:papers/weber2020-hypoxia-p53.pdf']));
  });
});

describe('named sources on papers kept as text files, beside the sample lab (no model)', () => {
  let app: Labbot;
  let shelf: ShelfFile[];
  beforeAll(async () => {
    ({ app, shelf } = await shelfBesideLab(makeTextShelf()));
  });
  afterAll(async () => app?.close());

  it('answers from the paper whose first lines carry the name, saying the name matched no metadata', async () => {
    const sharma = docOf(shelf, 'Loss of kcnk5b lengthens zebrafish fins');
    const r = await app.ask('What did Sharma et al. 2022 find about fin length?');
    expect(r.refused).toBe(false);
    expect(r.passages[0].doc_id).toBe(sharma);
    expect(r.citations.length).toBeGreaterThan(0);
    expect(r.citations.every((c) => c.doc_id === sharma)).toBe(true);
    expect(r.answer).toContain(
      'No document\'s metadata matches "Sharma 2022"; answered from the documents that name it on their first page or in their file name.',
    );
    expect(r.source).toMatchObject({ restricts: false, documents: 0, unmatched: 'Sharma 2022', lifted: 1 });
  });

  it('tells two papers by the same author apart by the year in their first lines', async () => {
    for (const title of ['Fgf20a signalling sets the pace of fin outgrowth', 'Calcineurin restrains fin outgrowth in adult zebrafish']) {
      const file = shelf.find((f) => f.paper.title === title)!;
      const r = await app.ask(file.question);
      expect(r.passages[0].doc_id, file.question).toBe(`shelf:${file.name}`);
    }
  });
});

describe('named sources on a shelf with no metadata at all, with a model', () => {
  let app: Labbot;
  let fake: FakeOpenAI;
  let shelf: ShelfFile[];
  beforeAll(async () => {
    fake = await startFakeOpenAI({ dimensions: 64 });
    // Text files only: nothing in the index has authors or years.
    const made = await shelfDir(makeTextShelf());
    shelf = made.shelf;
    app = await openTestApp({
      fileConfig: { sources: [{ id: 'shelf', type: 'folder', path: made.dir }], access: { default: 'public', channels: {} } },
      env: chatEnv(fake),
    });
    expect((await app.ingestSource(app.config.sources[0])).failed).toEqual([]);
    expect([...app.catalog.docs()].every((d) => d.authors.length === 0 && d.year === undefined)).toBe(true);
  });
  afterAll(async () => {
    await app?.close();
    await fake?.close();
  });

  it('gives the model the named paper first and says which name matched no metadata', async () => {
    fake.reply = (messages) => {
      const user = messages
        .filter((m) => m.role === 'user')
        .map((m) => m.content)
        .join('\n');
      const first = /<passage id="(S\d+)">[\s\S]*?\ntext:\n[\s\S]*?kcnk5b mutant fins were 34% longer/.exec(user);
      return first
        ? `kcnk5b mutant fins were 34% longer than wild-type fins [${first[1]}].`
        : "I couldn't find this in the lab's material.";
    };
    const r = await app.ask('What did Sharma et al. 2022 find about fin length?');
    expect(r.passages[0].doc_id).toBe(docOf(shelf, 'Loss of kcnk5b lengthens zebrafish fins'));
    expect(r.refused).toBe(false);
    expect(r.answer.split('\n\n')).toEqual([
      expect.stringMatching(/34% longer/),
      expect.stringMatching(/^No document's metadata matches "Sharma 2022"/),
    ]);
  });

  it('searches everything, and says so, for a name nothing carries when no metadata could rule it out', async () => {
    fake.reply = (messages) => `${passageLine(messages, 'S1')} [S1]`;
    const r = await app.ask('In Zhang et al. (2019): how much did fin length change?');
    expect(r.source).toMatchObject({ restricts: false, unmatched: 'Zhang 2019', lifted: 0 });
    expect(r.refused).toBe(false);
    expect(r.answer).toMatch(/\n\nNo document's metadata matches "Zhang 2019"; answered from all of the lab's material\.$/);
  });
});
