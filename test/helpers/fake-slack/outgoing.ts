// What labbot sends, checked as Slack would render it: mention tokens (a ping Slack would send),
// masked links to URLs no test allowed as a cited document's, and control or invisible formatting
// characters. Each is recorded where it was sent; assertClean() fails a suite that left any.
import type { Body } from './args.ts';

export interface StrayMention {
  method: string;
  token: string;
}

export interface StrayLink {
  method: string;
  url: string;
  text: string;
}

export interface StrayInvisible {
  method: string;
  /** The offending characters as code points, and where they were. */
  chars: string[];
  sample: string;
}

// Tokens Slack turns into a ping or a channel/user link when it renders mrkdwn or `text`.
const MENTION = /<(?:!(?:here|channel|everyone)\b[^>]*|!subteam\^[^>]*|@[UW][A-Z0-9]*[^>]*|#C[A-Z0-9]*[^>]*)>/g;

/** Every mention token in the texts of a payload (fallback text, blocks, views, streamed markdown). */
export function findMentions(body: unknown): string[] {
  if (Array.isArray(body)) return body.flatMap(findMentions);
  if (!body || typeof body !== 'object') return [];
  const out: string[] = richTextMention(body as Record<string, unknown>);
  // A rich-text `text` element is shown as written: Slack pings only through user/broadcast elements.
  const literal = (body as { type?: unknown }).type === 'text';
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
    if ((k === 'text' || k === 'markdown_text') && typeof v === 'string')
      out.push(...(literal && k === 'text' ? [] : (v.match(MENTION) ?? [])));
    else if (typeof v === 'object') out.push(...findMentions(v));
  }
  return out;
}

/** Rich-text elements that ping or link a person, group or channel, as the mention token they stand for. */
function richTextMention(o: Record<string, unknown>): string[] {
  if (o.type === 'user' && typeof o.user_id === 'string') return [`<@${o.user_id}>`];
  if (o.type === 'usergroup' && typeof o.usergroup_id === 'string') return [`<!subteam^${o.usergroup_id}>`];
  if (o.type === 'broadcast' && typeof o.range === 'string') return [`<!${o.range}>`];
  if (o.type === 'channel' && typeof o.channel_id === 'string') return [`<#${o.channel_id}>`];
  return [];
}

/** Masked links in a payload: mrkdwn `<url|text>`, rich-text links with text, Markdown `[text](url)` in streamed markdown. */
function findMaskedLinks(body: unknown): { url: string; text: string }[] {
  if (Array.isArray(body)) return body.flatMap(findMaskedLinks);
  if (!body || typeof body !== 'object') return [];
  const o = body as Record<string, unknown>;
  const out: { url: string; text: string }[] = [];
  if (o.type === 'link' && typeof o.url === 'string' && typeof o.text === 'string' && o.text !== o.url)
    out.push({ url: o.url, text: o.text });
  for (const [k, v] of Object.entries(o)) {
    // Rich-text `text` elements are shown as written (no mrkdwn); stream chunks' text is Markdown.
    const markdown = k === 'markdown_text' || (k === 'text' && o.type === 'markdown_text');
    if (k === 'text' && typeof v === 'string' && o.type !== 'text' && !markdown) {
      for (const m of v.matchAll(/<(https?:\/\/[^|>\s]+)\|([^>]*)>/g)) out.push({ url: m[1], text: m[2] });
    } else if (markdown && typeof v === 'string') {
      // A backslash-escaped bracket is literal in Slack's markdown; only an unescaped [..](..) links.
      for (const m of v.matchAll(/(?<!\\)\[((?:\\.|[^\]\\])*)(?<!\\)\]\((https?:\/\/[^)\s]+)\)/g)) out.push({ url: m[2], text: m[1] });
    } else if (typeof v === 'object') out.push(...findMaskedLinks(v));
  }
  return out;
}

// Controls except tab and line feed; format characters except ZWNJ/ZWJ (scripts and emoji need them).
const INVISIBLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]|(?![\u200c\u200d])\p{Cf}/gu;

function invisibleIn(body: unknown, out: Set<string>, samples: string[]): void {
  if (typeof body === 'string') {
    const found = body.match(INVISIBLE);
    if (found) {
      for (const c of found) out.add(`U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`);
      if (samples.length < 3) samples.push(JSON.stringify(body.slice(0, 120)));
    }
  } else if (Array.isArray(body)) for (const v of body) invisibleIn(v, out, samples);
  else if (body && typeof body === 'object') for (const [k, v] of Object.entries(body)) invisibleIn([k, v], out, samples);
}

/** A URL as Slack would store it, without its fragment: deep links into one document are one document. */
const withoutFragment = (u: string) => {
  let href = u;
  try {
    href = new URL(u).href;
  } catch {
    // compared as written
  }
  return href.replace(/#.*$/, '').replace(/[<>| ]/g, (c) => encodeURIComponent(c));
};

type LinkRule = string | RegExp | (() => (string | RegExp)[]);

export function createOutgoingChecks() {
  const allowedMentions: (string | RegExp)[] = [];
  const allowedLinks: LinkRule[] = [];
  const strayMentions: StrayMention[] = [];
  const strayLinks: StrayLink[] = [];
  const strayInvisible: StrayInvisible[] = [];
  const isAllowed = (url: string) =>
    allowedLinks
      .flatMap((a) => (typeof a === 'function' ? a() : [a]))
      .some((a) => (typeof a === 'string' ? withoutFragment(a) === withoutFragment(url) : a.test(url)));
  const checkMentions = (method: string, body: Body) => {
    for (const token of findMentions(body)) {
      if (!allowedMentions.some((a) => (typeof a === 'string' ? a === token : a.test(token)))) strayMentions.push({ method, token });
    }
  };
  return {
    strayMentions,
    strayLinks,
    strayInvisible,
    allowMentions(...tokens: (string | RegExp)[]) {
      allowedMentions.push(...tokens);
    },
    allowLinks(...urls: LinkRule[]) {
      allowedLinks.push(...urls);
    },
    /** A slash command's acknowledgement (the bot's HTTP response, recorded by the test): checked for mentions only. */
    checkMentions,
    /** Anything else labbot sends: Web API calls and response_url posts. */
    check(method: string, body: Body) {
      checkMentions(method, body);
      for (const l of findMaskedLinks(body)) if (!isAllowed(l.url)) strayLinks.push({ method, ...l });
      const chars = new Set<string>();
      const samples: string[] = [];
      invisibleIn(body, chars, samples);
      if (chars.size) strayInvisible.push({ method, chars: [...chars], sample: samples.join(' ') });
    },
    assertClean() {
      // Slack would have pinged people: fail the suite that let it happen, naming what was posted.
      if (strayMentions.length) {
        const list = strayMentions
          .slice(0, 10)
          .map((m) => `${m.method}: ${m.token}`)
          .join('; ');
        throw new Error(`fake Slack: labbot posted ${strayMentions.length} mention token(s) no test allowed: ${list}`);
      }
      if (strayLinks.length) {
        const list = strayLinks
          .slice(0, 5)
          .map((l) => `${l.method}: <${l.url}|${l.text}>`)
          .join('; ');
        throw new Error(
          `fake Slack: labbot posted ${strayLinks.length} masked link(s) to URLs no test allowed as a cited document's: ${list}`,
        );
      }
      if (strayInvisible.length) {
        const list = strayInvisible
          .slice(0, 5)
          .map((x) => `${x.method}: ${x.chars.join(',')} in ${x.sample}`)
          .join('; ');
        throw new Error(`fake Slack: labbot posted control or invisible characters: ${list}`);
      }
    },
  };
}
