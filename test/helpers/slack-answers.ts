// Reading labbot's answers off the fake Slack: the message that answers (a post, or a stream's
// final message), the question record id its feedback buttons carry, and a thread as posted.
import type { FakeMessage, FakeSlack, SlackCall } from './fake-slack.ts';

type AnyBlock = { type: string; elements?: { type?: string; value?: string; action_id?: string; positive_button?: { value?: string } }[] };

/** The record id under an answer: Slack's native feedback buttons (`up:<id>`) or classic buttons (`<id>`). */
export function feedbackRecordId(blocks: unknown): string | undefined {
  for (const b of (blocks as AnyBlock[] | undefined) ?? []) {
    if (b.type === 'context_actions') {
      const v = b.elements?.find((e) => e.type === 'feedback_buttons')?.positive_button?.value;
      if (v?.startsWith('up:')) return v.slice(3);
    }
    if (b.type === 'actions') {
      const e = b.elements?.find((x) => x.action_id === 'labbot_feedback_up');
      if (e?.value) return e.value;
    }
  }
  return undefined;
}

export const recordIdOf = (c: SlackCall) => feedbackRecordId(c.body.blocks);

/** labbot's n-th chat.postMessage in a channel (answers are posted, not edited into a placeholder). */
export function postIn(fake: FakeSlack, channel: string, n = 0): SlackCall | undefined {
  return fake.callsOf('chat.postMessage').filter((c) => c.body.channel === channel)[n];
}

/** Waits for labbot's n-th post in a channel. */
export function waitForPost(fake: FakeSlack, channel: string, n = 0, timeoutMs?: number): Promise<SlackCall> {
  return fake.waitFor(() => postIn(fake, channel, n), timeoutMs);
}

/** Every text a message shows (fallback, sections, context), from the fake's current state of it. */
export function shownTextOf(m: Pick<FakeMessage, 'text' | 'blocks'>): string {
  const parts: string[] = [];
  for (const b of (m.blocks as { type: string; text?: { text?: string }; elements?: { text?: string }[] }[] | undefined) ?? []) {
    if (b.type === 'section' && b.text?.text) parts.push(b.text.text);
    if (b.type === 'context') for (const e of b.elements ?? []) if (e.text) parts.push(`_${e.text}_`);
  }
  return parts.length ? parts.join('\n') : (m.text ?? '');
}

/** Waits for the message in a channel that carries the answer's feedback (a post, a streamed answer's stopStream, or the checked answer replacing a stream). */
export function waitForAnswerWithRecord(fake: FakeSlack, channel: string, timeoutMs?: number): Promise<SlackCall> {
  const methods = ['chat.postMessage', 'chat.stopStream', 'chat.update'];
  return fake.waitFor(
    () => fake.calls.find((c) => c.body.channel === channel && methods.includes(c.method) && feedbackRecordId(c.body.blocks)),
    timeoutMs,
  );
}
