// Every fixed string the Slack bot sends, per language, in one table: its notices, commands and
// buttons, and the conversation features (queue position, Slack Connect, attachments, restarts,
// reindex follow-up). The answer's own strings (refusal, "Sources", "Searching…") live in
// src/answer/messages.ts. All mrkdwn here is labbot's own and safe to send as is.
import type { Language } from '../answer/messages.ts';

export interface SlackStrings {
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
  /** Added to the "Searching…" placeholder when answers are waiting; n is 1 for "next". */
  queued(n: number): string;
  connectRefused: string;
  /** Slack could not be asked whether the conversation is shared: labbot does not answer there. */
  connectUnchecked: string;
  /** Share of a private answer that read restricted groups, to a channel shared since. */
  connectShareStale: string;
  /** Share of a private answer that read groups someone in the conversation may not read (audience.ts). */
  shareNotReadable: string;
  connectPublicOnly: string;
  attachmentsNotRead: string;
  restarting: string;
  reindexProgressByDm: string;
  /** Thread status line (shown after the app's name), with the queue position in busy moments. */
  status(position: number): string;
  /** What the status line rotates through while labbot works (assistant.threads.setStatus takes at most 10). */
  loading: string[];
  reindexDone: string;
  /** A private answer longer than response_url takes: where its rest went. */
  restByDm: string;
  restUndeliverable: string;
}

const TEXTS: Record<Language, SlackStrings> = {
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
    queued: (n) => (n <= 1 ? '(busy right now: yours is next)' : `(busy right now: ${n - 1} questions before yours)`),
    connectRefused:
      'This channel is shared with another organisation (Slack Connect), so I do not answer ' +
      'here: the lab’s material stays inside the lab. Ask me in an internal channel or a direct message.',
    connectUnchecked:
      'I could not check whether this conversation is shared with another organisation (Slack ' +
      'Connect), so I do not answer here. Ask me in a channel I am a member of, or in a direct message.',
    connectShareStale:
      'This channel is shared with another organisation now, and that answer used material the ' +
      'lab keeps inside. Ask again here to get an answer from the lab’s public material.',
    shareNotReadable:
      'That answer used material not everyone in this conversation may read, so I do not share ' +
      'it here; it stays visible to you only. Ask again here for an answer everyone here may see.',
    connectPublicOnly: '_This channel is shared with another organisation: only the lab’s public material was searched._',
    attachmentsNotRead: '_I answered from the text of your message: I do not read attachments._',
    restarting: 'labbot is restarting and could not finish this answer. Please ask again in a minute.',
    reindexProgressByDm: 'Re-sync in progress',
    status: (n) =>
      n <= 0 ? 'is searching the lab’s papers…' : n === 1 ? 'is busy: yours is next…' : `is busy: ${n - 1} questions before yours…`,
    loading: ['Searching the papers…', 'Reading the protocols…', 'Looking through the slides and the wiki…', 'Checking the citations…'],
    reindexDone: 'Re-sync finished',
    restByDm: 'This answer is longer than Slack lets me reply here: the rest is in your direct messages with labbot.',
    restUndeliverable:
      'This answer is longer than Slack lets me reply here, and I could not send you all of the rest. Ask again in a direct message to labbot.',
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
    queued: (n) =>
      n <= 1 ? '(ocupado ahora mismo: la tuya es la siguiente)' : `(ocupado ahora mismo: ${n - 1} preguntas antes de la tuya)`,
    connectRefused:
      'Este canal está compartido con otra organización (Slack Connect), así que aquí no ' +
      'respondo: el material del laboratorio se queda en el laboratorio. Pregúntame en un canal ' +
      'interno o por mensaje directo.',
    connectUnchecked:
      'No pude comprobar si esta conversación está compartida con otra organización (Slack ' +
      'Connect), así que aquí no respondo. Pregúntame en un canal del que sea miembro o por mensaje directo.',
    connectShareStale:
      'Este canal está compartido ahora con otra organización y esa respuesta usó material que ' +
      'el laboratorio guarda dentro. Vuelve a preguntar aquí para obtener una respuesta del ' +
      'material público del laboratorio.',
    shareNotReadable:
      'Esa respuesta usó material que no todos en esta conversación pueden leer, así que no la ' +
      'comparto aquí; solo tú la sigues viendo. Vuelve a preguntar aquí para obtener una ' +
      'respuesta que todos puedan ver.',
    connectPublicOnly: '_Este canal está compartido con otra organización: solo se buscó en el material público del laboratorio._',
    attachmentsNotRead: '_Respondí a partir del texto de tu mensaje: no leo los archivos adjuntos._',
    restarting: 'labbot se está reiniciando y no pudo terminar esta respuesta. Vuelve a preguntar en un minuto.',
    reindexProgressByDm: 'Resincronización en curso',
    status: (n) =>
      n <= 0
        ? 'está buscando en los artículos del laboratorio…'
        : n === 1
          ? 'está ocupado: la tuya es la siguiente…'
          : `está ocupado: ${n - 1} preguntas antes de la tuya…`,
    loading: ['Buscando en los artículos…', 'Leyendo los protocolos…', 'Revisando las presentaciones y la wiki…', 'Comprobando las citas…'],
    reindexDone: 'Resincronización terminada',
    restByDm: 'Esta respuesta es más larga de lo que Slack me deja responder aquí: el resto está en tus mensajes directos con labbot.',
    restUndeliverable:
      'Esta respuesta es más larga de lo que Slack me deja responder aquí y no pude enviarte todo el resto. Vuelve a preguntar por mensaje directo a labbot.',
  },
};

export function slackStrings(lang: Language): SlackStrings {
  return TEXTS[lang] ?? TEXTS.en;
}
