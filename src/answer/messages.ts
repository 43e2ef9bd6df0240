// User-facing fixed strings, per language. Kept in one place so the prompt (which tells the model
// the exact refusal sentence), the citation check (which recognises it) and the Slack formatter
// all agree on the same words.
import type { EditorialNotice } from '../types.ts';

export type Language = 'en' | 'es';

export const LANGUAGES: readonly Language[] = ['en', 'es'];

export interface Messages {
  /** The one sentence given when the lab's material does not answer the question. */
  refusal: string;
  /** Heading of the list of sources under an answer. */
  sources: string;
  /** Shown while an answer is being prepared. */
  working: string;
  /** Shown when answering failed for a reason the user cannot fix. */
  error: string;
  /** Added when the answer was built from passages without a language model. */
  extractiveNote: string;
  /** Shown when a question is empty (e.g. a bare mention of the bot). */
  emptyQuestion: string;
}

const MESSAGES: Record<Language, Messages> = {
  en: {
    refusal: "I couldn't find this in the lab's material.",
    sources: 'Sources',
    working: "Searching the lab's material…",
    error: 'Something went wrong while answering. Please try again in a moment.',
    extractiveNote: 'Quoted from the sources (no language model configured).',
    emptyQuestion: 'Ask me a question about the lab’s papers, protocols, slides or wiki.',
  },
  es: {
    refusal: 'No encontré esto en el material del laboratorio.',
    sources: 'Fuentes',
    working: 'Buscando en el material del laboratorio…',
    error: 'Algo salió mal al responder. Inténtalo de nuevo en un momento.',
    extractiveNote: 'Citado de las fuentes (no hay un modelo de lenguaje configurado).',
    emptyQuestion: 'Hazme una pregunta sobre los artículos, protocolos, presentaciones o la wiki del laboratorio.',
  },
};

/** All fixed strings for a language; unknown languages fall back to English. */
export function messages(lang: Language): Messages {
  return MESSAGES[lang] ?? MESSAGES.en;
}

export function refusalText(lang: Language): string {
  return messages(lang).refusal;
}

// Models rarely reproduce a sentence byte for byte: they swap the apostrophe for a curly one,
// wrap it in quotes or bold, drop the full stop or append a stray label. Compare a normalised
// form so those variants still count as the refusal.
function normaliseForComparison(text: string): string {
  return text
    .normalize('NFC')
    .replace(/\[\s*S\d+(?:\s*[,;]\s*S\d+)*\s*\]/gi, ' ')
    .replace(/[‘’`´]/g, "'")
    .replace(/[*_"“”«»]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[.!。]+$/, '')
    .trim()
    .toLowerCase();
}

const REFUSALS = new Set(LANGUAGES.map((l) => normaliseForComparison(refusalText(l))));

/** True when the text is the refusal sentence (in any supported language) and nothing else. */
export function isRefusal(text: string): boolean {
  return REFUSALS.has(normaliseForComparison(text));
}

const NOTICE_TEXT: Record<Language, Record<EditorialNotice['kind'], [string, string]>> = {
  en: {
    retraction: ['has been retracted', 'its findings should not be relied on'],
    'partial-retraction': ['has been partly retracted', 'check the retraction notice before relying on it'],
    withdrawal: ['has been withdrawn', 'its findings should not be relied on'],
    removal: ['has been removed by its publisher', 'its findings should not be relied on'],
    'expression-of-concern': ['carries an expression of concern from its publisher', 'treat its findings with caution'],
  },
  es: {
    retraction: ['fue retractado', 'no conviene basarse en sus resultados'],
    'partial-retraction': ['fue retractado en parte', 'consulte la nota de retractación antes de basarse en él'],
    withdrawal: ['fue retirado', 'no conviene basarse en sus resultados'],
    removal: ['fue eliminado por su editorial', 'no conviene basarse en sus resultados'],
    'expression-of-concern': ['tiene una expresión de preocupación de su editorial', 'trate sus resultados con cautela'],
  },
};

/** "⚠️ [Sharma et al., 2022] has been retracted (2024): its findings should not be relied on." */
export function noticeNote(language: Language, source: string, notice: EditorialNotice): string {
  const [what, advice] = (NOTICE_TEXT[language] ?? NOTICE_TEXT.en)[notice.kind];
  const year = notice.date ? ` (${notice.date.slice(0, 4)})` : '';
  return `⚠️ ${source} ${what}${year}: ${advice}.`;
}

/** A short flag for a list of sources: "Retracted", "Expression of concern". */
export function noticeFlag(language: Language, notice: EditorialNotice): string {
  const flags: Record<Language, Record<EditorialNotice['kind'], string>> = {
    en: {
      retraction: 'Retracted',
      'partial-retraction': 'Partly retracted',
      withdrawal: 'Withdrawn',
      removal: 'Removed',
      'expression-of-concern': 'Expression of concern',
    },
    es: {
      retraction: 'Retractado',
      'partial-retraction': 'Retractado en parte',
      withdrawal: 'Retirado',
      removal: 'Eliminado',
      'expression-of-concern': 'Expresión de preocupación',
    },
  };
  return `⚠️ ${(flags[language] ?? flags.en)[notice.kind]}${notice.date ? ` ${notice.date.slice(0, 4)}` : ''}`;
}

/** The answer when the question names a source (author, year, journal) the lab's index does not have. */
export function namedSourceMissing(language: Language, described: string): string {
  const what = described.trim() || (language === 'es' ? 'esa fuente' : 'that source');
  return language === 'es'
    ? `No encontré «${what}» en el material del laboratorio, así que no respondo con otras fuentes.`
    : `I couldn't find "${what}" in the lab's material, so I won't answer from other sources.`;
}

/**
 * Said under an answer to a question naming a source (author, year) that no document's metadata
 * matches, when the index could not rule it out: which name was not matched, and what the answer
 * rests on instead.
 */
export function namedSourceUnmatched(language: Language, described: string, lifted: boolean): string {
  const what = described.trim() || (language === 'es' ? 'esa fuente' : 'that source');
  if (language === 'es') {
    return lifted
      ? `Ningún documento tiene «${what}» en sus metadatos; respondo con los documentos que lo nombran en su primera página o en el nombre del archivo.`
      : `Ningún documento tiene «${what}» en sus metadatos; respondo con todo el material del laboratorio.`;
  }
  return lifted
    ? `No document's metadata matches "${what}"; answered from the documents that name it on their first page or in their file name.`
    : `No document's metadata matches "${what}"; answered from all of the lab's material.`;
}
