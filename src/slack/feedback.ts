// 👍/👎 under an answer: the button value is the question record id; the vote is stored with it.
import type { RespondFn } from '@slack/bolt';
import { detectLanguage } from '../search/tokenize.ts';
import type { Vote } from '../store/activity.ts';
import { noticeMessage } from './format.ts';
import { slackText } from './messages.ts';
import type { HandlerDeps } from './types.ts';

export async function handleFeedback(
  deps: HandlerDeps,
  vote: Vote,
  recordId: string,
  user: string,
  respond: RespondFn | undefined,
): Promise<boolean> {
  let ok = false;
  let lang: 'en' | 'es' = 'en';
  try {
    ok = await deps.activity.recordFeedback(recordId, vote, user);
    if (ok) lang = detectLanguage((await deps.activity.get(recordId))?.question ?? '');
  } catch (err) {
    deps.log.error({ err: (err as Error).message, recordId }, 'could not store feedback');
  }
  if (respond) {
    const msg = noticeMessage(ok ? slackText(lang).thanks : slackText(lang).feedbackUnknown);
    // replace_original false: the answer and its buttons stay; only the voter sees the thanks.
    await respond({ response_type: 'ephemeral', replace_original: false, text: msg.text }).catch((err: Error) =>
      deps.log.warn({ err: err.message }, 'feedback acknowledgement failed'),
    );
  }
  return ok;
}
