// "Share in channel" under a private `/labbot ask` answer: the answer is kept (Redis, a day) under
// the question's record id, and the asker's click posts the same answer in the channel,
// attributed to them, once: the first click claims the share in Redis (SET NX), so a second
// click, a double click still in flight or the same click reaching another replica posts
// nothing. Once posted, the private copy the button was on is deleted (delete_original on the
// click's response_url). An answer that fits one message goes through that response_url
// (in_channel works where labbot is not a member); a longer one is one message in the channel
// with the rest in its thread (chat.postMessage, which needs labbot in the channel).
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
  /** Claims the one share of an answer; false when it is shared or being shared (any click, any replica). */
  claim(id: string): Promise<boolean>;
  /** The share went out: the claim is kept as long as the answer. */
  done(id: string): Promise<void>;
  /** Nothing was posted: the claim is given back, so the asker can try again. */
  release(id: string): Promise<void>;
}

const TTL_SECONDS = 24 * 3600;
/** A claim whose share never finished (its process died mid-way) lapses after this, so a later click can share. */
const CLAIM_SECONDS = 120;

export function createShareStore(redis: Redis, prefix: string, log?: Logger): ShareStore {
  const key = (id: string) => `${prefix}slack:share:${id}`;
  const claimKey = (id: string) => `${prefix}slack:share:${id}:claimed`;
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
    async claim(id) {
      return (await redis.set(claimKey(id), 'sharing', 'EX', CLAIM_SECONDS, 'NX')) === 'OK';
    },
    async done(id) {
      await redis.set(claimKey(id), 'shared', 'EX', TTL_SECONDS);
    },
    async release(id) {
      await redis.del(claimKey(id));
    },
  };
}

const TEXTS = {
  en: {
    button: 'Share in channel',
    asked: (user: string, q: string) => `${userMention(user)} asked: ${q}`,
    gone: 'That answer is too old to share; ask again.',
    notYours: 'Only the person who asked can share this answer.',
    restInThread: '_The rest of the answer is in the thread._',
    needsMember:
      'This answer is longer than one Slack message, and I can put the rest in a thread only in ' +
      'channels I am a member of. Invite me (`/invite @labbot`) and share again; your answer ' +
      'stays here meanwhile.',
    failed: 'I could not post the answer in the channel; it stays here. Try again in a minute.',
    partial: 'I could not post all of the answer in its thread; your full copy stays here.',
  },
  es: {
    button: 'Compartir en el canal',
    asked: (user: string, q: string) => `${userMention(user)} preguntó: ${q}`,
    gone: 'Esa respuesta es demasiado antigua para compartirla; vuelve a preguntar.',
    notYours: 'Solo quien preguntó puede compartir esta respuesta.',
    restInThread: '_El resto de la respuesta está en el hilo._',
    needsMember:
      'Esta respuesta no cabe en un mensaje de Slack, y solo puedo poner el resto en un hilo en ' +
      'los canales de los que soy miembro. Invítame (`/invite @labbot`) y compártela de nuevo; ' +
      'mientras tanto tu respuesta sigue aquí.',
    failed: 'No pude publicar la respuesta en el canal; sigue aquí. Inténtalo de nuevo en un minuto.',
    partial: 'No pude publicar toda la respuesta en su hilo; tu copia completa sigue aquí.',
  },
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

/** The shared answer as posted: the attribution first, and on a long answer a pointer to its thread. */
function sharedMessages(shared: SharedAnswer, id: string): SlackMessage[] {
  const lang: Language = shared.view.language;
  const attribution: Block = {
    type: 'context',
    elements: [{ type: 'mrkdwn', text: TEXTS[lang].asked(shared.asker, escapeMrkdwn(shared.question)) }],
  };
  const view: AnswerView = shared.view;
  const msgs = answerMessages(view, { recordId: id, lead: [attribution] });
  // Some 40 characters: within the margin packMessages keeps below Slack's per-message limit.
  if (msgs.length > 1)
    msgs[0] = {
      ...msgs[0],
      blocks: [...msgs[0].blocks, { type: 'context', elements: [{ type: 'mrkdwn', text: TEXTS[lang].restInThread }] }],
    };
  return msgs;
}

export interface ShareDeps {
  store: ShareStore;
  log: Logger;
  /** The click's response_url. */
  respond: RespondFn;
  /** Why the answer may not go to its channel now (Slack Connect), or undefined when it may. */
  refusedIn?: (shared: SharedAnswer) => Promise<string | undefined>;
  /** chat.postMessage into the channel (in `threadTs` when given); returns the message's ts. */
  post: (channel: string, m: SlackMessage, threadTs?: string) => Promise<string | undefined>;
}

const slackError = (err: unknown) => (err as { data?: { error?: string } }).data?.error ?? (err as Error).message;

/** Posts the shared messages; the number posted (0 means nothing reached the channel). */
async function postShared(d: ShareDeps, shared: SharedAnswer, msgs: SlackMessage[]): Promise<{ posted: number; error?: string }> {
  if (msgs.length === 1) {
    try {
      await d.respond({ response_type: 'in_channel', replace_original: false, text: msgs[0].text, blocks: msgs[0].blocks });
      return { posted: 1 };
    } catch (err) {
      return { posted: 0, error: slackError(err) };
    }
  }
  let posted = 0;
  let threadTs: string | undefined;
  try {
    for (const m of msgs) {
      const ts = await d.post(shared.channel, m, threadTs);
      threadTs ??= ts;
      posted += 1;
    }
    return { posted };
  } catch (err) {
    return { posted, error: slackError(err) };
  }
}

/** The asker clicked Share: the answer goes to the channel once, and the private copy goes away. */
export async function shareAnswer(d: ShareDeps, id: string, clicker: string): Promise<boolean> {
  const { store, log, respond } = d;
  const shared = await store.load(id);
  const lang: Language = shared?.view.language ?? 'en';
  const tell = (mrkdwn: string) =>
    respond({ response_type: 'ephemeral', replace_original: false, ...noticeMessage(mrkdwn) }).catch((err: Error) =>
      log.warn({ err: err.message }, 'share notice failed'),
    );
  if (!shared) {
    await tell(TEXTS[lang].gone);
    return false;
  }
  if (shared.asker !== clicker || !/^[UW][A-Z0-9]+$/.test(shared.asker)) {
    await tell(TEXTS[lang].notYours);
    return false;
  }
  const refusal = await d.refusedIn?.(shared);
  if (refusal) {
    await tell(refusal);
    return false;
  }
  if (!(await store.claim(id))) {
    log.info({ id, channel: shared.channel }, 'answer already shared (or being shared): repeat click ignored');
    return false;
  }
  const msgs = sharedMessages(shared, id);
  const { posted, error } = await postShared(d, shared, msgs);
  if (posted === 0) {
    await store.release(id);
    log.warn({ id, channel: shared.channel, err: error }, 'could not share the answer in the channel');
    await tell(
      msgs.length > 1 && (error === 'not_in_channel' || error === 'channel_not_found') ? TEXTS[lang].needsMember : TEXTS[lang].failed,
    );
    return false;
  }
  await store.done(id);
  if (posted < msgs.length) {
    // Shared in part: the channel has its start, so no second share; the asker keeps the whole.
    log.error({ id, channel: shared.channel, posted, of: msgs.length, err: error }, 'a shared answer’s thread is incomplete');
    await tell(TEXTS[lang].partial);
    return true;
  }
  // The answer is in the channel now: the private copy under the button goes.
  await respond({ delete_original: true }).catch((err: Error) =>
    log.warn({ id, err: err.message }, 'could not delete the private copy of a shared answer'),
  );
  return true;
}
