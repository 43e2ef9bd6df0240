// Block Kit and message limits as Slack enforces them: a bot that breaks one gets the same
// ok:false Slack sends (invalid_blocks, msg_blocks_too_long, msg_too_long).
import { str, type Body } from './args.ts';

const LIMITS = {
  blocks: 50,
  sectionText: 3000,
  contextElements: 10,
  actionElements: 25,
  buttonText: 75,
  buttonValue: 2000,
  // chat.postMessage's docs still say "truncated beyond 40,000", but Slack now answers msg_too_long
  // for `text` past about 4,000 characters (its docs: "limit text to 4,000"; slackapi maintainers
  // confirm msg_too_long at ~4K in seratch/ChatGPT-in-Slack#102).
  text: 4_000,
  // All text in one message's blocks together; past it chat.postMessage answers msg_blocks_too_long
  // whatever the per-block limits allow (slackapi/bolt-js#2509, #2867; the markdown block documents
  // the same 12,000 as a cumulative limit).
  blocksText: 12_000,
};

/** Characters of text in blocks, summed over every `text` string at any depth (as Slack counts it). */
export function blocksTextLength(blocks: unknown): number {
  if (Array.isArray(blocks)) return blocks.reduce((n: number, b) => n + blocksTextLength(b), 0);
  if (!blocks || typeof blocks !== 'object') return 0;
  let n = 0;
  for (const [k, v] of Object.entries(blocks as Record<string, unknown>))
    n += k === 'text' && typeof v === 'string' ? v.length : blocksTextLength(v);
  return n;
}

/** What Slack answers for a message payload (chat.postMessage/update/postEphemeral), or undefined when it accepts it. */
export function validateMessage(body: Body): string | undefined {
  const bad = validateBlocks(body.blocks);
  if (bad) return bad;
  if (blocksTextLength(body.blocks) > LIMITS.blocksText) return 'msg_blocks_too_long';
  if (typeof body.text === 'string' && body.text.length > LIMITS.text) return 'msg_too_long';
  return undefined;
}

/** Returns an error string when blocks break a Block Kit limit Slack enforces, else undefined. */
export function validateBlocks(blocks: unknown): string | undefined {
  if (blocks === undefined) return undefined;
  if (!Array.isArray(blocks)) return 'invalid_blocks_format';
  if (blocks.length > LIMITS.blocks) return 'invalid_blocks';
  const badIds = validateBlockIds(blocks);
  if (badIds) return badIds;
  for (const b of blocks as Record<string, unknown>[]) {
    const type = b.type;
    if (type === 'section') {
      const text = (b.text as { text?: unknown } | undefined)?.text;
      if (typeof text !== 'string' || text.length === 0 || text.length > LIMITS.sectionText) return 'invalid_blocks';
      if (!validTextObject(b.text)) return 'invalid_blocks';
    } else if (type === 'rich_text') {
      if (!validRichText(b)) return 'invalid_blocks';
    } else if (type === 'context') {
      const els = b.elements as unknown[];
      if (!Array.isArray(els) || els.length === 0 || els.length > LIMITS.contextElements) return 'invalid_blocks';
    } else if (type === 'actions') {
      const els = b.elements as { text?: { text?: string }; value?: string; action_id?: string }[];
      if (!Array.isArray(els) || els.length === 0 || els.length > LIMITS.actionElements) return 'invalid_blocks';
      for (const e of els) {
        if ((e.text?.text ?? '').length > LIMITS.buttonText || (e.value ?? '').length > LIMITS.buttonValue || !e.action_id)
          return 'invalid_blocks';
      }
    } else if (type === 'context_actions') {
      if (contextActionsError(b)) return 'invalid_blocks';
    } else if (type !== 'divider' && type !== 'header') return 'invalid_blocks';
  }
  return undefined;
}

const BLOCK_ID_MAX = 255;

/** block_id: at most 255 characters and unique within one message or view (Slack: invalid_blocks). */
function validateBlockIds(blocks: unknown[]): string | undefined {
  const seen = new Set<string>();
  for (const b of blocks as { block_id?: unknown }[]) {
    if (b?.block_id === undefined) continue;
    if (typeof b.block_id !== 'string' || b.block_id.length === 0 || b.block_id.length > BLOCK_ID_MAX || seen.has(b.block_id))
      return 'invalid_blocks';
    seen.add(b.block_id);
  }
  return undefined;
}

/** A text object: mrkdwn or plain_text; `verbatim` only on mrkdwn and a boolean, `emoji` only on plain_text. */
function validTextObject(t: unknown): boolean {
  const o = t as { type?: unknown; text?: unknown; verbatim?: unknown; emoji?: unknown };
  if (!o || typeof o.text !== 'string') return false;
  if (o.type === 'mrkdwn') return o.emoji === undefined && (o.verbatim === undefined || typeof o.verbatim === 'boolean');
  if (o.type === 'plain_text') return o.verbatim === undefined && (o.emoji === undefined || typeof o.emoji === 'boolean');
  return false;
}

const RICH_ELEMENTS = new Set(['text', 'link', 'emoji', 'user', 'usergroup', 'channel', 'broadcast', 'date', 'color', 'team']);
const RICH_STYLES = new Set(['bold', 'italic', 'strike', 'code', 'underline']);

function validRichElement(e: Record<string, unknown>): boolean {
  if (!RICH_ELEMENTS.has(String(e.type))) return false;
  if (e.style !== undefined) {
    if (typeof e.style !== 'object' || e.style === null) return false;
    for (const [k, v] of Object.entries(e.style)) if (!RICH_STYLES.has(k) || typeof v !== 'boolean') return false;
  }
  if (e.type === 'text') return typeof e.text === 'string' && e.text.length > 0;
  if (e.type === 'link') return typeof e.url === 'string' && e.url.length > 0 && (e.text === undefined || typeof e.text === 'string');
  return true;
}

/** rich_text: sections, lists, quotes and preformatted blocks of the elements Slack documents. */
function validRichText(b: Record<string, unknown>): boolean {
  const els = b.elements as Record<string, unknown>[] | undefined;
  if (!Array.isArray(els) || els.length === 0) return false;
  for (const el of els) {
    const inner = el.elements as Record<string, unknown>[] | undefined;
    if (!Array.isArray(inner) || inner.length === 0) return false;
    if (el.border !== undefined && el.border !== 0 && el.border !== 1) return false;
    if (el.type === 'rich_text_list') {
      if (el.style !== 'bullet' && el.style !== 'ordered') return false;
      if (!inner.every((i) => i.type === 'rich_text_section' && validRichText({ elements: [i] }))) return false;
    } else if (el.type === 'rich_text_section' || el.type === 'rich_text_quote') {
      if (!inner.every(validRichElement)) return false;
    } else if (el.type === 'rich_text_preformatted') {
      if (!inner.every((i) => (i.type === 'text' || i.type === 'link') && validRichElement(i))) return false;
    } else return false;
  }
  return true;
}

const CONTEXT_ACTIONS_MAX = 5;
const plain = (t: unknown, max: number) => {
  const o = t as { type?: unknown; text?: unknown } | undefined;
  return o?.type === 'plain_text' && typeof o.text === 'string' && o.text.length > 0 && o.text.length <= max;
};

/** Why a context_actions block is refused (feedback_buttons / icon_button elements, docs.slack.dev), or undefined. */
function contextActionsError(b: Record<string, unknown>): string | undefined {
  const els = b.elements as Record<string, unknown>[] | undefined;
  if (!Array.isArray(els) || els.length === 0 || els.length > CONTEXT_ACTIONS_MAX) return 'elements';
  if (b.block_id !== undefined && (typeof b.block_id !== 'string' || b.block_id.length > BLOCK_ID_MAX)) return 'block_id';
  for (const e of els) {
    if (e.action_id !== undefined && (typeof e.action_id !== 'string' || e.action_id.length > BLOCK_ID_MAX)) return 'action_id';
    if (e.type === 'feedback_buttons') {
      for (const side of ['positive_button', 'negative_button']) {
        const btn = e[side] as { text?: unknown; value?: unknown; accessibility_label?: unknown } | undefined;
        if (!btn || !plain(btn.text, LIMITS.buttonText)) return side;
        if (typeof btn.value !== 'string' || btn.value.length === 0 || btn.value.length > LIMITS.buttonValue) return `${side}.value`;
        if (
          btn.accessibility_label !== undefined &&
          (typeof btn.accessibility_label !== 'string' || btn.accessibility_label.length > LIMITS.buttonText)
        )
          return `${side}.accessibility_label`;
      }
    } else if (e.type === 'icon_button') {
      if (!str(e.icon) || !plain(e.text, LIMITS.buttonText)) return 'icon_button';
    } else return `element ${String(e.type)}`;
  }
  return undefined;
}
