// The one link rule (src/answer/links.ts) and the one visible-text rule (src/answer/visible-text.ts),
// in every output that renders them: Slack mrkdwn, the streamed preview, the CLI/API Markdown, the
// plain-text fallback and what leaves through Slack's transport.
import { describe, expect, it } from 'vitest';
import { answerText } from '../src/answer/ask-json.ts';
import { citedLinks, decideLink, markdownWithSafeLinks, NO_LINKS } from '../src/answer/links.ts';
import { hasInvisible, visibleText } from '../src/answer/visible-text.ts';
import { answerMessages, blocksAsMrkdwn, markdownToMrkdwn, sourceLine } from '../src/slack/format.ts';
import { visibleBody } from '../src/slack/outgoing.ts';
import { escapeStreamText } from '../src/slack/stream.ts';
import type { Citation } from '../src/answer/cite.ts';

const PORTAL = '[the official lab portal](https://evil.example/login)';

const cite = (o: Partial<Citation> = {}): Citation => ({
  label: '[Lab handbook, n.d., Access]',
  doc_id: 'lab:handbook.md',
  title: 'Lab handbook',
  authors: [],
  year: null,
  section: 'Access',
  url: 'https://wiki.lab.example.org/handbook',
  link: 'https://wiki.lab.example.org/handbook#access',
  refs: ['S1'],
  quotes: [],
  ...o,
});

const sectionTexts = (answer: string, citations: Citation[] = [cite()]) =>
  answerMessages({ answer, refused: false, citations, model: 'extractive', language: 'en' })
    .flatMap((m) => m.blocks)
    .flatMap((b) => (b.type === 'section' ? [b.text] : []));

describe('disguised links', () => {
  it('a document line linking to a host of no cited document is its text and host, never a masked link (issue 21)', () => {
    const [body] = sectionTexts(`To reset your password use ${PORTAL} [S1].`);
    expect(body.text).toContain('use the official lab portal (evil.example) [S1].');
    expect(body.text).not.toContain('<https://evil.example');
    expect(body.text).not.toMatch(/<https?:[^>|]+\|/);
  });

  it('a link to the cited document, or a deep link into it, stays a link', () => {
    const [body] = sectionTexts(
      'See [the access page](https://wiki.lab.example.org/handbook#badges) and [its top](https://wiki.lab.example.org/handbook) [S1].',
    );
    // With the link's host after it: a document may claim any URL as its own.
    expect(body.text).toContain('<https://wiki.lab.example.org/handbook#badges|the access page> (wiki.lab.example.org)');
    expect(body.text).toContain('<https://wiki.lab.example.org/handbook|its top> (wiki.lab.example.org)');
  });

  it('the same host with another path is another document: text and host', () => {
    const [body] = sectionTexts('Log in at [the handbook login](https://wiki.lab.example.org/login) [S1].');
    expect(body.text).toContain('the handbook login (wiki.lab.example.org)');
    expect(body.text).not.toContain('<https://wiki.lab.example.org/login');
  });

  it('autolinks and refusals link nothing; credentials in a URL are never a cited document', () => {
    expect(markdownToMrkdwn('go to <https://evil.example/login>')).toBe('go to https://evil.example/login');
    const refusal = answerMessages({
      answer: `Not in the material. ${PORTAL}`,
      refused: true,
      citations: [cite()],
      model: 'none',
      language: 'en',
    });
    expect(JSON.stringify(refusal)).not.toContain('<https://evil');
    const sneaky = citedLinks([cite({ url: 'https://wiki.lab.example.org@evil.example/x', link: null })]);
    expect(sneaky.allows('https://wiki.lab.example.org@evil.example/x')).toBe(false);
    expect(decideLink('https://evil.example/login', 'evil.example', NO_LINKS)).toEqual({
      kind: 'text',
      text: 'evil.example',
      host: undefined,
    });
  });

  it('document-derived mrkdwn (the answer and its Sources) is posted verbatim', () => {
    const msgs = answerMessages(
      { answer: 'Badges at https://evil.example/badge [S1].', refused: false, citations: [cite()], model: 'extractive', language: 'en' },
      { recordId: 'r1' },
    );
    const texts = msgs.flatMap((m) => m.blocks).flatMap((b) => (b.type === 'section' ? [b.text] : []));
    expect(texts.length).toBeGreaterThanOrEqual(2);
    for (const t of texts) expect(t.verbatim).toBe(true);
  });

  it('the Sources line shows the host of the document’s own link, so a hostile canonical URL is visible', () => {
    const line = sourceLine(cite({ url: 'https://evil.example/login', link: 'https://evil.example/login' }));
    expect(line).toContain('*<https://evil.example/login|Lab handbook>* (evil.example) —');
  });
});

describe('garbled link text (issue 21)', () => {
  const MODEL = '[`ab32389`](https://www.abcam.com/ab32389)';
  it('a code span inside link text is restored: the catalogue number shows, no control character is posted', () => {
    const notCited = markdownToMrkdwn(`Use ${MODEL} at 1:1000 [S1].`, citedLinks([cite()]));
    expect(notCited).toBe('Use `ab32389` (www.abcam.com) at 1:1000 [S1].');
    const cited = markdownToMrkdwn(
      `Use ${MODEL} at 1:1000 [S1].`,
      citedLinks([cite({ url: 'https://www.abcam.com/ab32389', link: null })]),
    );
    expect(cited).toBe('Use <https://www.abcam.com/ab32389|ab32389> (www.abcam.com) at 1:1000 [S1].');
    for (const out of [notCited, cited]) expect(hasInvisible(out)).toBe(false);
  });

  it('nested holds resolve however deep (bold and code inside a link inside a list item)', () => {
    const out = markdownToMrkdwn('- see [**`p53`** and `MDM2`](https://wiki.lab.example.org/handbook)', citedLinks([cite()]));
    expect(out).toBe('• see <https://wiki.lab.example.org/handbook|**p53** and MDM2> (wiki.lab.example.org)');
    expect(hasInvisible(out)).toBe(false);
  });
});

describe('the same rule outside Slack', () => {
  it('the CLI and the JSON answer keep links to cited documents and show any other as text and host', () => {
    const md = `Reset at ${PORTAL}; see [the access page](https://wiki.lab.example.org/handbook#badges) and \`[x](https://evil.example)\`.`;
    expect(markdownWithSafeLinks(md, citedLinks([cite()]))).toBe(
      'Reset at the official lab portal (evil.example); see [the access page](https://wiki.lab.example.org/handbook#badges) and `[x](https://evil.example)`.',
    );
    // Citing nothing, the answer links nothing (a code span stays literal code).
    expect(answerText({ answer: md, refused: false, citations: [] })).toBe(
      'Reset at the official lab portal (evil.example); see the access page (wiki.lab.example.org) and `[x](https://evil.example)`.',
    );
  });

  it('the streamed preview can never form a Markdown link', () => {
    const out = escapeStreamText(`${PORTAL} \\[sneaky](https://evil.example) [S1]`);
    // No unescaped [text](url) left (Slack's markdown honours backslash escapes).
    expect(out).not.toMatch(/(?<!\\)\[[^\]]*(?<!\\)\]\(/);
    expect(out).toContain('\\[S1\\]');
  });
});

describe('visible text', () => {
  it('removes controls and invisible formatting, keeps tabs, line breaks, emoji joiners and every visible character', () => {
    expect(visibleText('a\u0002b\u0000c\u001bd')).toBe('a b c d');
    expect(visibleText('FWD\u200b_p53 \u202eexe.txt \u2066x\u2069 tag\u{E0041}s \ufeffBOM')).toBe('FWD_p53 exe.txt x tags BOM');
    expect(visibleText('line1\r\nline2\rline3\u2028line4\tend')).toBe('line1\nline2\nline3\nline4\tend');
    expect(visibleText('👩‍🔬 سلام‌ها')).toBe('👩‍🔬 سلام‌ها');
    expect(visibleText('half \ud800 pair')).toBe('half \ufffd pair');
    expect(visibleText('FWD\u3164primer \uffa0x\u115fy a\u034fb braille\u2800gap')).toBe('FWDprimer xy ab braille gap');
    expect(visibleText('❤\ufe0f 葛\u{e0100}')).toBe('❤\ufe0f 葛\u{e0100}');
  });

  it('cleans every outgoing Slack body: form fields, JSON-encoded blocks inside a form, JSON bodies', () => {
    const blocks = JSON.stringify([{ type: 'section', text: { type: 'mrkdwn', text: 'x\u0002y\u200bz' } }]);
    const form = new URLSearchParams({ channel: 'C1', text: 'a\u0007b', blocks }).toString();
    const out = new URLSearchParams(visibleBody(form, 'application/x-www-form-urlencoded') as string);
    expect(out.get('text')).toBe('a b');
    expect(JSON.parse(out.get('blocks')!)).toEqual([{ type: 'section', text: { type: 'mrkdwn', text: 'x yz' } }]);
    expect(out.get('channel')).toBe('C1');
    const json = visibleBody(JSON.stringify({ text: '\u202ehi', blocks: [{ type: 'rich_text', elements: [] }] }), 'application/json');
    expect(JSON.parse(json as string)).toEqual({ text: 'hi', blocks: [{ type: 'rich_text', elements: [] }] });
  });

  it('the plain-text fallback of a message carries its quotes, escaped', () => {
    const [m] = answerMessages({
      answer: 'Block [S1].',
      refused: false,
      citations: [cite({ quotes: ['Use <5% milk & TBST.'] })],
      model: 'extractive',
      language: 'en',
    });
    const text = blocksAsMrkdwn(m.blocks);
    expect(text).toContain('> Use &lt;5% milk &amp; TBST.');
    expect(text).toContain('*Sources*');
  });
});
