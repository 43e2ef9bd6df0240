// Edited and deleted questions (message_changed / message_deleted, on the same message.*
// subscriptions as the questions). An answered question that is edited is answered again, the new
// answer replacing the old one in place; a deleted question takes its answer with it. While the
// question is still being answered, the change is noted (answer-map.ts) and applied when the answer
// is posted. An edit that adds a mention of labbot, or turns a reply into a follow-up labbot would
// answer, is answered like a new message.
import type { App as BoltApp } from '@slack/bolt';
import type { QuestionRunner } from './conversation.ts';
import { deleteAnswer } from './conversation.ts';
import { untaggedReplyIsForLabbot } from './etiquette.ts';
import type { AskedQuestion } from './answer-question.ts';
import { routeChange, type MessageChangeFields } from './event-routing.ts';
import type { HandlerDeps } from './types.ts';

export function registerEditHandlers(
  bolt: BoltApp,
  deps: HandlerDeps,
  runner: QuestionRunner,
  envelopeShared: (body: unknown) => unknown,
): void {
  const { log } = deps;
  bolt.event('message', async ({ event, body, client, context }) => {
    const e = event as unknown as MessageChangeFields;
    const change = routeChange(e, context.botUserId);
    if (change.kind === 'ignore') return;
    if (!(await deps.dedupe.claim(body.event_id))) return;

    if (change.kind === 'deleted') {
      if (await deps.answers.pending(e.channel, change.ts)) return deps.answers.note(e.channel, change.ts, { deleted: true });
      const known = await deps.answers.get(e.channel, change.ts);
      if (known) {
        log.info({ channel: e.channel, ts: change.ts }, 'question deleted: its answer goes too');
        await runner.track(deleteAnswer(client, deps, e.channel, change.ts, known.answerTs));
      }
      return;
    }

    if (await deps.answers.pending(e.channel, change.ts)) return deps.answers.note(e.channel, change.ts, { editedText: change.text });
    const known = await deps.answers.get(e.channel, change.ts);
    const mentionsBot = context.botUserId !== undefined && new RegExp(`<@${context.botUserId}(?:\\|[^>]*)?>`).test(change.text);
    if (!known) {
      // Not answered before: answered now only if the edit made it a question for labbot in a channel.
      if (change.dm) return;
      const forLabbot =
        mentionsBot ||
        (change.threadTs !== undefined &&
          (await untaggedReplyIsForLabbot(
            deps,
            { channel: e.channel, threadTs: change.threadTs, user: change.user, text: change.text, ts: change.ts },
            context.botUserId,
          )));
      if (!forLabbot || !(await deps.dedupe.claimMessage(e.channel, change.ts))) return;
    }
    const q: AskedQuestion = {
      eventId: body.event_id,
      channel: e.channel,
      threadTs: known?.threadTs ?? change.threadTs ?? change.ts,
      inThread: change.threadTs !== undefined,
      eventTs: change.ts,
      user: change.user,
      text: change.text,
      botUserId: context.botUserId,
      source: change.dm ? 'dm' : 'slack',
      team: body.team_id,
      ...(known ? { replaceTs: known.answerTs } : {}),
    };
    if (known) log.info({ channel: e.channel, ts: change.ts }, 'question edited: answering it again in place');
    await runner.ask(client, q, { envelopeShared: envelopeShared(body) });
  });
}
