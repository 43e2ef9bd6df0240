// A Web API call's arguments as the fake reads them, and the shape of a method's answer.

/** A call's arguments (form fields or a JSON body) or a response_url post. */
export type Body = Record<string, unknown>;

/** A Web API method: its arguments in, Slack's JSON answer out ({ ok: false, error } when refused). */
export type Method = (body: Body) => Record<string, unknown>;

export const str = (v: unknown): boolean => typeof v === 'string' && v.length > 0;

/** A structured argument the WebClient may have sent JSON-encoded inside a form. */
export const jsonArg = (v: unknown): unknown => (typeof v === 'string' && /^[[{]/.test(v) ? JSON.parse(v) : v);

export const refuse = (error: string) => ({ ok: false, error });
