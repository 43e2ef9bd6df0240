// Slack message text -> plain text, the way a person reads it. Slack escapes &, < and > and encodes
// links and mentions as <…> tokens (<https://x|label>, <#C123|name>, <@U123>, <!here>); searched or
// recorded as they come, "&amp;", "lt", "https", "c0123" and "u999" become search terms. Pure:
// user names come from a resolver passed in (no Slack call here). Hand-written: Bolt and the Web
// API client send and receive this format but ship no decoder for it.

/** A user id -> display name lookup the caller already has (user-names.ts); undefined when unknown. Names are plain text. */
export type UserNames = (userId: string) => string | undefined;

const ENTITY: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&amp;': '&' };

/** Decodes the three entities Slack escapes, in one pass so "&amp;lt;" stays "&lt;". */
function decodeEntities(text: string): string {
  return text.replace(/&(?:lt|gt|amp);/g, (e) => ENTITY[e]);
}

/** The plain text of one <…> token. Parts Slack sent are decoded here; a resolved name is already plain. */
function token(inner: string, names: UserNames | undefined): string {
  const bar = inner.indexOf('|');
  const target = decodeEntities(bar === -1 ? inner : inner.slice(0, bar));
  const label = bar === -1 ? '' : decodeEntities(inner.slice(bar + 1)).trim();
  if (target.startsWith('@')) {
    // Never the raw id: "u999" is no search term and no name a reader knows.
    const name = names?.(target.slice(1)) ?? label.replace(/^@/, '');
    return `@${name || 'user'}`;
  }
  if (target.startsWith('#')) return `#${label.replace(/^#/, '') || 'channel'}`;
  if (target.startsWith('!')) {
    const special = /^!(here|channel|everyone)\b/.exec(target);
    if (special) return `@${special[1]}`;
    if (target.startsWith('!subteam^')) return label ? `@${label.replace(/^@/, '')}` : '@group';
    return label; // <!date^…|fallback> and other commands: their fallback text
  }
  const url = target.replace(/^mailto:/, '');
  if (!label || label === target || label === url) return url;
  return `${label} (${url})`;
}

/**
 * Plain text of a Slack message: entities decoded, `<https://x|label>` -> "label (https://x)",
 * `<#C123|name>` -> "#name", `<@U123>` -> "@name" from `names` (or its label), else "@user".
 */
export function slackToPlain(text: string, names?: UserNames): string {
  return text
    .split(/(<[^<>\n]*>)/)
    .map((part) => (part.startsWith('<') && part.endsWith('>') ? token(part.slice(1, -1), names) : decodeEntities(part)))
    .join('');
}
