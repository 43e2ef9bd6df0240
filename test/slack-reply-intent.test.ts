// Thread etiquette, the pure part: which untagged replies in a channel thread read as a question
// for labbot. The texts are shaped as Slack delivers them (mention tokens, :shortcodes:, escaped
// entities, unicode emoji).
import { describe, expect, it } from 'vitest';
import { answersUntaggedReply, readReply, type ReplyReason } from '../src/slack/reply-intent.ts';

const BOT = 'UBOT';
const reason = (text: string) => readReply(text, BOT).reason;

describe('readReply', () => {
  const cases: [string, ReplyReason][] = [
    // Thanks and acknowledgements
    ['thanks!', 'acknowledgement'],
    ['Thank you so much :pray:', 'acknowledgement'],
    ['thx 🙏', 'acknowledgement'],
    ['ok got it', 'acknowledgement'],
    ['Great, that’s really helpful', 'acknowledgement'],
    ['makes sense, thanks', 'acknowledgement'],
    ['ok?', 'acknowledgement'],
    ['¡gracias!', 'acknowledgement'],
    ['vale, perfecto', 'acknowledgement'],
    // Emoji only
    [':+1:', 'emoji only'],
    [':white_check_mark::skin-tone-3:', 'emoji only'],
    ['👍🏽', 'emoji only'],
    ['🎉🎉', 'emoji only'],
    ['?', 'emoji only'],
    // Addressed to a colleague or the group
    ['thanks! <@U0ADA> can you do the blot tomorrow?', 'addressed to someone else'],
    ['<@U0ADA|ada> what dilution did you use?', 'addressed to someone else'],
    ['@Ada can you do the blot tomorrow?', 'addressed to someone else'],
    ['Ada, can you do the blot tomorrow?', 'addressed to someone else'],
    ['hey Ada what time is the seminar', 'addressed to someone else'],
    ['what about the 2022 one, Ada?', 'addressed to someone else'],
    ['Ana, ¿puedes hacer el blot mañana?', 'addressed to someone else'],
    ['<!here> who took the last TRIzol aliquot?', 'addressed to someone else'],
    ['<!subteam^S0WET|@wetlab> gel room is free', 'addressed to someone else'],
    // Side conversation among people
    ['can you do the blot tomorrow?', 'side conversation'],
    ['did you already order the anti-USP7?', 'side conversation'],
    ['what dilution did you use last time?', 'side conversation'],
    ['will you be in on Friday?', 'side conversation'],
    ['does anyone have spare TRIzol?', 'side conversation'],
    ['I’ll run the gel after lunch', 'side conversation'],
    ["let's use the 2022 one", 'side conversation'],
    ['¿alguien tiene TRIzol?', 'side conversation'],
    // Statements
    ['The gel is running now', 'not a question'],
    ['I think it was 1:1000 &amp; 5% milk', 'not a question'],
    ['see <https://example.org/protocol|the protocol>', 'not a question'],
    // Questions for labbot
    ['and for HeLa?', 'question'],
    ['what about the 2022 one?', 'question'],
    ['and for HeLa', 'question'],
    ['thanks! and on ice?', 'question'],
    ['ok and on ice', 'question'],
    ['how long on ice', 'question'],
    ['Is it the same for HEK293T cells?', 'question'],
    ['can you show me the steps again?', 'question'],
    ['could you please check the dilution for the secondary?', 'question'],
    ['do you know where the -80 key is?', 'question'],
    ['Is there a protocol that everyone uses for RNA?', 'question'],
    ['tell me more about the blocking step', 'question'],
    ['Also, which antibody for the loading control?', 'question'],
    ['<@UBOT> and for HeLa?', 'question'],
    ['¿y para HeLa?', 'question'],
    ['qué tal con células HeLa', 'question'],
    ['cuánto TRIzol por pocillo', 'question'],
    ['what about the 2022 one? :thinking_face:', 'question'],
  ];
  for (const [text, expected] of cases) {
    it(`${JSON.stringify(text)} -> ${expected}`, () => {
      expect(reason(text)).toBe(expected);
      expect(readReply(text, BOT).forLabbot).toBe(expected === 'question');
    });
  }
  it('an empty reply (a file with no text) is not a question', () => {
    expect(readReply('   ', BOT)).toEqual({ forLabbot: false, reason: 'empty' });
  });
});

describe('answersUntaggedReply', () => {
  const now = 1_700_000_000_000;
  const window = { user: 'UASKER', answeredAt: now - 60_000 };
  const opts = { now, windowMs: 10 * 60_000, botUserId: BOT };

  it('answers a question from the person labbot answered, soon after', () => {
    expect(answersUntaggedReply(window, { user: 'UASKER', text: 'and for HeLa?' }, opts)).toEqual({ answer: true, reason: 'question' });
  });
  it('not from someone else in the thread, even a question', () => {
    expect(answersUntaggedReply(window, { user: 'UADA', text: 'and for HeLa?' }, opts)).toEqual({ answer: false, reason: 'someone else' });
  });
  it('not after the window', () => {
    expect(answersUntaggedReply({ ...window, answeredAt: now - 11 * 60_000 }, { user: 'UASKER', text: 'and for HeLa?' }, opts)).toEqual({
      answer: false,
      reason: 'window closed',
    });
  });
  it('not where labbot has not answered (or the window was closed)', () => {
    expect(answersUntaggedReply(undefined, { user: 'UASKER', text: 'and for HeLa?' }, opts)).toEqual({
      answer: false,
      reason: 'no recent answer',
    });
  });
  it('not a thanks from the asker', () => {
    expect(answersUntaggedReply(window, { user: 'UASKER', text: 'thanks! <@U0ADA> can you do the blot tomorrow?' }, opts)).toEqual({
      answer: false,
      reason: 'addressed to someone else',
    });
  });
});
