// The users.info name cache: bounded, expiring, one log line per failure, never holding an answer up.
// The lookup is the adapter parameter (users.info in production); here plain functions stand for
// what Slack answers.
import { describe, expect, it } from 'vitest';
import { slackToPlain } from '../src/slack/slack-text.ts';
import { createUserDirectory, userIdsIn, type LookupUser } from '../src/slack/user-names.ts';
import { captureLog } from './helpers/log-capture.ts';

const slackError = (code: string) => Object.assign(new Error(`An API error occurred: ${code}`), { data: { ok: false, error: code } });

function counting(names: Record<string, string>): { lookup: LookupUser; asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    lookup: async (id) => {
      asked.push(id);
      if (!(id in names)) throw slackError('user_not_found');
      return names[id];
    },
  };
}

describe('user names for mentions', () => {
  it('finds each mentioned user id once, with or without a label', () => {
    expect(userIdsIn(['ask <@U1> and <@W2|bob>', '<@U1> again, not <#C1|x> or <!here>'])).toEqual(['U1', 'W2']);
  });

  it('looks a user up once and then answers from the cache until the TTL passes', async () => {
    let t = 0;
    const { log } = captureLog();
    const dir = createUserDirectory({ log, ttlMs: 1_000, now: () => t });
    const { lookup, asked } = counting({ U123: 'Ada Okafor' });
    const names = await dir.namesFor(['what did <@U123> say about p53?'], lookup);
    expect(slackToPlain('what did <@U123> say about p53?', names)).toBe('what did @Ada Okafor say about p53?');
    await dir.namesFor(['<@U123>'], lookup);
    expect(asked).toEqual(['U123']);
    t = 1_001;
    await dir.namesFor(['<@U123>'], lookup);
    expect(asked).toEqual(['U123', 'U123']);
  });

  it('keeps at most `max` users, dropping the least recently used', async () => {
    const { log } = captureLog();
    const dir = createUserDirectory({ log, max: 2 });
    const { lookup, asked } = counting({ U1: 'One', U2: 'Two', U3: 'Three' });
    await dir.namesFor(['<@U1> <@U2>'], lookup);
    await dir.namesFor(['<@U1>'], lookup); // U1 is now the most recent
    await dir.namesFor(['<@U3>'], lookup); // evicts U2
    expect(dir.size()).toBe(2);
    asked.length = 0;
    await dir.namesFor(['<@U1> <@U3>'], lookup);
    expect(asked).toEqual([]);
    await dir.namesFor(['<@U2>'], lookup);
    expect(asked).toEqual(['U2']);
  });

  it('reads a failed lookup as "@user" and logs it once; missing_scope is logged once for all users', async () => {
    const cap = captureLog();
    const dir = createUserDirectory({ log: cap.log });
    const { lookup, asked } = counting({});
    for (let i = 0; i < 3; i++) {
      const names = await dir.namesFor(['hi <@U404>'], lookup);
      expect(slackToPlain('hi <@U404>', names)).toBe('hi @user');
    }
    expect(asked).toEqual(['U404']);
    expect(cap.find('could not look up a mentioned user')).toHaveLength(1);
    expect(cap.find('could not look up a mentioned user')[0].err).toBe('user_not_found');

    const noScope: LookupUser = async () => {
      throw slackError('missing_scope');
    };
    await dir.namesFor(['<@UA> <@UB>'], noScope);
    await dir.namesFor(['<@UC>'], noScope);
    expect(cap.find('users:read')).toHaveLength(1);
  });

  it('does not wait for a slow Slack longer than the timeout; the late name is used next time', async () => {
    const { log } = captureLog();
    const dir = createUserDirectory({ log, timeoutMs: 20 });
    let release!: () => void;
    const slow: LookupUser = () => new Promise((r) => (release = () => r('Ada Okafor')));
    const first = await dir.namesFor(['<@U123>'], slow);
    expect(slackToPlain('<@U123>', first)).toBe('@user');
    release();
    await new Promise((r) => setImmediate(r));
    const second = await dir.namesFor(['<@U123>'], slow);
    expect(slackToPlain('<@U123>', second)).toBe('@Ada Okafor');
  });

  it('keeps a name to one clipped line of plain text, never decoded a second time', async () => {
    const { log } = captureLog();
    const dir = createUserDirectory({ log });
    const names = await dir.namesFor(['<@U1> <@U2>'], async (id) => (id === 'U1' ? 'Eve\n&lt;!channel&gt;\u202e' : 'x'.repeat(500)));
    expect(slackToPlain('<@U1>', names)).toBe('@Eve &lt;!channel&gt;');
    expect(slackToPlain('<@U2>', names)).toBe(`@${'x'.repeat(80)}`);
  });
});
