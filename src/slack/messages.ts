// Fixed strings of the Slack bot, per language. The answer's own strings (refusal, "Sources",
// "Searching…") live in src/answer/messages.ts; these are the bot's notices and commands.
import type { Language } from '../answer/messages.ts';

export interface SlackTexts {
  indexEmpty: string;
  chromaDown: string;
  notAllowed: string;
  answeredBy: string;
  modelUnavailable: string;
  noModelNeeded: string;
  helpful: string;
  notHelpful: string;
  continued: string;
  thanks: string;
  feedbackUnknown: string;
  reindexAdminsOnly: string;
  help: string;
}

const TEXTS: Record<Language, SlackTexts> = {
  en: {
    indexEmpty: 'The index is empty: ask an admin to run `/labbot reindex`.',
    chromaDown: "The lab's index is unavailable right now; try again in a minute.",
    notAllowed: 'You are not allowed to do that here.',
    answeredBy: 'Answered by',
    modelUnavailable: '(the language model was unavailable)',
    noModelNeeded: 'No matching passages; no model was asked.',
    helpful: 'Helpful',
    notHelpful: 'Not helpful',
    continued: '(continued)',
    thanks: 'Thanks for the feedback!',
    feedbackUnknown: 'That answer is too old to rate.',
    reindexAdminsOnly: 'Only labbot admins can run `/labbot reindex`.',
    help: [
      '*labbot* answers questions from the lab’s papers, protocols, slides and wiki, with sources.',
      '• Mention me in a channel: `@labbot what dilution for the anti-USP7 antibody?` (follow-ups in the thread keep the context)',
      '• Or send me a direct message.',
      '• `/labbot <question>` (or `/labbot ask <question>`): an answer only you see',
      '• `/labbot status`: what is indexed',
      '• `/labbot reindex [source|all]`: re-sync sources (admins)',
      '• `/labbot help`: this message',
    ].join('\n'),
  },
  es: {
    indexEmpty: 'El índice está vacío: pide a un administrador que ejecute `/labbot reindex`.',
    chromaDown: 'El índice del laboratorio no está disponible ahora mismo; inténtalo de nuevo en un minuto.',
    notAllowed: 'No tienes permiso para hacer eso aquí.',
    answeredBy: 'Respondido por',
    modelUnavailable: '(el modelo de lenguaje no estaba disponible)',
    noModelNeeded: 'No hay pasajes que coincidan; no se consultó ningún modelo.',
    helpful: 'Útil',
    notHelpful: 'No útil',
    continued: '(continuación)',
    thanks: '¡Gracias por tu opinión!',
    feedbackUnknown: 'Esa respuesta es demasiado antigua para valorarla.',
    reindexAdminsOnly: 'Solo los administradores de labbot pueden ejecutar `/labbot reindex`.',
    help: [
      '*labbot* responde preguntas con los artículos, protocolos, presentaciones y la wiki del laboratorio, citando las fuentes.',
      '• Mencióname en un canal: `@labbot ¿qué dilución para el anticuerpo anti-USP7?` (las preguntas de seguimiento en el hilo mantienen el contexto)',
      '• O envíame un mensaje directo.',
      '• `/labbot <pregunta>` (o `/labbot ask <pregunta>`): una respuesta que solo ves tú',
      '• `/labbot status`: qué está indexado',
      '• `/labbot reindex [fuente|all]`: resincronizar fuentes (administradores)',
      '• `/labbot help`: este mensaje',
    ].join('\n'),
  },
};

export function slackText(lang: Language): SlackTexts {
  return TEXTS[lang] ?? TEXTS.en;
}
