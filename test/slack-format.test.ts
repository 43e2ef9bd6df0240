// Pure Slack formatting: Markdown -> mrkdwn and splitting answers within Slack's limits.
import { describe, expect, it } from 'vitest';
import type { Citation } from '../src/answer/cite.ts';
import { answerMessages, LIMITS, markdownToMrkdwn, modelNote, quoteLine, sourceLine, splitText } from '../src/slack/format.ts';

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
    const md = '# Result\n\n**Use 1:1000** of the *primary* antibody [S1].\n\n- first\n- see [the protocol](https://lab.example.org/wb?a=1&b=2)\n1. step one\n\n~~old~~';
    const out = markdownToMrkdwn(md);
    expect(out).toContain('*Result*');
    expect(out).toContain('*Use 1:1000* of the _primary_ antibody [S1].');
    expect(out).toContain('• first');
    expect(out).toContain('• see <https://lab.example.org/wb?a=1&b=2|the protocol>');
    expect(out).toContain('1. step one');
    expect(out).toContain('~old~');
    expect(out).not.toContain('**');
    expect(out).not.toMatch(/^#/m);
  });

  it('escapes &, < and > in text but leaves code spans and fences alone', () => {
    const out = markdownToMrkdwn('Keep at < 4 °C & > 0 °C; run `a && b`\n```\nx <y>\n```');
    expect(out).toContain('&lt; 4 °C &amp; &gt; 0 °C');
    expect(out).toContain('`a && b`');
    expect(out).toContain('```\nx &lt;y&gt;\n```');
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
    const msgs = answerMessages({ answer, refused: false, citations: [cite()], model: 'extractive', language: 'en' }, { recordId: 'rec-1' });
    expect(msgs.length).toBeGreaterThan(1);
    for (const m of msgs) {
      expect(m.blocks.length).toBeLessThanOrEqual(LIMITS.blocksPerMessage);
      expect(m.text.length).toBeGreaterThan(0);
      expect(m.text.length).toBeLessThanOrEqual(LIMITS.fallbackText);
      for (const b of m.blocks) if (b.type === 'section') expect(b.text.text.length).toBeLessThanOrEqual(LIMITS.sectionText);
    }
    const all = msgs.flatMap((m) => m.blocks).map((b) => (b.type === 'section' ? b.text.text : '')).join('\n');
    for (let i = 0; i < 200; i++) expect(all).toContain(`Paragraph ${i}:`);
    const last = msgs[msgs.length - 1].blocks;
    expect(last[last.length - 1]).toMatchObject({ type: 'actions', elements: [{ action_id: 'labbot_feedback_up', value: 'rec-1' }, { action_id: 'labbot_feedback_down', value: 'rec-1' }] });
  });

  it('lists sources as *title* — authors, year, section with the link, and names the model', () => {
    const msgs = answerMessages({ answer: 'Use 1:1000 [S1].', refused: false, citations: [cite(), cite({ url: null, title: 'Lab wiki', authors: [], year: null, section: 'Freezer', refs: ['S2'] })], model: 'gpt-4o-mini', language: 'en' });
    const texts = msgs[0].blocks.map((b) => (b.type === 'section' ? b.text.text : b.type === 'context' ? b.elements[0].text : ''));
    const sources = texts.find((t) => t.startsWith('*Sources*'))!;
    expect(sources).toContain('[S1] *<https://doi.org/10.1000/xyz123|USP7 &amp; p53 under &lt;hypoxia&gt;>* — Adaeze Okafor, Hannah Lee, Priya Raman et al., 2023, Methods');
    expect(sources).toContain('[S2] *Lab wiki* — n.d., Freezer');
    expect(texts).toContain('Answered by gpt-4o-mini');
  });

  it('a refusal has no sources; Spanish answers get Spanish labels', () => {
    const msgs = answerMessages({ answer: 'No encontré esto en el material del laboratorio.', refused: true, citations: [], model: 'none', language: 'es' });
    const json = JSON.stringify(msgs);
    expect(json).not.toContain('Fuentes');
    const es = answerMessages({ answer: 'Usa 1:1000 [S1].', refused: false, citations: [cite()], model: 'extractive', language: 'es' }, { recordId: 'r' });
    expect(JSON.stringify(es)).toContain('*Fuentes*');
    expect(JSON.stringify(es)).toContain('Útil');
    expect(modelNote('extractive', 'es')).toMatch(/Citado de las fuentes/);
    expect(sourceLine(cite({ refs: [] }))).toMatch(/^\*</);
  });
});

describe('quotes under a source', () => {
  it('shows each quote under its source, linked to the exact place', () => {
    const line = sourceLine(
      cite({ url: 'https://lab.example.org/w.pdf', link: 'https://lab.example.org/w.pdf#page=3', quotes: ['Chase samples were taken every 30 min.'] }),
    );
    expect(line.split('\n')).toEqual([
      expect.stringContaining('*<https://lab.example.org/w.pdf#page=3|'),
      '> Chase samples were taken every 30 min.',
    ]);
  });

  it('never lets document text become Slack markup', () => {
    const line = sourceLine(cite({ quotes: ['Ping <!channel> and <@U123>, see <https://evil.example|here> & *bold* _it_ ~s~ `code`'] }));
    const quote = line.split('\n')[1];
    expect(quote).not.toMatch(/<[!@#h]/);
    expect(quote).toContain('&lt;!channel&gt;');
    expect(quote).toContain('&amp;');
    expect(quote).not.toMatch(/(^|\s)[*_~`]\S/);
    expect(quote.replace(/\u200b/g, '')).toContain('*bold* _it_ ~s~ `code`');
  });

  it('cuts a long quote at a word with an ellipsis', () => {
    const q = quoteLine('word '.repeat(100));
    expect(q.length).toBeLessThanOrEqual(2 + 220);
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
    expect(text).toContain('> Block the membrane in 5% milk in TBST for 1 h.');
    expect(text.indexOf('Sources')).toBeLessThan(text.indexOf('> Block the membrane'));
  });
});
