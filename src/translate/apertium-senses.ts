// The dictionary's other translations of a question's words, for the search and the evidence
// rule. A rule-based translation settles on one sense per word ("himno" -> hymn), often not the
// one the documents use (anthem); the bilingual dictionary lists them all. They are read from the
// stage of a mode where the dictionary has been looked up and nothing chosen yet (`lt-proc -b`),
// in Apertium's stream format: `^himno<n><m><sg>/hymn<n><sg>/anthem<n><sg>$`. Pure.
import type { ModeStage } from './apertium-stream.ts';

/**
 * Parts of speech whose senses are kept: the words that say what a question is about. Proper
 * names translate as themselves; function words' senses ("in", "on") are noise.
 */
const CONTENT_TAGS = new Set(['n', 'adj', 'vblex', 'adv']);

/** The stages of a mode up to and including its bilingual lookup, or undefined when it has none. */
export function sensesStages(stages: readonly ModeStage[]): ModeStage[] | undefined {
  const at = stages.findIndex((s) => /(^|\/)lt-proc$/.test(s.program) && s.args.includes('-b'));
  return at < 0 ? undefined : stages.slice(0, at + 1);
}

/** `text` split at each `sep` that is not escaped with a backslash, escapes undone. */
function splitUnescaped(text: string, sep: string): string[] {
  const parts: string[] = [];
  let part = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\' && i + 1 < text.length) {
      part += text[++i];
    } else if (c === sep) {
      parts.push(part);
      part = '';
    } else {
      part += c;
    }
  }
  parts.push(part);
  return parts;
}

/** A reading's lemma ("give# up<vblex><sep>" -> "give up") and its first tag ("vblex"). */
function readingOf(reading: string): { lemma: string; tag: string } {
  const at = reading.indexOf('<');
  const lemma = (at < 0 ? reading : reading.slice(0, at)).replace(/#/g, '').replace(/\s+/g, ' ').trim();
  const tag = at < 0 ? '' : reading.slice(at + 1, reading.indexOf('>', at));
  return { lemma, tag };
}

/**
 * For each content word the dictionary translates more than one way, its translations' lemmas in
 * the dictionary's order (the one it prefers first). Unknown words (`*centrifugan`) have none.
 */
export function parseSenses(stream: string): string[][] {
  const out: string[][] = [];
  const seen = new Set<string>();
  for (const m of stream.matchAll(/\^((?:\\.|[^$\\])*)\$/g)) {
    const [source, ...targets] = splitUnescaped(m[1], '/');
    if (source.startsWith('*') || targets.length < 2 || !CONTENT_TAGS.has(readingOf(source).tag)) continue;
    const lemmas: string[] = [];
    for (const t of targets) {
      const { lemma } = readingOf(t);
      if (lemma && !lemmas.some((l) => l.toLowerCase() === lemma.toLowerCase())) lemmas.push(lemma);
    }
    const key = lemmas.join('/').toLowerCase();
    if (lemmas.length >= 2 && !seen.has(key)) {
      seen.add(key);
      out.push(lemmas);
    }
  }
  return out;
}
