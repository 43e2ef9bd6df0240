// How an ask outcome that is not an answer reads over HTTP (POST /api/ask and the dashboard's ask).
import type { AskOutcome } from '../ask.ts';

/** `channel` is the one the caller asked as, named back in the error when the config has none of that name. */
export function httpFailure(outcome: AskOutcome, channel?: string): { status: number; error: string } | undefined {
  switch (outcome.kind) {
    case 'answered':
      return undefined;
    case 'empty-question':
      return { status: 400, error: 'question must not be empty' };
    case 'empty-index':
      return { status: 409, error: 'the index is empty: nothing has been ingested yet (labbot ingest)' };
    case 'unavailable':
      return { status: 503, error: 'The index is unavailable right now; try again shortly.' };
    case 'failed':
      return { status: 500, error: 'Something went wrong answering this question.' };
    case 'refused':
      switch (outcome.reason) {
        case 'channel-needs-admin':
          return {
            status: 403,
            error:
              'asking as a channel needs the admin token (Authorization: Bearer <LABBOT_ADMIN_TOKEN>, or ' +
              'the token `labbot serve` printed at start-up when none is set); without it only public ' +
              'documents are searched',
          };
        case 'unknown-channel':
          return { status: 400, error: `unknown channel ${JSON.stringify(channel ?? '')}: it is not one of access.channels in the config` };
        default:
          return { status: 403, error: 'this conversation is shared with another organisation' };
      }
  }
}
