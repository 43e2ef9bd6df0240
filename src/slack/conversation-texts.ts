// Fixed strings of the conversation features (queue position, Slack Connect, attachments,
// restarts, reindex follow-up), per language. Kept apart from messages.ts, whose strings are the
// bot's original notices. All mrkdwn here is labbot's own and safe to send as is.
import type { Language } from '../answer/messages.ts';

export interface ConversationTexts {
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

const TEXTS: Record<Language, ConversationTexts> = {
  en: {
    queued: (n) => (n <= 1 ? '(busy right now: yours is next)' : `(busy right now: ${n - 1} questions before yours)`),
    connectRefused:
      'This channel is shared with another organisation (Slack Connect), so I do not answer here: the lab’s material stays inside the lab. Ask me in an internal channel or a direct message.',
    connectUnchecked:
      'I could not check whether this conversation is shared with another organisation (Slack Connect), so I do not answer here. Ask me in a channel I am a member of, or in a direct message.',
    connectShareStale:
      'This channel is shared with another organisation now, and that answer used material the lab keeps inside. Ask again here to get an answer from the lab’s public material.',
    shareNotReadable:
      'That answer used material not everyone in this conversation may read, so I do not share it here; it stays visible to you only. Ask again here for an answer everyone here may see.',
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
    queued: (n) =>
      n <= 1 ? '(ocupado ahora mismo: la tuya es la siguiente)' : `(ocupado ahora mismo: ${n - 1} preguntas antes de la tuya)`,
    connectRefused:
      'Este canal está compartido con otra organización (Slack Connect), así que aquí no respondo: el material del laboratorio se queda en el laboratorio. Pregúntame en un canal interno o por mensaje directo.',
    connectUnchecked:
      'No pude comprobar si esta conversación está compartida con otra organización (Slack Connect), así que aquí no respondo. Pregúntame en un canal del que sea miembro o por mensaje directo.',
    connectShareStale:
      'Este canal está compartido ahora con otra organización y esa respuesta usó material que el laboratorio guarda dentro. Vuelve a preguntar aquí para obtener una respuesta del material público del laboratorio.',
    shareNotReadable:
      'Esa respuesta usó material que no todos en esta conversación pueden leer, así que no la comparto aquí; solo tú la sigues viendo. Vuelve a preguntar aquí para obtener una respuesta que todos puedan ver.',
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

export function conversationText(lang: Language): ConversationTexts {
  return TEXTS[lang] ?? TEXTS.en;
}
