// Thread etiquette: whether an untagged reply in a channel thread is for labbot. A thread where
// labbot answered is still the people's conversation: a reply is answered without a mention only
// when it comes from the person labbot answered, soon after the answer, before anyone else spoke,
// and reads as a question to labbot (not thanks, not an emoji, not words addressed to a colleague).
// Pure: the Slack text and the thread's follow-up window in, a verdict with its reason out.
// Hand-written: a few rules over English and Spanish wording; no library classifies chat turns
// into "question for the bot" and "talk between colleagues".
import { slackToPlain } from './slack-text.ts';

export type ReplyReason =
  | 'question'
  | 'empty'
  | 'addressed to someone else'
  | 'emoji only'
  | 'acknowledgement'
  | 'side conversation'
  | 'not a question';

export interface ReplyReading {
  forLabbot: boolean;
  reason: ReplyReason;
}

/** The thread's follow-up window: who labbot answered there, and when (ms since the epoch). */
export interface FollowUpWindow {
  user: string;
  answeredAt: number;
}

export type FollowUpReason = ReplyReason | 'no recent answer' | 'window closed' | 'someone else';

const EMOJI = /:[a-z0-9_+'-]+:|\p{Extended_Pictographic}|[\u{1F3FB}-\u{1F3FF}]|\u200d|\uFE0F/gu;
const WORD = /[\p{L}\p{N}][\p{L}\p{N}']*/gu;

// Words that make up a thanks or an acknowledgement, and nothing else.
const ACK = new Set(
  (
    'thanks thank thankyou thx ty tysm ta cheers you so much many very really a lot lots for the help helps helped helpful ' +
    "that that's thats this is was it great perfect awesome amazing brilliant excellent wonderful fab cool nice neat super wow " +
    'ok okay k kk got makes sense sounds good fine yes yeah yep yup no nope nah sure right lol haha hah ha ah oh i see understood ' +
    'noted will do done agreed appreciated appreciate exactly indeed true ' +
    'gracias muchas mil vale perfecto genial entendido claro sí si bien buenísimo estupendo de nada ya veo'
  ).split(/\s+/),
);

// Sentence openers that are not a name in "Ada, can you…".
const NOT_A_NAME = new Set(
  (
    'thanks thank ok okay so and also yes no yeah great perfect sure right well hmm and but then now sorry wait cool nice hi hey ' +
    'hello actually otherwise btw plus similarly anyway sadly honestly basically interesting true indeed labbot ' +
    'sí si vale gracias bueno pues oye hola entonces además perfecto genial claro'
  ).split(/\s+/),
);

// What labbot can do when asked "can you …": find and tell things from the lab's material.
const INFO_VERBS = new Set(
  (
    'tell show explain list give find summarise summarize describe compare check look search remind point clarify quote cite ' +
    'recommend suggest help translate know have say define link repeat expand elaborate ' +
    'decir dime mostrar muestra explicar explica buscar busca resumir resume'
  ).split(/\s+/),
);

const ASKS_A_PERSON =
  /\b(?:did|have|had|were|are|will|would|could|can|do)\s+(?:you|u|ya)\b(?:\s+(?:please|also|still|maybe|just|already|actually))?\s+([\p{L}'’]+)/iu;
const PAST_OR_PLANS = /^(?:did|have|had|were|are|will)$/i;
// "does anyone…", "can someone…", "you guys": the reply asks the people in the thread.
const GROUP = new RegExp(
  String.raw`(?:^|\b(?:does|did|has|have|is|are|can|could|will|would|should)\s+)(?:anyone|anybody|` +
    String.raw`someone|somebody|everyone|everybody)\b|\b(?:y'all|you guys|guys|folks|alguien)\b`,
  'iu',
);
const OWN_PLANS =
  /\b(?:i'?ll|i will|i'm going to|i am going to|let me|let'?s|we'?ll|we will|shall we|we could|i can do|i can take|voy a|vamos a)\b/iu;
const VOCATIVE_LEAD = /^\s*(?:(?:hey|hi|hello|oye|hola|ok|okay|so|thanks|and)[\s,!]+)?([\p{Lu}][\p{Ll}]+)\s*[,:]\s*\S/u;
const GREETED = /^\s*(?:hey|hi|hello|oye|hola)\s+([\p{Lu}][\p{Ll}]+)\b/u;
const VOCATIVE_TAIL = /,\s*([\p{Lu}][\p{Ll}]+)\s*[?!.]*\s*$/u;
const FILLER =
  /^(?:and|also|so|ok|okay|thanks|thank you|but|then|please|now|y|e|pues|entonces|vale|gracias|por favor)(?![\p{L}\p{N}])[\s,!.]*/iu;
const INTERROGATIVE = new RegExp(
  String.raw`^(?:what|what's|whats|which|who|whose|whom|when|where|why|how|is|are|was|were|do|does|did|` +
    String.raw`can|could|should|would|will|shall|may|might|any|qué|cuál|cuáles|cómo|dónde|cuándo|quién|` +
    String.raw`quiénes|cuánto|cuánta|cuántos|cuántas|hay)(?![\p{L}\p{N}])`,
  'iu',
);
const FRAGMENT =
  /^(?:what about|how about|and for|and with|and in|and on|same for|same with|y para|y con|y en|y el|y la|qué tal|y si)(?![\p{L}\p{N}])/iu;
const IMPERATIVE = new RegExp(
  String.raw`^(?:show|tell|list|explain|give|find|summarise|summarize|describe|compare|remind|define|` +
    String.raw`quote|cite|check|look up|search|translate|dime|muestra|explica|busca|resume)(?![\p{L}\p{N}])`,
  'iu',
);

function nameIsSomeoneElse(name: string | undefined): boolean {
  return name !== undefined && !NOT_A_NAME.has(name.toLowerCase());
}

/** How one reply reads, from its Slack text (mention tokens included). */
export function readReply(slackText: string, botUserId?: string): ReplyReading {
  const raw = slackText.trim();
  if (!raw) return { forLabbot: false, reason: 'empty' };
  // A colleague or a group is mentioned: the reply is for them (a mention of labbot is answered as one).
  for (const m of raw.matchAll(/<@([UW][A-Z0-9]+)(?:\|[^>]*)?>/g))
    if (m[1] !== botUserId) return { forLabbot: false, reason: 'addressed to someone else' };
  if (/<!(?:here|channel|everyone|subteam\^)/.test(raw)) return { forLabbot: false, reason: 'addressed to someone else' };
  const withoutBot = botUserId ? raw.replace(new RegExp(`<@${botUserId}(?:\\|[^>]*)?>`, 'g'), ' ') : raw;
  const plain = slackToPlain(withoutBot).replace(/[’‘]/g, "'").replace(/\s+/g, ' ').trim();
  if (/(?:^|\s)@(?!labbot\b)[\p{L}]/iu.test(plain)) return { forLabbot: false, reason: 'addressed to someone else' };
  const text = plain.replace(EMOJI, ' ').replace(/\s+/g, ' ').trim();
  const words = text.toLowerCase().match(WORD) ?? [];
  if (words.length === 0) return { forLabbot: false, reason: 'emoji only' };
  if (
    nameIsSomeoneElse(VOCATIVE_LEAD.exec(text)?.[1]) ||
    nameIsSomeoneElse(GREETED.exec(text)?.[1]) ||
    nameIsSomeoneElse(VOCATIVE_TAIL.exec(text)?.[1])
  ) {
    return { forLabbot: false, reason: 'addressed to someone else' };
  }
  if (words.every((w) => ACK.has(w))) return { forLabbot: false, reason: 'acknowledgement' };
  const asked = ASKS_A_PERSON.exec(text);
  if (asked) {
    const aux = /^\s*(\S+)/.exec(asked[0])![1];
    if (PAST_OR_PLANS.test(aux) || !INFO_VERBS.has(asked[1].toLowerCase())) return { forLabbot: false, reason: 'side conversation' };
  }
  if (GROUP.test(text) || OWN_PLANS.test(text)) return { forLabbot: false, reason: 'side conversation' };
  if (/[?¿]/.test(text)) return { forLabbot: true, reason: 'question' };
  // No question mark: a question word, an elliptic "and for…", or a request to find or tell,
  // at the start or after "ok", "thanks", "and"…
  let rest = text.replace(/^[¡¿\s]+/, '');
  for (;;) {
    if (FRAGMENT.test(rest) || INTERROGATIVE.test(rest) || IMPERATIVE.test(rest)) return { forLabbot: true, reason: 'question' };
    const filler = FILLER.exec(rest);
    if (!filler || filler[0].length === 0) return { forLabbot: false, reason: 'not a question' };
    rest = rest.slice(filler[0].length);
  }
}

/**
 * Whether labbot answers an untagged reply in a channel thread: only from the person it answered
 * there, within `windowMs` of that answer (the window closes early when someone else replies), and
 * only when the reply reads as a question.
 */
export function answersUntaggedReply(
  window: FollowUpWindow | undefined,
  reply: { user: string | undefined; text: string },
  opts: { now: number; windowMs: number; botUserId?: string },
): { answer: boolean; reason: FollowUpReason } {
  if (!window) return { answer: false, reason: 'no recent answer' };
  if (!reply.user || reply.user !== window.user) return { answer: false, reason: 'someone else' };
  if (opts.now - window.answeredAt > opts.windowMs) return { answer: false, reason: 'window closed' };
  const reading = readReply(reply.text, opts.botUserId);
  return { answer: reading.forLabbot, reason: reading.reason };
}
