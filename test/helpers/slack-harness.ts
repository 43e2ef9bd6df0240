// One Slack integration set-up: the fake Slack, a Labbot (shared test Chroma, real Redis) whose Slack
// points at the fake, its first source indexed, and the bot; closed in reverse order.
import { citationLink } from '../../src/answer/cite.ts';
import type { Labbot } from '../../src/app.ts';
import type { IngestSummary } from '../../src/ingest/pipeline.ts';
import { openTestApp } from './app.ts';
import { chatEnv, startFakeOpenAI, type FakeOpenAI } from './fake-openai.ts';
import { startFakeSlack, type FakeSlack } from './fake-slack.ts';
import { slackEnv, startTestBot, type RunningBot } from './slack-bot.ts';

export interface SlackHarness {
  fake: FakeSlack;
  /** The first source's ingest, unless the harness was started without one. */
  ingested?: IngestSummary;
  app: Labbot;
  bot: RunningBot;
  close(): Promise<void>;
}

/**
 * The URLs a masked link may go to: each indexed document's own (its DOI link or URL, any deep-link
 * fragment) and labbot's signed document view. Read at each check, so documents indexed later count.
 */
export function documentLinks(app: Labbot): (string | RegExp)[] {
  const out: (string | RegExp)[] = [];
  for (const d of app.catalog.docs()) {
    const link = citationLink(d);
    if (link) out.push(link);
  }
  const view = app.config.docLinks?.baseUrl;
  if (view) out.push(new RegExp(`^${view.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/doc\\?`));
  return out;
}

export interface SlackAppOptions {
  fileConfig: Record<string, unknown>;
  /** More environment for the app (a model endpoint, say). */
  env?: Record<string, string>;
  /** Index the first configured source (default true). */
  ingest?: boolean;
}

export type SlackApp = Omit<SlackHarness, 'bot'>;

/**
 * The fake Slack and a Labbot pointed at it, its first source indexed, without a bot: for suites
 * that start bots of their own (several, or with other options) on the one app.
 */
export async function startSlackApp(opts: SlackAppOptions): Promise<SlackApp> {
  const fake = await startFakeSlack();
  const app = await openTestApp({ fileConfig: opts.fileConfig, env: slackEnv(fake.apiUrl, opts.env) });
  fake.allowLinks(() => documentLinks(app));
  const ingested = opts.ingest !== false ? await app.ingestSource(app.config.sources[0]) : undefined;
  return {
    fake,
    app,
    ingested,
    async close() {
      await app.close();
      await fake.close();
    },
  };
}

export async function startSlackHarness(opts: SlackAppOptions & { bot?: Parameters<typeof startTestBot>[1] }): Promise<SlackHarness> {
  const base = await startSlackApp(opts);
  const bot = await startTestBot(base.app, opts.bot);
  return {
    ...base,
    bot,
    async close() {
      await bot.close();
      await base.close();
    },
  };
}

export type ModelSlackHarness = SlackHarness & { openai: FakeOpenAI };

/** The same with a chat model: a fake OpenAI endpoint the app's model points at, closed last. */
export async function startModelSlackHarness(opts: Parameters<typeof startSlackHarness>[0]): Promise<ModelSlackHarness> {
  const openai = await startFakeOpenAI();
  let harness: SlackHarness;
  try {
    harness = await startSlackHarness({ ...opts, env: { ...chatEnv(openai), ...opts.env } });
  } catch (err) {
    await openai.close();
    throw err;
  }
  return {
    ...harness,
    openai,
    async close() {
      await harness.close();
      await openai.close();
    },
  };
}
