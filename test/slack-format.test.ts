// Pure Slack formatting: Markdown -> mrkdwn and splitting answers within Slack's limits.
import { describe, expect, it } from 'vitest';
import type { Citation } from '../src/answer/cite.ts';
import { citedLinks } from '../src/answer/links.ts';
import {
  answerMessages,
  blocksTextLength,
  LIMITS,
  markdownToMrkdwn,
  modelNote,
  quoteBlock,
  quoteText,
  resplitIfTooLong,
  safeUrl,
  sourceLine,
  splitText,
  type SlackMessage,
  userMention,
} from '../src/slack/format.ts';
import { findMentions, validateMessage } from './helpers/fake-slack.ts';

const HOSTILE = 'https://x.org/><!everyone><https://evil.example/login|Sign in again';

const cite = (o: Partial<Citation> = {}): Citation => ({
  label: '[Okafor et al., 2023, Methods]',
  doc_id: 'okafor2023',
  title: 'USP7 & p53 under <hypoxia>',
  authors: ['Adaeze Okafor', 'Hannah Lee', 'Priya Raman', 'Tom Weber'],
  year: 2023,
  section: 'Methods',
  url: 'https://doi.org/10.1000/xyz123',
  link: 'https://doi.org/10.1000/xyz123',
  refs: ['S1'],
  quotes: [],
  ...o,
  // The deep link follows the document link unless a test sets its own.
  ...('link' in o ? {} : { link: o.url === undefined ? 'https://doi.org/10.1000/xyz123' : o.url }),
});

describe('markdownToMrkdwn', () => {
  it('converts bold, italics, links, headings and lists', () => {
    const md =
      '# Result\n\n**Use 1:1000** of the *primary* antibody [S1].\n\n- first\n- see [the protocol](https://lab.example.org/wb?a=1&b=2)\n1. step one\n\n~~old~~';
    // The link goes to a cited document: it stays a link.
    const out = markdownToMrkdwn(md, citedLinks([{ url: 'https://lab.example.org/wb?a=1&b=2', link: null }]));
    expect(out).toContain('*Result*');
    expect(out).toContain('*Use 1:1000* of the _primary_ antibody [S1].');
    expect(out).toContain('• first');
    expect(out).toContain('• see <https://lab.example.org/wb?a=1&b=2|the protocol>');
    expect(out).toContain('1. step one');
    expect(out).toContain('~old~');
    expect(out).not.toContain('**');
    expect(out).not.toMatch(/^#/m);
  });

  it('escapes &, < and > in text, in code spans and in fences (Slack parses <…> inside backticks)', () => {
    const out = markdownToMrkdwn('Keep at < 4 °C & > 0 °C; run `a && b`, `<!channel>` and `map<a,b>`\n```\nx <y> <!here>\n```');
    expect(out).toContain('&lt; 4 °C &amp; &gt; 0 °C');
    expect(out).toContain('`a &amp;&amp; b`');
    expect(out).toContain('`&lt;!channel&gt;`');
    expect(out).toContain('`map&lt;a,b&gt;`');
    expect(out).toContain('```\nx &lt;y&gt; &lt;!here&gt;\n```');
    expect(out).not.toMatch(/<[^>]*>/);
  });

  it('emits a link only for a validated http(s) URL; other Markdown links keep their text only', () => {
    const out = markdownToMrkdwn(
      'Ask [the team](!channel), see [login](javascript:alert(1)), [them](@U123), ' +
        '[raw](<!everyone>) and [the protocol](https://lab.example.org/a|b>c) or ' +
        '<https://lab.example.org/x_y__z__>',
      citedLinks([{ url: 'https://lab.example.org/a|b>c', link: 'https://lab.example.org/x_y__z__' }]),
    );
    expect(out).not.toContain('<!channel');
    expect(out).not.toContain('javascript');
    expect(out).toContain('Ask the team, see login, them,');
    expect(out).toContain('<https://lab.example.org/a%7Cb%3Ec|the protocol>');
    expect(out).toContain('<https://lab.example.org/x_y__z__|https://lab.example.org/x_y__z__>');
    expect(findMentions({ text: out })).toEqual([]);
    expect(markdownToMrkdwn('<https://evil.example/login|Sign in again>')).toBe('&lt;https://evil.example/login|Sign in again&gt;');
  });

  it('keeps nested list indentation and does not turn bullets into italics', () => {
    const out = markdownToMrkdwn('* top\n  * nested with *em*');
    expect(out).toBe('• top\n    • nested with _em_');
  });
});

describe('splitText and answerMessages', () => {
  it('splits a 20,000-character answer into sections <= 3000 chars without losing anything', () => {
    const words = Array.from({ length: 3000 }, (_, i) => `w${i}`);
    const text = words.join(' ').slice(0, 20_000);
    const parts = splitText(text);
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(LIMITS.sectionText);
    expect(parts.join('')).toBe(text);
  });

  it('cuts an unbroken 10,000-character run hard, and re-opens code fences across pieces', () => {
    const run = 'A'.repeat(10_000);
    expect(splitText(run).join('')).toBe(run);
    const code = `\`\`\`\n${'line of code\n'.repeat(600)}\`\`\``;
    const parts = splitText(code);
    expect(parts.length).toBeGreaterThan(2);
    for (const p of parts) {
      expect(p.length).toBeLessThanOrEqual(LIMITS.sectionText);
      expect((p.match(/```/g) ?? []).length % 2).toBe(0);
    }
    expect(parts.join('').match(/line of code/g)?.length).toBe(600);
  });

  it('builds <= 50 blocks per message, a fallback text on each, buttons on the last', () => {
    const answer = Array.from({ length: 200 }, (_, i) => `Paragraph ${i}: ${'lorem ipsum dolor sit amet '.repeat(40)}[S1]`).join('\n\n');
    expect(answer.length).toBeGreaterThan(200_000);
    const msgs = answerMessages(
      { answer, refused: false, citations: [cite()], model: 'extractive', language: 'en' },
      { recordId: 'rec-1' },
    );
    expect(msgs.length).toBeGreaterThan(1);
    for (const m of msgs) {
      expect(m.blocks.length).toBeLessThanOrEqual(LIMITS.blocksPerMessage);
      expect(m.text.length).toBeGreaterThan(0);
      expect(m.text.length).toBeLessThanOrEqual(LIMITS.fallbackText);
      for (const b of m.blocks) if (b.type === 'section') expect(b.text.text.length).toBeLessThanOrEqual(LIMITS.sectionText);
    }
    const all = msgs
      .flatMap((m) => m.blocks)
      .map((b) => (b.type === 'section' ? b.text.text : ''))
      .join('\n');
    for (let i = 0; i < 200; i++) expect(all).toContain(`Paragraph ${i}:`);
    const last = msgs[msgs.length - 1].blocks;
    expect(last[last.length - 1]).toMatchObject({
      type: 'actions',
      elements: [
        { action_id: 'labbot_feedback_up', value: 'rec-1' },
        { action_id: 'labbot_feedback_down', value: 'rec-1' },
      ],
    });
  });

  it('lists sources as *title* — authors, year, section with the link, and names the model', () => {
    const msgs = answerMessages({
      answer: 'Use 1:1000 [S1].',
      refused: false,
      citations: [cite(), cite({ url: null, title: 'Lab wiki', authors: [], year: null, section: 'Freezer', refs: ['S2'] })],
      model: 'gpt-4o-mini',
      language: 'en',
    });
    const texts = msgs[0].blocks.map((b) => (b.type === 'section' ? b.text.text : b.type === 'context' ? b.elements[0].text : ''));
    const sources = texts.find((t) => t.startsWith('*Sources*'))!;
    expect(sources).toContain(
      '[S1] *<https://doi.org/10.1000/xyz123|USP7 &amp; p53 under &lt;hypoxia&gt;>* (doi.org) — Adaeze Okafor, Hannah Lee, Priya Raman et al., 2023, Methods',
    );
    expect(sources).toContain('[S2] *Lab wiki* — n.d., Freezer');
    expect(texts).toContain('Answered by gpt-4o-mini');
  });

  it('a refusal has no sources; Spanish answers get Spanish labels', () => {
    const msgs = answerMessages({
      answer: 'No encontré esto en el material del laboratorio.',
      refused: true,
      citations: [],
      model: 'none',
      language: 'es',
    });
    const json = JSON.stringify(msgs);
    expect(json).not.toContain('Fuentes');
    const es = answerMessages(
      { answer: 'Usa 1:1000 [S1].', refused: false, citations: [cite()], model: 'extractive', language: 'es' },
      { recordId: 'r' },
    );
    expect(JSON.stringify(es)).toContain('*Fuentes*');
    expect(JSON.stringify(es)).toContain('Útil');
    expect(modelNote('extractive', 'es')).toMatch(/Citado de las fuentes/);
    expect(sourceLine(cite({ refs: [] }))).toMatch(/^\*</);
  });
});

describe('safe output', () => {
  it('safeUrl keeps http(s) URLs that parse, percent-encoding what would break <url|text>, and refuses the rest', () => {
    expect(safeUrl('https://doi.org/10.1000/xyz123')).toBe('https://doi.org/10.1000/xyz123');
    expect(safeUrl(HOSTILE)).toBe('https://x.org/%3E%3C!everyone%3E%3Chttps://evil.example/login%7CSign%20in%20again');
    expect(safeUrl('https://x.org/?q=a b|c<d>')).toBe('https://x.org/?q=a%20b%7Cc%3Cd%3E');
    for (const bad of [
      'javascript:alert(1)',
      '!channel',
      'ftp://x.org/f',
      'https://slack.com@evil.example/',
      'not a url',
      '//x.org/a',
      'https://',
    ]) {
      expect(safeUrl(bad)).toBeUndefined();
    }
  });

  it('a hostile document url gives one harmless link to its own host: no @everyone, no second link', () => {
    const line = sourceLine(cite({ url: HOSTILE, title: 'Hypoxia | <b>' }));
    expect(findMentions({ text: line })).toEqual([]);
    expect(line.match(/</g)).toHaveLength(1);
    expect(line).toContain('*<https://x.org/%3E%3C!everyone%3E%3Chttps://evil.example/login%7CSign%20in%20again|Hypoxia ¦ &lt;b&gt;>*');
    const notHttp = sourceLine(cite({ url: 'javascript:alert(document.cookie)<!here>' }));
    expect(notHttp).toContain('*USP7 &amp; p53 under &lt;hypoxia&gt;* —');
    expect(notHttp).toContain('`javascript:alert(document.cookie)&lt;!here&gt;`');
    expect(findMentions({ text: notHttp })).toEqual([]);
  });

  it('escapes the fallback text too (Slack renders `text` as mrkdwn)', () => {
    const [m] = answerMessages({
      answer: '<!channel> use <@U123> & <https://evil.example|login>',
      refused: false,
      citations: [],
      model: 'extractive',
      language: 'en',
    });
    expect(m.text).toContain('&lt;!channel&gt; use &lt;@U123&gt; &amp; &lt;https://evil.example|login&gt;');
    expect(findMentions(m)).toEqual([]);
  });

  it('splits a 20,000-character answer into messages within the cumulative budget, Sources and buttons on the last', () => {
    const answer = Array.from(
      { length: 40 },
      (_, i) => `Paragraph ${i}: ${'the membrane is blocked in milk for one hour '.repeat(11)}[S1]`,
    ).join('\n\n');
    expect(answer.length).toBeGreaterThan(20_000);
    const msgs = answerMessages(
      { answer, refused: false, citations: [cite({ url: HOSTILE })], model: 'extractive', language: 'en' },
      { recordId: 'rec-1' },
    );
    expect(msgs.length).toBeGreaterThanOrEqual(2);
    for (const m of msgs) {
      expect(validateMessage(m as unknown as Record<string, unknown>)).toBeUndefined();
      expect(blocksTextLength(m.blocks) + m.text.length).toBeLessThanOrEqual(LIMITS.messageText);
      expect(findMentions(m)).toEqual([]);
    }
    const texts = (m: SlackMessage) => m.blocks.map((b) => (b.type === 'section' ? b.text.text : '')).join('\n');
    const all = msgs.map(texts).join('\n');
    for (let i = 0; i < 40; i++) expect(all).toContain(`Paragraph ${i}:`);
    expect(all.match(/blocked in milk/g)).toHaveLength(40 * 11);
    const last = msgs[msgs.length - 1];
    expect(texts(last)).toContain('*Sources*');
    expect(last.blocks[last.blocks.length - 1]).toMatchObject({ type: 'actions' });
    for (const m of msgs.slice(0, -1)) expect(JSON.stringify(m)).not.toMatch(/\*Sources\*|labbot_feedback/);
  });

  it('re-splits a message Slack refused as msg_blocks_too_long into smaller ones, nothing dropped; other errors are not re-split', () => {
    const answer = Array.from({ length: 12 }, (_, i) => `Part ${i}: ${'word '.repeat(180)}`).join('\n\n');
    const [m] = answerMessages({ answer, refused: false, citations: [cite()], model: 'extractive', language: 'en' }, { recordId: 'r' });
    const refused = { code: 'slack_webapi_platform_error', data: { ok: false, error: 'msg_blocks_too_long' } };
    const parts = resplitIfTooLong(refused, m)!;
    expect(parts.length).toBeGreaterThanOrEqual(2);
    for (const p of parts) expect(blocksTextLength(p.blocks)).toBeLessThanOrEqual(Math.ceil(blocksTextLength(m.blocks) / 2));
    const words = (ms: SlackMessage[]) =>
      ms
        .flatMap((x) => x.blocks)
        .map((b) => (b.type === 'section' ? b.text.text : ''))
        .join(' ')
        .match(/\S+/g)?.length;
    expect(words(parts)).toBe(words([m]));
    expect(parts[0].text).toBe(m.text);
    const lastText = (x: SlackMessage) => JSON.stringify(x.blocks.at(-1));
    expect(lastText(m).endsWith(lastText(parts[parts.length - 1]).slice(-60))).toBe(true);
    expect(resplitIfTooLong({ data: { error: 'invalid_blocks' } }, m)).toBeUndefined();
  });

  it('userMention is the only mention labbot writes on purpose, and only for a well-formed user id', () => {
    expect(userMention('U0123ABC')).toBe('<@U0123ABC>');
    expect(userMention('W42XY')).toBe('<@W42XY>');
    expect(userMention('U1><!channel')).toBe('U1&gt;&lt;!channel');
    expect(findMentions({ text: userMention('!here') })).toEqual([]);
  });
});

describe('quotes under a source', () => {
  it('shows each quote under its source line as rich text, the line linked to the exact place', () => {
    const msgs = answerMessages({
      answer: 'Chase every 30 min [S1].',
      refused: false,
      citations: [
        cite({
          url: 'https://lab.example.org/w.pdf',
          link: 'https://lab.example.org/w.pdf#page=3',
          quotes: ['Chase samples were taken every 30 min.'],
        }),
      ],
      model: 'extractive',
      language: 'en',
    });
    const blocks = msgs[0].blocks;
    const at = blocks.findIndex((b) => b.type === 'section' && b.text.text.includes('*<https://lab.example.org/w.pdf#page=3|'));
    expect(at).toBeGreaterThan(0);
    expect(blocks[at + 1]).toEqual({
      type: 'rich_text',
      elements: [{ type: 'rich_text_quote', elements: [{ type: 'text', text: 'Chase samples were taken every 30 min.' }] }],
    });
  });

  it('keeps every character of a quote as written: no zero-width spaces, no entities, and none of it becomes markup', () => {
    // Rich text is not parsed as mrkdwn, so a primer name or a file path is copied exactly as the document has it.
    const original = 'Primer *FWD_p53* ~ `ACG_TTA` at /data/run_01/*.fastq; Ping <!channel> & <https://evil.example|here>';
    const block = quoteBlock([original])!;
    expect(block.elements[0].elements[0].text).toBe(original);
    expect(JSON.stringify(block)).not.toMatch(/\\u200b|&amp;|&lt;/);
    // Only text elements: Slack pings or links only through user, broadcast or link elements.
    expect(block.elements.flatMap((e) => e.elements.map((t) => t.type))).toEqual(['text']);
    const m = answerMessages({
      answer: 'See [S1].',
      refused: false,
      citations: [cite({ quotes: [original] })],
      model: 'extractive',
      language: 'en',
    })[0];
    expect(validateMessage(m as unknown as Record<string, unknown>)).toBeUndefined();
    expect(JSON.stringify(m)).not.toContain('\\u200b');
  });

  it('cuts a long quote at a word with an ellipsis', () => {
    const q = quoteText('word '.repeat(100));
    expect(q.length).toBeLessThanOrEqual(220);
    expect(q.endsWith('word…')).toBe(true);
  });

  it('puts quotes in the answer message under the Sources heading', () => {
    const msgs = answerMessages({
      answer: 'Block for 1 h [S1].',
      refused: false,
      citations: [cite({ quotes: ['Block the membrane in 5% milk in TBST for 1 h.'] })],
      model: 'extractive',
      language: 'en',
    });
    const text = JSON.stringify(msgs[0].blocks);
    expect(text).toContain('"rich_text_quote","elements":[{"type":"text","text":"Block the membrane in 5% milk in TBST for 1 h."}]');
    expect(text.indexOf('Sources')).toBeLessThan(text.indexOf('Block the membrane in 5%'));
  });
});
