// The App Home tab (app_home_opened -> views.publish): how to ask, what the index holds, and the
// user's own recent questions. Built from values (pure), published by the bot.
import type { QuestionRecord } from '../store/activity.ts';
import { escapeMrkdwn, type Block } from './format.ts';
import { slackText } from './messages.ts';

export interface HomeView {
  type: 'home';
  blocks: (Block | { type: 'header'; text: { type: 'plain_text'; text: string; emoji?: boolean } })[];
}

/** Recent questions shown: enough to find one again, few enough to read at a glance. */
export const HOME_RECENT = 5;
const QUESTION_CHARS = 200;

function clip(text: string, max: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

export function homeView(opts: { indexStatus: string; recent: QuestionRecord[] }): HomeView {
  const help = slackText('en').help;
  const recent = opts.recent.slice(0, HOME_RECENT);
  const recentText = recent.length
    ? recent.map((r) => `• ${escapeMrkdwn(clip(r.question, QUESTION_CHARS))} _(${escapeMrkdwn(r.ts.slice(0, 16).replace('T', ' '))} UTC)_`).join('\n')
    : '_No questions yet. Ask one in a channel with @labbot, here in Messages, or with `/labbot ask`._';
  return {
    type: 'home',
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: 'labbot', emoji: true } },
      { type: 'section', text: { type: 'mrkdwn', text: help } },
      { type: 'divider' },
      { type: 'section', text: { type: 'mrkdwn', text: `*What the index holds*\n${opts.indexStatus}`.slice(0, 3000) } },
      { type: 'divider' },
      { type: 'section', text: { type: 'mrkdwn', text: `*Your recent questions*\n${recentText}` } },
    ],
  };
}
