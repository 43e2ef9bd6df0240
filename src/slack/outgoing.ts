// Everything labbot sends to Slack passes one place: the fetch function Bolt gives both its Web API
// client (chat.*, views.publish, streams, assistant.*) and respond() (response_url posts). Here the
// body's text goes through visibleText, so no control character or invisible formatting character
// is ever posted, whichever handler built the message. Hand-written because neither Bolt nor the
// Web API client has a hook on outgoing payloads other than the transport itself.
import type { webApi } from '@slack/bolt';
import { visibleDeep, visibleText } from '../answer/visible-text.ts';

type FetchFunction = webApi.FetchFunction;
type FetchInit = NonNullable<Parameters<FetchFunction>[1]>;

const contentType = (headers: FetchInit['headers']) =>
  Object.entries(headers ?? {})
    .find(([k]) => k.toLowerCase() === 'content-type')?.[1]
    ?.toLowerCase() ?? '';

/** A JSON-encoded argument inside a form (the Web API client encodes blocks, views, chunks so). */
function visibleValue(value: string): string {
  if (/^\s*[[{]/.test(value)) {
    try {
      return JSON.stringify(visibleDeep(JSON.parse(value) as unknown));
    } catch {
      // Not JSON after all: plain text.
    }
  }
  return visibleText(value);
}

/** The body with every string in it made visible; FormData (file uploads) and unknown types as they are. */
export function visibleBody(body: FetchInit['body'], type: string): FetchInit['body'] {
  if (typeof body !== 'string' || body === '') return body;
  if (type.includes('application/json')) {
    try {
      return JSON.stringify(visibleDeep(JSON.parse(body) as unknown));
    } catch {
      return body;
    }
  }
  if (type.includes('application/x-www-form-urlencoded')) {
    const form = new URLSearchParams(body);
    const out = new URLSearchParams();
    for (const [k, v] of form) out.append(k, visibleValue(v));
    return out.toString();
  }
  return body;
}

/** `base` (global fetch by default) with every outgoing Slack body cleaned by visibleBody. */
export function visibleFetch(base: FetchFunction = globalThis.fetch as unknown as FetchFunction): FetchFunction {
  return (url, init) => base(url, init && { ...init, body: visibleBody(init.body, contentType(init.headers)) });
}
