// Keyword carry-over for elliptic follow-ups in a thread.
import { describe, expect, it } from 'vitest';
import { isElliptic, rewriteFollowUp } from '../src/answer/followup.ts';

describe('rewriteFollowUp', () => {
  it('carries the earlier topic into "and for HEK293?" but not the earlier entity', () => {
    const r = rewriteFollowUp('and for HEK293?', [
      { role: 'user', text: 'What passage ratio do we use for HeLa cells?' },
      { role: 'assistant', text: 'Split HeLa 1:8 twice a week [S1].' },
    ]);
    expect(r.rewritten).toBe(true);
    expect(r.question).toMatch(/^and for HEK293 /);
    expect(r.carried).toEqual(expect.arrayContaining(['passage', 'ratio', 'cells']));
    expect(r.carried).not.toContain('HeLa');
    expect(r.carried).not.toContain('Split');
  });

  it('carries identifiers when the follow-up names none', () => {
    const r = rewriteFollowUp('what concentration?', [{ role: 'user', text: 'Which USP7 inhibitor does the Okafor paper use?' }]);
    expect(r.carried).toEqual(expect.arrayContaining(['USP7', 'inhibitor', 'Okafor', 'paper']));
    expect(r.question.startsWith('what concentration ')).toBe(true);
  });

  it('takes a quantity in the follow-up for a setting, not for a new entity', () => {
    const r = rewriteFollowUp('and after 24h?', [{ role: 'user', text: 'What is the p53 half-life in HeLa cells?' }]);
    expect(r.carried).toEqual(expect.arrayContaining(['p53', 'HeLa']));
  });

  it('leaves standalone questions and first questions alone', () => {
    const history = [{ role: 'user' as const, text: 'How do I passage RPE-1 cells?' }];
    const standalone = 'What is the primary antibody dilution for the Western blot?';
    expect(rewriteFollowUp(standalone, history)).toEqual({ question: standalone, rewritten: false, carried: [] });
    expect(rewriteFollowUp('and for HEK293?', []).rewritten).toBe(false);
    expect(rewriteFollowUp('and for HEK293?', [{ role: 'assistant', text: 'Anything' }]).rewritten).toBe(false);
  });

  it('walks back past an elliptic earlier turn to the one that set the topic, in Spanish too', () => {
    const r = rewriteFollowUp('¿y para HEK293T?', [
      { role: 'user', text: '¿Cuál es el tiempo de incubación del TRIzol en la extracción de ARN?' },
      { role: 'assistant', text: 'Cinco minutos [S1].' },
      { role: 'user', text: '¿y la centrifugación?' },
    ]);
    expect(r.rewritten).toBe(true);
    expect(r.carried).toEqual(expect.arrayContaining(['centrifugación', 'incubación', 'extracción']));
    expect(r.carried.length).toBeLessThanOrEqual(8);
  });

  it('does not repeat words the follow-up already has', () => {
    const r = rewriteFollowUp('and the blocking buffer?', [{ role: 'user', text: 'What blocking time for the Western blot?' }]);
    expect(r.carried.map((w) => w.toLowerCase())).not.toContain('blocking');
    expect(r.carried).toEqual(expect.arrayContaining(['time', 'Western', 'blot']));
  });

  it('recognises elliptic questions', () => {
    expect(isElliptic('and for HEK293?')).toBe(true);
    expect(isElliptic('what about the secondary?')).toBe(true);
    expect(isElliptic('¿y en frío?')).toBe(true);
    expect(isElliptic('What dilution of the primary antibody is used in the Western blot?')).toBe(false);
  });
});
