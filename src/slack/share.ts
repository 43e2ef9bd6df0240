// "Share in channel" under a private `/labbot ask` answer: the answer is kept (Redis, a day) under
// the question's record id, and the asker's click posts the same answer in the channel through
// the click's response_url (in_channel works where labbot is not a member), attributed to them.
import type { RespondFn } from '@slack/bolt';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Citation } from '../answer/cite.ts';
import type { Language } from '../answer/messages.ts';
import { answerMessages, escapeMrkdwn, noticeMessage, userMention, type AnswerView, type Block, type SlackMessage } from './format.ts';

export const SHARE_ACTION = 'labbot_share';

export interface SharedAnswer {
  asker: string;
  channel: string;
  question: string;
  view: { answer: string; refused: boolean; citations: Citation[]; model: string; language: Language };
  /** The access groups the answer read (absent in answers kept before it was recorded: unknown). */
  groups?: string[];
}

export interface ShareStore {
  save(id: string, shared: SharedAnswer): Promise<void>;
  load(id: string): Promise<SharedAnswer | undefined>;
}

const TTL_SECONDS = 24 * 3600;

export function createShareStore(redis: Redis, prefix: string, log?: Logger): ShareStore {
  const key = (id: string) => `${prefix}slack:share:${id}`;
  return {
    async save(id, shared) {
      await redis.set(key(id), JSON.stringify(shared), 'EX', TTL_SECONDS);
    },
    async load(id) {
      try {
        const raw = await redis.get(key(id));
        return raw ? (JSON.parse(raw) as SharedAnswer) : undefined;
      } catch (err) {
        log?.warn({ err: (err as Error).message, id }, 'could not load a shared answer');
        return undefined;
      }
    },
  };
}

const TEXTS = {
  en: { button: 'Share in channel', asked: (user: string, q: string) => `${userMention(user)} asked: ${q}`, gone: 'That answer is too old to share; ask again.', notYours: 'Only the person who asked can share this answer.' },
  es: { button: 'Compartir en el canal', asked: (user: string, q: string) => `${userMention(user)} preguntó: ${q}`, gone: 'Esa respuesta es demasiado antigua para compartirla; vuelve a preguntar.', notYours: 'Solo quien preguntó puede compartir esta respuesta.' },
};

/** Adds the Share button to the last message of a private answer. */
export function withShareButton(msgs: SlackMessage[], id: string, lang: Language): SlackMessage[] {
  if (msgs.length === 0) return msgs;
  const last = msgs[msgs.length - 1];
  const button: Block = {
    type: 'actions',
    block_id: 'labbot_share',
    elements: [{ type: 'button', action_id: SHARE_ACTION, text: { type: 'plain_text', text: TEXTS[lang].button, emoji: true }, value: id }],
  };
  return [...msgs.slice(0, -1), { ...last, blocks: [...last.blocks, button] }];
}

const RESPONSE_URL_POSTS = 5;

/** The asker clicked Share: the same answer goes to the channel, with who asked (labbot's own mention). */
export async function shareAnswer(
  store: ShareStore,
  id: string,
  clicker: string,
  respond: RespondFn,
  log: Logger,
  /** Why the answer may not go to its channel now (Slack Connect), or undefined when it may. */
  refusedIn?: (shared: SharedAnswer) => Promise<string | undefined>,
  /** Posts to the channel with the Web API: parts past what response_url takes (5 posts). */
  postToChannel?: (channel: string, m: SlackMessage) => Promise<void>,
): Promise<boolean> {
  const shared = await store.load(id);
  const lang: Language = shared?.view.language ?? 'en';
  const refuse = (mrkdwn: string) =>
    respond({ response_type: 'ephemeral', replace_original: false, ...noticeMessage(mrkdwn) }).catch((err: Error) => log.warn({ err: err.message }, 'share refusal failed'));
  if (!shared) {
    await refuse(TEXTS[lang].gone);
    return false;
  }
  if (shared.asker !== clicker || !/^[UW][A-Z0-9]+$/.test(shared.asker)) {
    await refuse(TEXTS[lang].notYours);
    return false;
  }
  const refusal = await refusedIn?.(shared);
  if (refusal) {
    await refuse(refusal);
    return false;
  }
  const view: AnswerView = shared.view;
  const msgs = answerMessages(view, { recordId: id });
  const attribution: Block = { type: 'context', elements: [{ type: 'mrkdwn', text: TEXTS[lang].asked(shared.asker, escapeMrkdwn(shared.question)) }] };
  msgs[0] = { ...msgs[0], blocks: [attribution, ...msgs[0].blocks] };
  // response_url takes at most 5 posts; a longer answer goes on with chat.postMessage, in order.
  const viaUrl = postToChannel && msgs.length > RESPONSE_URL_POSTS ? msgs.slice(0, RESPONSE_URL_POSTS) : msgs;
  for (const m of viaUrl) await respond({ response_type: 'in_channel', replace_original: false, text: m.text, blocks: m.blocks });
  for (const m of msgs.slice(viaUrl.length)) await postToChannel!(shared.channel, m);
  return true;
}
