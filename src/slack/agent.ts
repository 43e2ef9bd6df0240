// Slack's agent experience. New apps use `features.agent_view`: the conversation with labbot is
// its DM (the Messages tab); opening it sends app_home_opened with tab "messages", moving around
// Slack while it is open sends app_context_changed, and suggested prompts are set for the DM
// without a thread_ts (Slack silently ignores prompts with one there). Apps installed with the
// legacy `assistant_view` pane keep working: assistant_thread_started sets the prompts for that
// thread, and marks the workspace as using the pane, so the Messages tab is left alone there.
import type { App as BoltApp, webApi } from '@slack/bolt';
import type { Redis } from 'ioredis';
import type { QuestionRunner } from './conversation.ts';
import { promptsFor, publishHome } from './surfaces.ts';
import type { HandlerDeps } from './types.ts';

/** Prompts are refreshed on a context change at most this often per user. */
const CONTEXT_REFRESH_SECONDS = 600;
/** A workspace that sent assistant_thread_started within this time is using the legacy pane. */
const LEGACY_PANE_SECONDS = 30 * 24 * 3600;

export function registerAgentSurfaces(bolt: BoltApp, deps: HandlerDeps, runner: QuestionRunner, redis: Redis, prefix: string): void {
  const { log } = deps;
  const legacyKey = (team: string) => `${prefix}slack:legacy-pane:${team}`;
  const setPrompts = async (client: webApi.WebClient, user: string, channel: string, threadTs?: string) => {
    const prompts = promptsFor(deps, user);
    if (prompts.length === 0) return;
    try {
      await client.assistant.threads.setSuggestedPrompts({ channel_id: channel, prompts, ...(threadTs ? { thread_ts: threadTs } : {}) });
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'could not set suggested prompts');
    }
  };

  // Legacy pane: a new assistant thread gets the prompts for that thread.
  bolt.event('assistant_thread_started', async ({ event, body, client }) => {
    const t = event.assistant_thread;
    await redis.set(legacyKey(body.team_id), '1', 'EX', LEGACY_PANE_SECONDS).catch(() => undefined);
    await setPrompts(client, t.user_id, t.channel_id, t.thread_ts);
  });

  bolt.event('app_home_opened', async ({ event, body, client }) => {
    if (event.tab === 'home') {
      await runner.track(publishHome(client, deps, event.user));
      return;
    }
    // The agent view's conversation opened (the Messages tab): prompts for the DM itself.
    if (event.tab !== 'messages' || !event.channel) return;
    if ((await redis.exists(legacyKey(body.team_id)).catch(() => 0)) === 1) return;
    await setPrompts(client, event.user, event.channel);
  });

  // The user moved around Slack with labbot's conversation open: keep its prompts there.
  bolt.event('app_context_changed', async ({ event, client }) => {
    const e = event as { user?: string; channel?: string };
    if (!e.user || !e.channel?.startsWith('D')) return;
    const fresh = await redis.set(`${prefix}slack:prompts:${e.user}`, '1', 'EX', CONTEXT_REFRESH_SECONDS, 'NX').catch(() => 'OK');
    if (fresh === 'OK') await setPrompts(client, e.user, e.channel);
  });
}
