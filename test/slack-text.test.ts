// Slack message text -> plain text: the one conversion every incoming question goes through.
import { describe, expect, it } from 'vitest';
import { slackToPlain } from '../src/slack/slack-text.ts';

describe('slackToPlain', () => {
  it('decodes the three entities once, so an escaped entity stays as written', () => {
    expect(slackToPlain('R&amp;D at &lt; 4 °C &gt; 0; literally &amp;lt;')).toBe('R&D at < 4 °C > 0; literally &lt;');
  });

  it('turns links into "label (url)", bare links into the url, mailto into the address', () => {
    expect(slackToPlain('see <https://wiki.example/wb?a=1&amp;b=2|the W&amp;B page>')).toBe(
      'see the W&B page (https://wiki.example/wb?a=1&b=2)',
    );
    expect(slackToPlain('<https://x.org/a>')).toBe('https://x.org/a');
    expect(slackToPlain('<https://x.org/a|https://x.org/a>')).toBe('https://x.org/a');
    expect(slackToPlain('<mailto:pi@lab.org|pi@lab.org>')).toBe('pi@lab.org');
  });

  it('names channels and users, never by their raw id', () => {
    expect(slackToPlain('in <#C0123|lab-general> and <#C0456>')).toBe('in #lab-general and #channel');
    const names = (id: string) => ({ U1: 'Maria Lopez' })[id];
    expect(slackToPlain('ask <@U1> or <@U999> or <@W42|bob>', names)).toBe('ask @Maria Lopez or @user or @bob');
    expect(slackToPlain('ask <@U999>')).not.toMatch(/U999|u999/i);
  });

  it('reads special mentions, user groups and dates as words', () => {
    expect(slackToPlain('<!here> <!channel> <!everyone|everyone> <!subteam^S01|@wet-lab> <!subteam^S02>')).toBe(
      '@here @channel @everyone @wet-lab @group',
    );
    expect(slackToPlain('due <!date^1700000000^{date_short}|Nov 14, 2023>')).toBe('due Nov 14, 2023');
  });

  it('leaves plain text alone', () => {
    const s = 'How long do we block the membrane? 5% milk, 1 h.';
    expect(slackToPlain(s)).toBe(s);
  });
});
