// Translation for retrieval: a question in one language is also searched, and its answer
// sentences scored, in the other languages of the configured pairs, so a Spanish question finds
// an English paper and an English question a Spanish protocol. One interface for every engine
// (Apertium offline, the configured chat model, or none); pairs come from config, so another language pair is a config line.
// Pure: the engine is passed in.
import type { Language } from '../search/tokenize.ts';

export interface TranslationPair {
  from: Language;
  to: Language;
  /** The engine's name for the direction (Apertium's mode, e.g. spa-eng). */
  mode: string;
}

export interface TranslationStatus {
  provider: 'apertium' | 'model' | 'off';
  /** The engine answers (binary and modes present); false means questions are searched in their own language only. */
  available: boolean;
  /** What a person should know: the modes in use, or what is missing and how to install it. */
  detail: string;
}

export interface Translator {
  /** The text in the pair's target language, or undefined when the engine failed (logged by the adapter). */
  translate(text: string, pair: TranslationPair): Promise<string | undefined>;
  /**
   * For each content word of the text the engine's dictionary translates more than one way, every
   * translation's lemma, its preferred one first; undefined when the engine cannot say.
   */
  senses?(text: string, pair: TranslationPair): Promise<string[][] | undefined>;
  /** Worked out on first use and kept (an engine's modes are listed once per process). */
  status(): TranslationStatus;
  /** Stops the engine's processes, if it keeps any; translate() answers undefined afterwards. */
  close(): Promise<void>;
}

/** Translations are for search terms: past this, a question is mostly pasted text, and the cost grows with it. */
export const MAX_TRANSLATED_CHARS = 2000;

/** What of a question goes to the engine, or '' when there is no engine or nothing to send. */
function translatable(question: string, translator: Translator | undefined): string {
  return translator?.status().available ? question.slice(0, MAX_TRANSLATED_CHARS).trim() : '';
}

/**
 * The question in each other language a pair leads to from its own, without repeats of the
 * question itself. An engine failure only drops that translation.
 */
export async function translationsOf(
  question: string,
  language: Language,
  pairs: readonly TranslationPair[],
  translator: Translator | undefined,
): Promise<string[]> {
  const text = translatable(question, translator);
  if (!translator || !text) return [];
  const out: string[] = [];
  for (const pair of pairs.filter((p) => p.from === language)) {
    const t = (await translator.translate(text, pair))?.trim();
    if (t && t.toLowerCase() !== text.toLowerCase() && !out.includes(t)) out.push(t);
  }
  return out;
}

/**
 * The question's words' other translations (see Translator.senses) into each other language a
 * pair leads to, one list for all pairs.
 */
export async function sensesOf(
  question: string,
  language: Language,
  pairs: readonly TranslationPair[],
  translator: Translator | undefined,
): Promise<string[][]> {
  const text = translatable(question, translator);
  if (!translator?.senses || !text) return [];
  const out: string[][] = [];
  for (const pair of pairs.filter((p) => p.from === language)) out.push(...((await translator.senses(text, pair)) ?? []));
  return out;
}

/** Translations kept per engine: the same question is often asked twice (an edit, a retry, a follow-up). */
export const TRANSLATION_CACHE_SIZE = 500;

/** A map of at most `size` entries that forgets the oldest first. */
export function boundedCache(size: number = TRANSLATION_CACHE_SIZE): {
  get(key: string): string | undefined;
  set(key: string, value: string): void;
} {
  const entries = new Map<string, string>();
  return {
    get: (key) => entries.get(key),
    set(key, value) {
      if (!entries.has(key) && entries.size >= size) entries.delete(entries.keys().next().value as string);
      entries.set(key, value);
    },
  };
}
