// Which URLs in an answer may be shown as links: the one rule every output follows (Slack's mrkdwn,
// the CLI, the JSON of /api/ask). A link's text can say anything ("the official lab portal"), so
// only a URL that belongs to a document the answer cites (its own url, its DOI link, a page or
// heading deep link, labbot's signed view of it) may hide behind text. Any other URL, written by a
// model or by a document, is shown as its text followed by the URL's host, never as a link:
// `the official lab portal (evil.example)`.
import type { Citation } from './cite.ts';

/** The URLs an answer may link to. */
export interface LinkPolicy {
  allows(url: string): boolean;
}

/**
 * An http(s) URL the WHATWG parser accepts, with a host and without credentials
 * (`https://slack.com@evil.example` reads as slack.com and goes to evil.example); else undefined.
 */
export function webUrl(raw: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname || url.username || url.password) return undefined;
  return url;
}

/** The host a reader should see for a URL (punycode for international names, so look-alikes show). */
export function hostOf(raw: string): string | undefined {
  return webUrl(raw)?.host;
}

/** A URL without its fragment: two deep links into one document are the same document. */
const withoutFragment = (url: URL) => `${url.origin}${url.pathname}${url.search}`;

/** Links to the cited documents only (and to extra URLs labbot made for them, e.g. its document view). */
export function citedLinks(citations: readonly Pick<Citation, 'url' | 'link'>[], extra: readonly string[] = []): LinkPolicy {
  const known = new Set<string>();
  for (const raw of [...citations.flatMap((c) => [c.url, c.link]), ...extra]) {
    const url = raw ? webUrl(raw) : undefined;
    if (url) known.add(withoutFragment(url));
  }
  return {
    allows(raw) {
      const url = webUrl(raw);
      return url !== undefined && known.has(withoutFragment(url));
    },
  };
}

/** No URL may be a link (refusals, notices, text labbot cannot tie to a cited document). */
export const NO_LINKS: LinkPolicy = { allows: () => false };

export type LinkDecision =
  /** Shown as a link: `text` is what the reader sees, `url` where it goes (a cited document). */
  | { kind: 'link'; url: string; text: string }
  /** Shown as text: the link text, then the host in parentheses when the URL has one. */
  | { kind: 'text'; text: string; host: string | undefined };

/**
 * What a Markdown link `[text](url)` (or an autolink, whose text is its URL) becomes. The caller
 * renders the decision in its own syntax; `text` is returned as given (already escaped or not).
 */
export function decideLink(url: string, text: string, policy: LinkPolicy): LinkDecision {
  if (policy.allows(url)) return { kind: 'link', url: webUrl(url)!.href, text };
  const host = hostOf(url);
  // A URL written as its own text already shows where it goes.
  const same =
    text.trim() === url.trim() ||
    (host !== undefined &&
      text
        .trim()
        .replace(/^https?:\/\//, '')
        .replace(/\/$/, '') === host);
  return { kind: 'text', text, host: same ? undefined : host };
}

/** A text decision in plain words: `the official lab portal (evil.example)`. */
export function textWithHost(d: Extract<LinkDecision, { kind: 'text' }>): string {
  return d.host ? `${d.text} (${d.host})` : d.text;
}

// Markdown inline links and images, `[text](url "title")`, and autolinks `<https://…>`.
const MD_LINK = /!?\[([^\]\n]+)\]\(((?:[^\s()]|\([^\s()]*\))+)(?:\s+"[^"]*")?\)/g;
const AUTOLINK = /<(https?:\/\/[^\s<>|]+)>/g;

/**
 * Markdown whose links follow the rule: links to cited documents stay Markdown links, every other
 * one becomes its text and host. For outputs that hand Markdown on (the CLI, the JSON answer),
 * where a client may render it. Code spans and fences are left as they are (nothing links there).
 */
export function markdownWithSafeLinks(markdown: string, policy: LinkPolicy): string {
  const render = (url: string, text: string, autolink: boolean) => {
    const d = decideLink(url, text, policy);
    if (d.kind === 'link') return autolink ? `<${d.url}>` : `[${d.text}](${d.url})`;
    return textWithHost(d);
  };
  let inFence = false;
  return markdown
    .split('\n')
    .map((line) => {
      if (/^\s*```/.test(line)) {
        inFence = !inFence;
        return line;
      }
      if (inFence) return line;
      // Code spans are kept aside so a link written inside backticks stays literal code.
      const spans: string[] = [];
      const kept = line.replace(/\u0000/g, '').replace(/`[^`\n]+`/g, (m) => `\u0000${spans.push(m) - 1}\u0000`);
      const out = kept
        .replace(MD_LINK, (_m, t: string, u: string) => render(u, t, false))
        .replace(AUTOLINK, (_m, u: string) => render(u, u, true));
      return out.replace(/\u0000(\d+)\u0000/g, (_m, i: string) => spans[Number(i)]);
    })
    .join('\n');
}
