// The pure parts of the Slack surfaces: suggested prompts from what is indexed, the App Home's words
// and links, the unlinked stream preview, and how message edits and deletions are routed.
import { describe, expect, it } from 'vitest';
import { feedbackBlock, answerMessages } from '../src/slack/format.ts';
import { parseFeedbackValue } from '../src/slack/feedback.ts';
import { homeView, kindsInWords, permalink } from '../src/slack/home.ts';
import { routeChange } from '../src/slack/event-routing.ts';
import { promptTitle, suggestedPrompts, type PromptDoc } from '../src/slack/prompts.ts';
import { previewMarkdown, stablePrefixLength } from '../src/slack/stream.ts';

const doc = (kind: PromptDoc['kind'], title: string, extra: Partial<PromptDoc> = {}): PromptDoc => ({
  kind,
  title,
  access: 'public',
  chunkIds: ['a'],
  ...extra,
});

describe('suggested prompts', () => {
  it('one per kind the person may read, naming the newest (then largest) document', () => {
    const docs = [
      doc('paper', 'Old paper', { year: 2019 }),
      doc('paper', 'New paper', { year: 2024 }),
      doc('protocol', 'Small protocol'),
      doc('protocol', 'Big protocol', { chunkIds: ['a', 'b', 'c'] }),
      doc('wiki', 'Grant budget', { access: 'pi-only' }),
      doc('slides', 'Lab meeting'),
    ];
    expect(suggestedPrompts(undefined, docs, ['public'])).toEqual([
      { title: 'Steps of a protocol', message: 'What are the steps of the protocol “Big protocol”?' },
      { title: 'Findings of a paper', message: 'What are the main findings of “New paper”?' },
      { title: 'From a slide deck', message: 'What do the slides “Lab meeting” cover?' },
    ]);
    expect(JSON.stringify(suggestedPrompts(undefined, docs, ['public', 'pi-only']))).toContain('Grant budget');
  });
  it('the lab’s configured prompts win; at most 4; none when nothing readable is indexed', () => {
    const mine = [{ title: 'a', message: 'b' }];
    expect(suggestedPrompts(mine, [doc('paper', 'X')], ['public'])).toEqual(mine);
    const many = (['paper', 'protocol', 'wiki', 'slides', 'note'] as const).map((k) => doc(k, k));
    expect(suggestedPrompts(undefined, many, ['public'])).toHaveLength(4);
    expect(suggestedPrompts(undefined, [doc('paper', 'X', { access: 'pi-only' })], ['public'])).toEqual([]);
  });
  it('a title from a document cannot ping, link or hide characters, and stays short', () => {
    expect(promptTitle('<!channel> R&D <https://evil.example|portal>\u200b\u0007')).toBe('!channel R D https://evil.example|portal');
    const long = promptTitle('A very long title about the stabilisation of p53 by USP7 inhibition in hypoxic cells of many kinds');
    expect(long.length).toBeLessThanOrEqual(60);
    expect(long.endsWith('…')).toBe(true);
  });
});

describe('App Home words and links', () => {
  it('says what is known in words', () => {
    expect(kindsInWords({ paper: 2, protocol: 1, slides: 1, wiki: 4 })).toBe('2 papers, 1 protocol, 1 slide deck and 4 wiki pages');
    expect(kindsInWords({ wiki: 1 })).toBe('1 wiki page');
    expect(kindsInWords({})).toBe('');
  });
  it('links a question to its message, with the thread for replies; nothing for what is not a Slack id', () => {
    expect(permalink('https://lab.slack.com/', 'C0123', '1700000000.000100', '1700000000.000100')).toBe(
      'https://lab.slack.com/archives/C0123/p1700000000000100',
    );
    expect(permalink('https://lab.slack.com/', 'C0123', '1700000001.000200', '1700000000.000100')).toBe(
      'https://lab.slack.com/archives/C0123/p1700000001000200?thread_ts=1700000000.000100&cid=C0123',
    );
    expect(permalink('https://evil.example/', 'C0123', '1.1', undefined)).toBeUndefined();
    expect(permalink('https://lab.slack.com/', 'C0123|x', '1.1', undefined)).toBeUndefined();
    expect(permalink(undefined, 'C0123', '1.1', undefined)).toBeUndefined();
  });
  it('admins get the index section; members do not; recent questions are escaped', () => {
    const base = {
      known: { lab: { paper: 1 } },
      examples: ['What <is> it?'],
      recent: [{ question: '<!here> & more', ts: '2026-01-02T03:04:05.000Z', link: 'https://lab.slack.com/archives/C1/p1' }],
    };
    const member = JSON.stringify(homeView(base));
    expect(member).not.toContain('For admins');
    expect(member).toContain('<https://lab.slack.com/archives/C1/p1|&lt;!here&gt; &amp; more>');
    expect(member).toContain('What &lt;is&gt; it?');
    expect(JSON.stringify(homeView({ ...base, admin: { indexStatus: '*Index* `v1`' } }))).toContain('For admins: the index');
  });
});

describe('stream preview', () => {
  it('shows a link’s label and a URL’s host as code, never a link', () => {
    expect(previewMarkdown('See [the portal](https://evil.example/login) or https://evil.example/x?y=1 now <!channel> & more')).toBe(
      'See the portal or `evil.example` now &lt;!channel&gt; &amp; more',
    );
  });
  it('previews only what cannot change: not the last word, not an unclosed link', () => {
    expect(stablePrefixLength('Block the memb')).toBe('Block the '.length);
    expect(stablePrefixLength('Block [the portal](https://evil')).toBe('Block '.length);
    expect(stablePrefixLength('Block [S1] in milk')).toBe('Block [S1] in '.length);
    // Fed one character at a time, as a model streams, the pieces previewed add up to the preview of the whole.
    const raw = 'See [the portal](https://evil.example/login) then https://x.org/a, [S1] and <!here> done.';
    let shown = 0;
    let sent = '';
    for (let i = 1; i <= raw.length; i++) {
      const stable = stablePrefixLength(raw.slice(0, i));
      if (stable > shown) {
        sent += previewMarkdown(raw.slice(shown, stable));
        shown = stable;
      }
    }
    sent += previewMarkdown(raw.slice(shown));
    expect(sent).toBe(previewMarkdown(raw));
    expect(sent).not.toMatch(/\]\(|https?:|<!here>/);
  });
});

describe('native feedback buttons', () => {
  it('carry up:/down: and the record id; answers in conversations use them, private ones keep classic buttons', () => {
    const view = { answer: 'Use 1:1000 [S1].', refused: false, citations: [], model: 'none', language: 'en' as const };
    const native = JSON.stringify(answerMessages(view, { recordId: 'r1', nativeFeedback: true }));
    expect(native).toContain('"type":"context_actions"');
    expect(native).toContain('"value":"up:r1"');
    expect(native).not.toContain('labbot_feedback_up');
    expect(JSON.stringify(answerMessages(view, { recordId: 'r1' }))).toContain('labbot_feedback_up');
    expect(feedbackBlock('r2', 'es', true)).toMatchObject({
      elements: [{ negative_button: { value: 'down:r2', accessibility_label: 'No útil' } }],
    });
    expect(parseFeedbackValue('down:r2')).toEqual({ vote: 'down', recordId: 'r2' });
    expect(parseFeedbackValue('sideways:r2')).toBeUndefined();
  });
});

describe('routeChange', () => {
  const base = { channel: 'C1', channel_type: 'channel' };
  it('an edit of a person’s text is an edit; replies, unfurls and bot edits are not', () => {
    expect(
      routeChange(
        {
          ...base,
          subtype: 'message_changed',
          message: { user: 'U1', text: 'new', ts: '1.2', thread_ts: '1.1' },
          previous_message: { text: 'old' },
        },
        'UBOT',
      ),
    ).toEqual({
      kind: 'edited',
      ts: '1.2',
      threadTs: '1.1',
      user: 'U1',
      text: 'new',
      dm: false,
      channelType: 'channel',
    });
    expect(
      routeChange(
        { ...base, subtype: 'message_changed', message: { user: 'U1', text: 'same', ts: '1.2' }, previous_message: { text: 'same' } },
        'UBOT',
      ).kind,
    ).toBe('ignore');
    expect(
      routeChange(
        {
          ...base,
          subtype: 'message_changed',
          message: { user: 'UBOT', bot_id: 'B1', text: 'a', ts: '1.2' },
          previous_message: { text: 'b' },
        },
        'UBOT',
      ).kind,
    ).toBe('ignore');
  });
  it('a deletion, or a thread parent left as a tombstone, is a deletion', () => {
    expect(routeChange({ ...base, subtype: 'message_deleted', deleted_ts: '1.3' }, 'UBOT')).toEqual({ kind: 'deleted', ts: '1.3' });
    expect(
      routeChange(
        { ...base, subtype: 'message_changed', message: { subtype: 'tombstone', text: 'This message was deleted.', ts: '1.1' } },
        'UBOT',
      ),
    ).toEqual({ kind: 'deleted', ts: '1.1' });
  });
});
