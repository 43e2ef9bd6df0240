// Fixed strings of the conversation features (queue position, Slack Connect, attachments,
// restarts, reindex follow-up), per language. Kept apart from messages.ts, whose strings are the
// bot's original notices. All mrkdwn here is labbot's own and safe to send as is.
import type { Language } from '../answer/messages.ts';

export interface ConversationTexts {
  /** Added to the "Searching…" placeholder when answers are waiting; n is 1 for "next". */
  queued(n: number): string;
  connectRefused: string;
  connectPublicOnly: string;
  attachmentsNotRead: string;
  restarting: string;
  reindexProgressByDm: string;
  /** Assistant thread status (shown after the app's name), with the queue position in busy moments. */
  status(position: number): string;
  reindexDone: string;
  /** A private answer longer than response_url takes: where its rest went. */
  restByDm: string;
  restUndeliverable: string;
}

const TEXTS: Record<Language, ConversationTexts> = {
  en: {
    queued: (n) => (n <= 1 ? '(busy right now: yours is next)' : `(busy right now: ${n - 1} questions before yours)`),
    connectRefused:
      'This channel is shared with another organisation (Slack Connect), so I do not answer here: the lab’s material stays inside the lab. Ask me in an internal channel or a direct message.',
    connectPublicOnly: '_This channel is shared with another organisation: only the lab’s public material was searched._',
    attachmentsNotRead: '_I answered from the text of your message: I do not read attachments._',
    restarting: 'labbot is restarting and could not finish this answer. Please ask again in a minute.',
    reindexProgressByDm: 'Re-sync in progress',
    status: (n) => (n <= 0 ? 'is searching the lab’s papers…' : n === 1 ? 'is busy: yours is next…' : `is busy: ${n - 1} questions before yours…`),
    reindexDone: 'Re-sync finished',
    restByDm: 'This answer is longer than Slack lets me reply here: the rest is in your direct messages with labbot.',
    restUndeliverable: 'This answer is longer than Slack lets me reply here, and I could not send you all of the rest. Ask again in a direct message to labbot.',
  },
  es: {
    queued: (n) => (n <= 1 ? '(ocupado ahora mismo: la tuya es la siguiente)' : `(ocupado ahora mismo: ${n - 1} preguntas antes de la tuya)`),
    connectRefused:
      'Este canal está compartido con otra organización (Slack Connect), así que aquí no respondo: el material del laboratorio se queda en el laboratorio. Pregúntame en un canal interno o por mensaje directo.',
    connectPublicOnly: '_Este canal está compartido con otra organización: solo se buscó en el material público del laboratorio._',
    attachmentsNotRead: '_Respondí a partir del texto de tu mensaje: no leo los archivos adjuntos._',
    restarting: 'labbot se está reiniciando y no pudo terminar esta respuesta. Vuelve a preguntar en un minuto.',
    reindexProgressByDm: 'Resincronización en curso',
    status: (n) => (n <= 0 ? 'está buscando en los artículos del laboratorio…' : n === 1 ? 'está ocupado: la tuya es la siguiente…' : `está ocupado: ${n - 1} preguntas antes de la tuya…`),
    reindexDone: 'Resincronización terminada',
    restByDm: 'Esta respuesta es más larga de lo que Slack me deja responder aquí: el resto está en tus mensajes directos con labbot.',
    restUndeliverable: 'Esta respuesta es más larga de lo que Slack me deja responder aquí y no pude enviarte todo el resto. Vuelve a preguntar por mensaje directo a labbot.',
  },
};

export function conversationText(lang: Language): ConversationTexts {
  return TEXTS[lang] ?? TEXTS.en;
}

/** Suggested prompts for a new assistant thread (assistant.threads.setSuggestedPrompts). */
export const SUGGESTED_PROMPTS = [
  { title: 'Find a protocol', message: 'Which protocol do we use for RNA extraction, and what are its key steps?' },
  { title: 'Summarise a paper', message: 'What are the main findings of our most recent paper?' },
  { title: 'Lab how-to', message: 'How do I book shared equipment like the confocal microscope?' },
];
