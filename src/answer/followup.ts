// Follow-up questions in a thread ("and for HEK293?") carry too few words for retrieval on their
// own. A chat model, when there is one, rewrites them as a standalone question; without one (or
// when it fails) the salient words of the earlier question are carried over. The model is passed
// in; everything else is pure: history in, question out.
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { Logger } from 'pino';
import { eng, spa } from 'stopword';
import type { HistoryTurn } from './answer.ts';
import { isMeasure } from '../search/identifiers.ts';

export interface FollowUpRewrite {
  question: string;
  rewritten: boolean;
  /** Words appended from earlier turns. */
  carried: string[];
}

const STOP = new Set([
  ...eng,
  ...spa,
  // Question and filler words that say nothing about the topic.
  'what',
  'which',
  'how',
  'when',
  'where',
  'who',
  'why',
  'does',
  'do',
  'did',
  'is',
  'are',
  'can',
  'could',
  'should',
  'would',
  'use',
  'used',
  'using',
  'need',
  'needed',
  'tell',
  'know',
  'please',
  'thanks',
  'also',
  'about',
  'same',
  'instead',
  'then',
  'qué',
  'cuál',
  'cuáles',
  'cómo',
  'cuándo',
  'dónde',
  'quién',
  'por',
  'para',
  'usa',
  'usar',
  'usamos',
  'también',
  'mismo',
  'misma',
  'lab',
  'labbot',
]);

// Openers that mark an elliptic follow-up in English and Spanish.
const ELLIPTIC_START =
  /^\s*(?:¿\s*)?(?:and|or|but|what about|how about|same for|also|y|o|pero|qué tal|y para|y en|y con|and for|and with|and in)\b/i;
const MAX_CARRIED = 8;

const WORD = /[\p{L}\p{N}][\p{L}\p{N}\-_.]*[\p{L}\p{N}]|[\p{L}\p{N}]/gu;

function words(text: string): string[] {
  return text.replace(/<@[A-Z0-9]+>/g, ' ').match(WORD) ?? [];
}

/** Gene names, cell lines, catalogue numbers: mixed letters and digits (not "2nd", "10mg"), or inner capitals. */
export function isIdentifier(word: string): boolean {
  return (
    (/\p{L}/u.test(word) && /\p{N}/u.test(word) && !isMeasure(word)) || /^\p{L}+\p{Lu}/u.test(word.slice(1)) || /^\p{Lu}{2,}$/u.test(word)
  );
}

function contentWords(text: string): string[] {
  return words(text).filter((w) => !STOP.has(w.toLowerCase()) && (w.length >= 3 || isIdentifier(w)));
}

/** Short or opening with "and"/"what about"/"y…": it leans on the previous question. */
export function isElliptic(question: string): boolean {
  const content = contentWords(question);
  return ELLIPTIC_START.test(question) || content.length <= 2;
}

/** Salient words of an earlier question: identifiers, capitalised terms and content nouns. */
function salientWords(text: string, opts: { entities: boolean }): string[] {
  const out: string[] = [];
  const all = words(text);
  all.forEach((w, i) => {
    const lower = w.toLowerCase();
    if (STOP.has(lower)) return;
    const entity = isIdentifier(w) || (i > 0 && /^\p{Lu}/u.test(w));
    if (entity && !opts.entities) return;
    if (!entity && w.length < 4) return;
    out.push(w);
  });
  return out;
}

/**
 * Rewrites an elliptic follow-up by appending salient words of the earlier user turns. When the
 * follow-up names its own entity ("and for HEK293?"), the earlier entities are not carried: the
 * new one replaces them, and only the earlier topic words ("passage ratio") come along.
 */
export function rewriteFollowUp(question: string, history: HistoryTurn[]): FollowUpRewrite {
  const unchanged = { question, rewritten: false, carried: [] };
  const users = history.filter((t) => t.role === 'user' && t.text.trim() !== '' && t.text.trim() !== question.trim());
  if (users.length === 0 || !isElliptic(question)) return unchanged;
  const ownEntity =
    words(question).some(isIdentifier) ||
    words(question)
      .slice(1)
      .some((w) => /^\p{Lu}/u.test(w) && !STOP.has(w.toLowerCase()));
  const have = new Set(words(question).map((w) => w.toLowerCase()));
  const carried: string[] = [];
  // Walk back through earlier user turns until one that stood on its own (it holds the topic).
  for (let i = users.length - 1; i >= 0 && carried.length < MAX_CARRIED; i--) {
    for (const w of salientWords(users[i].text, { entities: !ownEntity })) {
      const lower = w.toLowerCase();
      if (have.has(lower) || carried.length >= MAX_CARRIED) continue;
      have.add(lower);
      carried.push(w);
    }
    if (!isElliptic(users[i].text)) break;
  }
  if (carried.length === 0) return unchanged;
  const base = question.trim().replace(/[?¿!.\s]+$/, '');
  return { question: `${base} ${carried.join(' ')}?`, rewritten: true, carried };
}

/** The follow-up as a standalone question: the model's rewrite when there is a model, carry-over otherwise. */
export async function standaloneQuestion(
  deps: { chat: BaseChatModel | undefined; log: Logger },
  question: string,
  history: HistoryTurn[],
): Promise<FollowUpRewrite> {
  const fallback = rewriteFollowUp(question, history);
  const { chat } = deps;
  if (!chat || !history.some((t) => t.role === 'user')) return fallback;
  try {
    const transcript = history.map((t) => `${t.role === 'user' ? 'User' : 'Assistant'}: ${t.text.slice(0, 1500)}`).join('\n');
    const reply = await chat.invoke(
      [
        new SystemMessage(
          'Rewrite the last question of a conversation as one standalone search question, in the same language. ' +
            'Keep names, identifiers and numbers exactly. Reply with the question only.',
        ),
        new HumanMessage(`${transcript}\n\nLast question: ${question}`),
      ],
      { signal: AbortSignal.timeout(15_000) },
    );
    const text = (typeof reply.content === 'string' ? reply.content : reply.content.map((c) => ('text' in c ? c.text : '')).join(''))
      .trim()
      .replace(/^["“]|["”]$/g, '');
    if (!text || text.length > 1000) return fallback;
    return { question: text, rewritten: text !== question, carried: [] };
  } catch (err) {
    deps.log.warn({ err: (err as Error).message }, 'follow-up rewrite by the model failed; using keyword carry-over');
    return fallback;
  }
}
