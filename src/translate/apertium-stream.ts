// Apertium's stream format, for the warm pipeline (apertium-pipeline.ts): what the `apertium`
// script does around a mode's stages, done here so the stages can stay running. The script runs
// apertium-destxt before the stages and apertium-retxt after them; those two have no null-flush
// mode (they drop NUL bytes and buffer to end of input), so they cannot stay running, and they
// are small enough to write out. The rules follow Apertium 3.8's txt format (txt-format.xml
// through deformat.xsl/reformat.xsl); the integration test checks both against the real programs.
// No npm library wraps Apertium, so this is hand-written. Pure.

/** One program of a mode's pipeline. */
export interface ModeStage {
  program: string;
  args: string[];
}

const ESCAPED = new Set(['[', ']', '\\', '/', '@', '<', '>', '^', '$', '{', '}']);

/**
 * The text as both engines are given it: one line, single spaces, no NUL (the warm pipeline's
 * delimiter, which apertium-destxt drops anyway). Shared so the per-call and warm outputs agree.
 */
export function apertiumInput(text: string): string {
  return text.replace(/\0/g, '').replace(/\s+/g, ' ').trim();
}

/**
 * apertium-destxt on `line + "\n"`, for a line from apertiumInput: format characters escaped,
 * a run of spaces with a `~` in it kept as a superblank, and the end-of-text mark `.[]` followed by
 * the final blank (with any trailing run).
 */
export function deformatLine(line: string): string {
  let out = '';
  let i = 0;
  while (i < line.length) {
    const c = line[i];
    if (c === ' ' || c === '~') {
      let j = i;
      while (j < line.length && (line[j] === ' ' || line[j] === '~')) j++;
      const run = line.slice(i, j);
      if (j === line.length) return `${out}.[][${run}\n]`;
      out += run === ' ' ? ' ' : `[${run}]`;
      i = j;
      continue;
    }
    out += ESCAPED.has(c) ? `\\${c}` : c;
    i++;
  }
  return `${out}.[][\n]`;
}

/**
 * apertium-retxt: brackets dropped (superblank contents kept), the `.[]` mark dropped, escapes
 * undone. One difference on purpose: retxt reads `[@file]` as "paste this file" (the deformatter's
 * spill for very large blanks); here it is text, since the warm pipeline never spills.
 */
export function reformat(stream: string): string {
  let out = '';
  let i = 0;
  while (i < stream.length) {
    const c = stream[i];
    if (c === '[' && stream[i + 1] === '\\' && stream[i + 2] === '@') {
      out += '@';
      i += 3;
    } else if (c === '[' || c === ']') {
      i++;
    } else if (c === '.' && stream[i + 1] === '[' && stream[i + 2] === ']') {
      i += 3;
    } else if (c === '\\' && i + 1 < stream.length && ESCAPED.has(stream[i + 1])) {
      out += stream[i + 1];
      i += 2;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** The words of one stage of a mode file: single- and double-quoted words, as the shell reads them. */
function shellWords(stage: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (const c of stage) {
    if (quote) {
      if (c === quote) quote = undefined;
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      word ??= '';
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (quote) throw new Error(`unbalanced quote in mode stage: ${stage}`);
  if (word !== undefined) words.push(word);
  return words;
}

/**
 * The stages of a mode file (`prog args | prog args | ...`), each with `-z` (flush at every NUL)
 * and the script's two parameters filled in: $1 is the generator's option (`-n`: no `*` marks
 * for unknown words, the script's -u) and $2 the tagger's extra option (none). Anything beyond a
 * plain pipeline (redirections, subshells, variables) is refused: the caller falls back to the
 * per-call script, which runs it through bash.
 */
export function parseModePipeline(mode: string): ModeStage[] {
  const text = mode.trim();
  if (!text || /[;&<>`()]|\$\(|\$[^12]/.test(text.replace(/'[^']*'/g, "''"))) throw new Error('mode file is not a plain pipeline');
  return text.split('|').map((stage) => {
    const words = shellWords(stage)
      .map((w) => (w === '$1' ? '-n' : w === '$2' ? '' : w))
      .filter(Boolean);
    if (!words.length) throw new Error('empty stage in mode file');
    const [program, ...args] = words;
    return { program, args: args.includes('-z') ? args : ['-z', ...args] };
  });
}
