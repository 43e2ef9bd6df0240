import { describe, expect, it } from 'vitest';
import { withSenses } from '../src/answer/translated.ts';
import { parseSenses, sensesStages } from '../src/translate/apertium-senses.ts';
import { parseModePipeline } from '../src/translate/apertium-stream.ts';

// Shaped as Apertium 3.8's spa-eng prints it after `lt-proc -b` (copied from a run of the real stages).
const BILTRANS =
  '^¿<lquest>/$^Quién<prn><itg><mf><sg>/Who<prn><itg><m><sp>$ ^himno<n><m><sg>/hymn<n><sg>/anthem<n><sg>$ ' +
  '^en<pr>/in<pr>/on<pr>$ ^dejar<vblex><ifi><p3><pl>/leave<vblex><ifi><p3><pl>/give# up<vblex><sep><ifi><p3><pl>$ ' +
  '^*Matlin/*Matlin$ ^Marlee<np><ant><f><sg>/Marlee<np><ant><f><sg>/Marly<np><ant><f><sg>$ ' +
  '^sala<n><f><sg>/room<n><sg>/Room<n><sg>$ ^himno<n><m><pl>/hymn<n><pl>/anthem<n><pl>$ ^a\\/b<n><sg>/x\\/y<n><sg>/z<n><sg>$^?<sent>/?<sent>$';

describe("the dictionary's senses of a question's words", () => {
  it('lists the lemmas of content words translated more than one way, once each', () => {
    expect(parseSenses(BILTRANS)).toEqual([
      ['hymn', 'anthem'],
      ['leave', 'give up'],
      ['x/y', 'z'],
    ]);
  });

  it('keeps nothing of prepositions, names, unknown words, one-way words or an empty stream', () => {
    expect(parseSenses('^en<pr>/in<pr>/on<pr>$ ^Marlee<np>/Marlee<np>/Marly<np>$ ^*Matlin/*Matlin$ ^casa<n>/house<n>$')).toEqual([]);
    expect(parseSenses('')).toEqual([]);
    expect(parseSenses('no units here ^unclosed<n>/a<n>/b<n>')).toEqual([]);
  });

  it('reads the stages of a mode up to its bilingual lookup', () => {
    const mode =
      "lt-proc '/d/spa-eng.automorf.bin' | apertium-tagger -g $2 '/d/spa-eng.prob' | apertium-pretransfer | " +
      "lt-proc -b '/d/spa-eng.autobil.bin' | lrx-proc -m '/d/x.bin' | lt-proc $1 '/d/gen.bin'";
    const stages = sensesStages(parseModePipeline(mode));
    expect(stages?.map((s) => s.program)).toEqual(['lt-proc', 'apertium-tagger', 'apertium-pretransfer', 'lt-proc']);
    expect(stages?.at(-1)?.args).toEqual(['-z', '-b', '/d/spa-eng.autobil.bin']);
    expect(sensesStages(parseModePipeline("lt-proc '/d/a.bin' | lt-proc $1 '/d/gen.bin'"))).toBeUndefined();
  });
});

describe('a translation read with the senses the passages use', () => {
  const passages = ['Lady Gaga performed the national anthem, while Marlee Matlin provided the sign language translation.'];

  it('replaces a word by the sense the passages use', () => {
    expect(withSenses('Who sang the American national hymn?', [['hymn', 'anthem']], passages)).toBe(
      'Who sang the American national anthem?',
    );
    // Inflected in the translation, found by its stem.
    expect(withSenses('Which hymns were sung?', [['hymn', 'anthem']], passages)).toBe('Which anthem were sung?');
  });

  it('keeps a word the passages use, a word with no sense they use, and words of no group', () => {
    expect(withSenses('Who performed the national anthem?', [['anthem', 'hymn']], passages)).toBe('Who performed the national anthem?');
    expect(withSenses('Which reward did she win?', [['reward', 'prize']], passages)).toBe('Which reward did she win?');
    expect(withSenses('Who sang the hymn?', [], passages)).toBe('Who sang the hymn?');
    expect(withSenses('Who sang the hymn?', [['leave', 'give up']], passages)).toBe('Who sang the hymn?');
  });
});
