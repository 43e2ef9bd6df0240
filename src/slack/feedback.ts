// 👍/👎 under an answer: the question's record id travels with the click; the vote is stored with
// it (the dashboard reads it from there). Answers in conversations carry Slack's native feedback
// buttons (one action, value `up:<id>` or `down:<id>`); private and shared answers, and answers
// posted before, carry classic buttons (one action id per vote, value `<id>`).
import type { RespondFn } from '@slack/bolt';
import { detectLanguage } from '../search/tokenize.ts';
import type { Vote } from '../store/activity.ts';
import { noticeMessage } from './format.ts';
import { slackStrings } from './strings.ts';
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
    const msg = noticeMessage(ok ? slackStrings(lang).thanks : slackStrings(lang).feedbackUnknown);
    // replace_original false: the answer and its buttons stay; only the voter sees the thanks.
    await respond({ response_type: 'ephemeral', replace_original: false, text: msg.text }).catch((err: Error) =>
      deps.log.warn({ err: err.message }, 'feedback acknowledgement failed'),
    );
  }
  return ok;
}

/** The vote and record id of a native feedback_buttons click; undefined for a value labbot never sent. */
export function parseFeedbackValue(value: string): { vote: Vote; recordId: string } | undefined {
  const m = /^(up|down):(.+)$/.exec(value);
  return m ? { vote: m[1] as Vote, recordId: m[2] } : undefined;
}
