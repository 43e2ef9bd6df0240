import { describe, expect, it } from 'vitest';
import { parseFile } from '../src/ingest/parse/index.ts';
import { parseMarkdown } from '../src/ingest/parse/markdown.ts';
import { parseText } from '../src/ingest/parse/text.ts';
import type { Block } from '../src/types.ts';
import { utf8 } from './fixtures/make.ts';

const headings = (blocks: Block[]) => blocks.flatMap((b) => (b.type === 'heading' ? [`${b.level} ${b.text}`] : []));

const PROTOCOL = `---
title: Western blot for TP53
authors: Ada Okafor; Min Lee
year: "2021"
kind: Protocol
access: cell-culture
updated: 2024-01-05
tags: [blot, p53]
---

# Western blot for TP53

Detects **total p53** in _whole-cell_ lysates. See [the antibody sheet](https://example.org/ab) and \`ab32389\`.
<!-- internal: reorder antibody in May -->

## Materials

| Reagent | Catalogue | Amount |
|---------|-----------|--------|
| Anti-p53 antibody | ab32389 | 1:1000 |
| **RIPA** buffer | R0278 | 10 mL |

## Procedure

3. Lyse cells in RIPA buffer.
4. Load 20 µg per lane:
   - ladder in lane 1
   - samples in lanes 2-10
5. Transfer at 100 V for 60 min.

- [x] Ordered membrane
- [ ] Booked imager

\`\`\`bash
imagej --headless quantify.ijm
\`\`\`

> Keep the *tank* cold.

<!-- a block comment -->

<table><tr><th>Step</th><th>Time</th></tr><tr><td>Block</td><td>1 h</td></tr></table>
`;

describe('Markdown front matter', () => {
  const parsed = parseMarkdown(PROTOCOL);

  it('coerces front matter into DocMeta', () => {
    expect(parsed.meta).toEqual({
      title: 'Western blot for TP53',
      authors: ['Ada Okafor', 'Min Lee'],
      year: 2021,
      kind: 'protocol',
      access: 'cell-culture',
      updated: '2024-01-05',
      keywords: ['blot', 'p53'],
    });
    expect(parsed.warnings).toEqual([]);
  });

  it('turns a YAML date year into its year and reports an unknown kind', () => {
    const r = parseMarkdown('---\ntitle: x\nyear: 2019-06-01\nkind: poster\n---\nBody text.\n');
    expect(r.meta.year).toBe(2019);
    expect(r.meta.kind).toBeUndefined();
    expect(r.warnings.join('\n')).toMatch(/unknown kind "poster"/);
  });

  it('survives broken YAML: warning, flagged unreadable, body still parsed, no front matter text in blocks', () => {
    const r = parseMarkdown('---\ntitle: [unclosed\nauthors: : :\n---\n# Heading\n\nBody text here.\n');
    expect(r.meta.title).toBeUndefined();
    expect(r.meta.unreadableFrontMatter).toBeTruthy();
    expect(r.warnings[0]).toMatch(/front matter ignored/);
    expect(r.blocks).toEqual([
      { type: 'heading', level: 1, text: 'Heading' },
      { type: 'paragraph', text: 'Body text here.' },
    ]);
  });

  it('does not treat a leading thematic break around prose as front matter', () => {
    const r = parseMarkdown('---\nJust a sentence without any colon\n---\n\nAnd more text.\n');
    expect(r.warnings).toEqual([]);
    // marked reads "text" + "---" as a setext heading; what matters is that the text is kept.
    expect(JSON.stringify(r.blocks)).toContain('Just a sentence without any colon');
    expect(r.meta).toEqual({});
  });

  it('never evaluates JavaScript front matter', () => {
    const r = parseMarkdown("---js\n{ title: (globalThis.__mdPwned = 'yes') }\n---\nText.\n");
    expect((globalThis as Record<string, unknown>).__mdPwned).toBeUndefined();
    expect(r.meta.title).toBeUndefined();
  });
});

describe('Markdown body', () => {
  const { blocks } = parseMarkdown(PROTOCOL);

  it('keeps headings with their levels, in order', () => {
    expect(headings(blocks)).toEqual(['1 Western blot for TP53', '2 Materials', '2 Procedure']);
  });

  it('reduces inline markup to plain text and drops HTML comments', () => {
    const para = blocks.find((b) => b.type === 'paragraph');
    expect(para).toEqual({
      type: 'paragraph',
      text: 'Detects total p53 in whole-cell lysates. See the antibody sheet and ab32389.',
    });
    expect(JSON.stringify(blocks)).not.toMatch(/internal: reorder|block comment|\*\*|https:\/\/example/);
  });

  it('reads tables with header and rows', () => {
    const table = blocks.find((b) => b.type === 'table');
    expect(table).toEqual({
      type: 'table',
      header: ['Reagent', 'Catalogue', 'Amount'],
      rows: [
        ['Anti-p53 antibody', 'ab32389', '1:1000'],
        ['RIPA buffer', 'R0278', '10 mL'],
      ],
    });
  });

  it('reads ordered lists with their start and flattens nested lists into the item', () => {
    const lists = blocks.filter((b) => b.type === 'list');
    expect(lists[0]).toEqual({
      type: 'list',
      ordered: true,
      start: 3,
      items: [
        'Lyse cells in RIPA buffer.',
        'Load 20 µg per lane: ladder in lane 1; samples in lanes 2-10',
        'Transfer at 100 V for 60 min.',
      ],
    });
    expect(lists[1]).toEqual({ type: 'list', ordered: false, items: ['[x] Ordered membrane', '[ ] Booked imager'] });
  });

  it('keeps code, block quotes and embedded HTML tables', () => {
    expect(blocks).toContainEqual({ type: 'code', text: 'imagej --headless quantify.ijm' });
    expect(blocks).toContainEqual({ type: 'paragraph', text: 'Keep the tank cold.' });
    expect(blocks).toContainEqual({ type: 'table', header: ['Step', 'Time'], rows: [['Block', '1 h']] });
  });

  it('decodes character references in text', () => {
    const r = parseMarkdown('Salt &amp; pepper &lt;3 &#181;L\n');
    expect(r.blocks).toEqual([{ type: 'paragraph', text: 'Salt & pepper <3 µL' }]);
  });

  it('reads very deep nesting as text instead of overflowing the stack', async () => {
    const deepQuote = `${'>'.repeat(20000)} deep quote text\n\nNormal paragraph.\n`;
    const t0 = Date.now();
    const r = await parseFile({ name: 'deep.md', bytes: utf8(deepQuote) });
    expect(r.warnings.join('\n')).toMatch(/nested too deeply/);
    expect(JSON.stringify(r.blocks)).toContain('Normal paragraph.');

    const deepList = Array.from({ length: 3000 }, (_, i) => `${'  '.repeat(i)}- item ${i}`).join('\n');
    const r2 = await parseFile({ name: 'list.md', bytes: utf8(deepList) });
    expect(JSON.stringify(r2.blocks)).toContain('item 2999');
    expect(Date.now() - t0).toBeLessThan(10_000);
  });

  it('goes through parseFile with the markdown format', async () => {
    const r = await parseFile({ name: 'protocols/wb.MD', bytes: utf8(PROTOCOL) });
    expect(r.format).toBe('markdown');
    expect(r.meta.title).toBe('Western blot for TP53');
  });
});

describe('plain text', () => {
  it('joins wrapped lines into paragraphs split at blank lines', () => {
    const r = parseText('Keep the tank\ncold during transfer.\n\n\nUse fresh buffer\nevery time.\n');
    expect(r.format).toBe('text');
    expect(r.blocks).toEqual([
      { type: 'paragraph', text: 'Keep the tank cold during transfer.' },
      { type: 'paragraph', text: 'Use fresh buffer every time.' },
    ]);
  });

  it('keeps list lines apart and reads "# " lines as headings', () => {
    const r = parseText('# Freezer rules\nSteps:\n1. Label every box\n2. Log it in the sheet\n   with the date\n\n- gloves\n- goggles\n');
    expect(r.blocks).toEqual([
      { type: 'heading', level: 1, text: 'Freezer rules' },
      { type: 'paragraph', text: 'Steps:' },
      { type: 'list', ordered: true, items: ['Label every box', 'Log it in the sheet with the date'] },
      { type: 'list', ordered: false, items: ['gloves', 'goggles'] },
    ]);
  });

  it('does not infer headings from short lines', () => {
    const r = parseText('IMPORTANT\n\nNever leave the centrifuge running unattended.\n');
    expect(r.blocks.every((b) => b.type === 'paragraph')).toBe(true);
  });

  it('handles Windows line endings through parseFile', async () => {
    const r = await parseFile({ name: 'notes.txt', bytes: utf8('First line\r\nsame paragraph\r\n\r\nSecond.\r\n') });
    expect(r.blocks).toEqual([
      { type: 'paragraph', text: 'First line same paragraph' },
      { type: 'paragraph', text: 'Second.' },
    ]);
  });
});
