// The one place that reads the environment. Everything else receives a typed Config.
import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import type { GitAuth } from './types.ts';
import { ACCESS_GROUP, KINDS } from './types.ts';

export class ConfigError extends Error {}

const groupName = z.string().regex(ACCESS_GROUP, 'an access group is lower-case letters, digits, "_" or "-"');

/** "30s", "5m", "1h" -> milliseconds. */
const duration = z
  .string()
  .regex(/^\d+(ms|s|m|h)$/, 'a duration is a number and a unit: "30s", "5m", "1h"')
  .transform((v) => {
    const [, n, unit] = /^(\d+)(ms|s|m|h)$/.exec(v)!;
    return Number(n) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[unit as 'ms' | 's' | 'm' | 'h'];
  })
  .refine((ms) => ms >= 10_000, 'poll intervals under 10s would hammer the source');

const envName = (field: string, example: string) =>
  z.string().regex(/^[A-Z_][A-Z0-9_]*$/, `${field} names an environment variable, such as ${example}`);
const isHttpUrl = (url: string | undefined) => url !== undefined && /^https?:\/\//i.test(url);

const sourceSchema = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'a source id is letters, digits, ".", "_" or "-"'),
    type: z.enum(['folder', 'git', 'zotero']),
    /** Folder to index, for git the local clone (default: under the data dir), for zotero a local Zotero data folder. */
    path: z.string().min(1).optional(),
    /** Zotero Web API library: "users/<id>" or "groups/<id>"; with `path`, a group synced into that local Zotero. */
    library: z
      .string()
      .regex(/^(users|groups)\/\d{1,12}$/, 'a Zotero library is "users/<user id>" or "groups/<group id>"')
      .optional(),
    /** Name of the environment variable holding the Zotero API key (never the key itself). */
    apiKeyEnv: z
      .string()
      .regex(/^[A-Z_][A-Z0-9_]*$/, 'apiKeyEnv names an environment variable, such as ZOTERO_API_KEY')
      .optional(),
    /** A Zotero collection key: only items in it (or its subcollections) are indexed. */
    collection: z
      .string()
      .regex(/^[23456789ABCDEFGHIJKLMNPQRSTUVWXYZ]{8}$/, "a Zotero collection key is 8 characters, as in the collection's URL")
      .optional(),
    /** git remote to clone and fetch; without it `path` must already be a git work tree. */
    url: z.string().min(1).optional(),
    branch: z
      .string()
      .regex(/^[A-Za-z0-9._/-]+$/, 'a branch name is letters, digits, ".", "_", "/" or "-"')
      .optional(),
    /**
     * Webhook secret (HMAC for GitHub and generic hooks, token for GitLab). Still read from the
     * file for old configs, with a warning: `secretEnv` is where it belongs.
     */
    secret: z.string().min(8, 'a webhook secret must be at least 8 characters').optional(),
    /** Name of the environment variable holding the webhook secret (never the secret itself). */
    secretEnv: envName('secretEnv', 'WIKI_WEBHOOK_SECRET').optional(),
    /** git over https: name of the environment variable holding an access token. */
    tokenEnv: envName('tokenEnv', 'WIKI_GIT_TOKEN').optional(),
    /** git over ssh: a private (deploy) key file, relative to the config file. */
    sshKeyPath: z.string().min(1).optional(),
    poll: duration.optional(),
    kind: z.enum(KINDS).optional(),
    access: groupName.optional(),
  })
  .refine((s) => s.type !== 'folder' || s.path, { message: 'a folder source needs a path', path: ['path'] })
  .refine((s) => s.type !== 'git' || s.path || s.url, { message: 'a git source needs a url or a path to an existing clone', path: ['url'] })
  .refine((s) => s.type !== 'zotero' || s.path || s.library, {
    message: 'a zotero source needs a "library" ("groups/<id>" or "users/<id>") for the Web API, or a "path" to a local Zotero data folder',
    path: ['library'],
  })
  .refine((s) => s.type === 'zotero' || (!s.library && !s.apiKeyEnv && !s.collection), {
    message: '"library", "apiKeyEnv" and "collection" are for zotero sources',
    path: ['type'],
  })
  .refine((s) => s.type !== 'zotero' || (!s.url && !s.branch && !s.secret && !s.secretEnv), {
    message: 'a zotero source has no "url", "branch" or "secret" (it is polled: set "poll")',
    path: ['type'],
  })
  .refine((s) => !(s.secret && s.secretEnv), {
    message: 'give either "secret" or "secretEnv" (the name of the environment variable holding it), not both',
    path: ['secretEnv'],
  })
  .refine((s) => s.type === 'git' || (!s.tokenEnv && !s.sshKeyPath), {
    message: '"tokenEnv" and "sshKeyPath" are for git sources',
    path: ['type'],
  })
  .refine((s) => !s.tokenEnv || isHttpUrl(s.url), {
    message: '"tokenEnv" sends a token over HTTP(S): the source needs an https:// url (an ssh remote takes "sshKeyPath")',
    path: ['tokenEnv'],
  })
  .refine((s) => !s.sshKeyPath || (s.url !== undefined && !isHttpUrl(s.url)), {
    message: '"sshKeyPath" is for ssh remotes (ssh://... or git@host:path); an https:// url takes "tokenEnv"',
    path: ['sshKeyPath'],
  })
  .refine((s) => s.type !== 'zotero' || !(s.path && s.apiKeyEnv), {
    message: 'a local Zotero library ("path") needs no API key',
    path: ['apiKeyEnv'],
  });

// Channel and user maps are looked up with names from Slack and HTTP requests: a plain object
// would answer "constructor" or "__proto__" from its prototype. These maps are null-prototype
// objects built from the file's own keys; z.record is not used because it assigns keys one by one,
// which silently drops a key named "__proto__".
const nameMap = <T extends z.ZodType>(value: T) =>
  z
    .unknown()
    .superRefine((raw, ctx) => {
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
        ctx.addIssue({ code: 'custom', message: 'expected an object of name -> access groups' });
        return;
      }
      for (const [k, v] of Object.entries(raw)) {
        const r = value.safeParse(v);
        if (!r.success)
          for (const issue of r.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: [k, ...issue.path] });
      }
    })
    .transform((raw) => {
      const map = Object.create(null) as Record<string, z.infer<T>>;
      for (const [k, v] of Object.entries(raw as object)) map[k] = value.parse(v) as z.infer<T>;
      return map;
    });

const fileSchema = z
  .object({
    sources: z.array(sourceSchema).default([]),
    access: z
      .object({
        default: groupName.default('public'),
        // prefault, not default: the default value goes through the transform too.
        channels: nameMap(z.array(groupName)).prefault({}),
        users: nameMap(z.array(groupName)).prefault({}),
      })
      .prefault({}),
    chunking: z
      // 500/80 with the best hit expanded to its neighbours measured best on full papers
      // (answer-in-context +4 to +8 points over 900/150 on two held-out-style sets).
      .object({ size: z.number().int().min(200).max(8000).default(500), overlap: z.number().int().min(0).max(2000).default(80) })
      .default({ size: 500, overlap: 80 }),
    retrieval: z
      .object({
        fusion: z.enum(['rrf', 'weighted']).default('weighted'),
        rrfK: z.number().positive().default(60),
        denseWeight: z.number().min(0).default(0.35),
        lexicalWeight: z.number().min(0).default(1),
        candidates: z.number().int().min(5).max(500).default(50),
        rerankDepth: z.number().int().min(0).max(200).default(30),
        k: z.number().int().min(1).max(50).default(8),
        contextChars: z.number().int().min(500).default(6000),
        hnswEfSearch: z.number().int().min(10).max(2000).default(200),
        // HNSW build settings, used when a collection is created. Measured at 48k chunks:
        // M=16/200 recall@10 0.986 at 630 chunks/s; M=32/200 0.995 at 508/s; M=16/100 0.971 at 742/s.
        hnswM: z.number().int().min(4).max(128).default(16),
        hnswEfConstruction: z.number().int().min(10).max(2000).default(200),
        // Small-to-big for the best hits: the best one measured +0.6 to +1.6 answer-in-context on
        // full papers; the second best too, +1.5 to +1.7 more (COVID-QA dev, 6,000-char budget).
        expandTop: z.number().int().min(0).max(10).default(2),
      })
      .default({
        fusion: 'weighted',
        rrfK: 60,
        denseWeight: 0.35,
        lexicalWeight: 1,
        candidates: 50,
        rerankDepth: 30,
        k: 8,
        contextChars: 6000,
        hnswEfSearch: 200,
        hnswM: 16,
        hnswEfConstruction: 200,
        expandTop: 2,
      }),
    ingest: z
      .object({ maxFileMb: z.number().positive().default(100), embedBatch: z.number().int().min(1).max(5000).default(256) })
      .default({ maxFileMb: 100, embedBatch: 256 }),
    queue: z
      .object({
        concurrency: z.number().int().min(1).max(64).default(2),
        attempts: z.number().int().min(1).max(50).default(5),
        backoffMs: z.number().int().min(10).max(600_000).default(1000),
        keepCompleted: z.number().int().min(0).default(500),
        keepFailed: z.number().int().min(0).default(5000),
        webhookMaxKb: z.number().int().min(1).max(10_240).default(1024),
        // A delivery waits this long for Redis, then is answered 503 (GitHub gives up after 10 s).
        webhookTimeoutMs: z.number().int().min(100).max(60_000).default(5000),
        // A job whose worker died is retried after its lock expires (stalled-job check every half).
        lockMs: z.number().int().min(1000).max(600_000).default(30_000),
        // After a blue/green switch, the old index is dropped once every live process has switched,
        // or after this long at most.
        switchGraceMs: z.number().int().min(0).max(3_600_000).default(120_000),
      })
      .default({
        concurrency: 2,
        attempts: 5,
        backoffMs: 1000,
        keepCompleted: 500,
        keepFailed: 5000,
        webhookMaxKb: 1024,
        webhookTimeoutMs: 5000,
        lockMs: 30_000,
        switchGraceMs: 120_000,
      }),
    gaps: z
      .object({
        // Answers whose best passage scored below this are listed as weakly supported knowledge
        // gaps. Off by default: the offline reranker's scores are relative to each question's own
        // passages (the best is always near the top of the scale), so a fixed threshold only means
        // something with a /rerank endpoint that returns absolute relevance (a cross-encoder's 0-1).
        minTopScore: z.number().optional(),
      })
      .strict()
      .default({}),
    // Translation for retrieval (src/translate/): auto uses Apertium when it is installed; model
    // (the configured chat model) only when asked for by name.
    translation: z
      .object({
        provider: z.enum(['auto', 'apertium', 'model', 'off']).default('auto'),
        binary: z.string().min(1).default('apertium'),
        timeoutMs: z.number().int().min(100).max(60_000).default(5000),
        // Apertium's stages kept running per pair (about 1 ms a question); false runs the
        // `apertium` script per question (about 0.2 s), which is also the fallback when they cannot start.
        warm: z.boolean().default(true),
        pairs: z
          .array(z.object({ from: z.enum(['en', 'es']), to: z.enum(['en', 'es']), mode: z.string().regex(/^[a-z_-]+$/) }).strict())
          .default([
            { from: 'es', to: 'en', mode: 'spa-eng' },
            { from: 'en', to: 'es', mode: 'eng-spa' },
          ]),
      })
      .strict()
      .default({
        provider: 'auto',
        binary: 'apertium',
        timeoutMs: 5000,
        warm: true,
        pairs: [
          { from: 'es', to: 'en', mode: 'spa-eng' },
          { from: 'en', to: 'es', mode: 'eng-spa' },
        ],
      }),
    // DOI enrichment from Crossref: off unless asked for; the polite pool needs a contact address.
    enrich: z
      .object({
        crossref: z.boolean().default(false),
        mailto: z.email('enrich.mailto must be an e-mail address Crossref can reach you at').optional(),
        // How long a Crossref record (and the retraction status in it) is trusted before it is
        // asked for again; a DOI Crossref does not know is asked again after a quarter of that.
        maxAge: z
          .string()
          .regex(/^\d+(m|h|d)$/, 'enrich.maxAge is a number and a unit: "12h", "1d"')
          .transform((v) => Number(v.slice(0, -1)) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[v.slice(-1) as 'm' | 'h' | 'd'])
          .refine((ms) => ms >= 3_600_000, 'enrich.maxAge under 1h would ask Crossref about the same DOIs all day')
          .default(86_400_000),
      })
      .strict()
      .refine((e) => !e.crossref || e.mailto, {
        message: 'enrich.crossref needs enrich.mailto (Crossref asks for a contact address)',
        path: ['mailto'],
      })
      .prefault({}),
    /** Slack user ids allowed to run admin slash commands (`/labbot reindex`). */
    admins: z.array(z.string().regex(/^[UW][A-Z0-9]+$/, 'a Slack user id looks like U012ABCDEF')).default([]),
    /** Channels shared with other organisations (Slack Connect): refuse to answer, or read `public` only. */
    slackConnect: z.enum(['refuse', 'public']).default('refuse'),
    slack: z
      .object({
        /**
         * Bots (bot ids, B…) whose @mentions labbot answers; any other bot's are ignored, so bots
         * cannot drive labbot or loop through it. labbot's own id never counts.
         */
        allowBots: z
          .array(
            z
              .string()
              .regex(
                /^B[A-Z0-9]+$/,
                'a Slack bot id looks like B0123ABCDEF (the bot_id labbot logs when it ignores a mention; not the bot’s user id U…)',
              ),
          )
          .default([]),
      })
      .strict()
      .prefault({}),
    /**
     * Minutes after an answer in a channel thread during which the person answered may ask a
     * follow-up there without a mention (0: every follow-up needs a mention).
     */
    followUpMinutes: z.number().min(0).max(1440).default(10),
    /** Suggested prompts in labbot's DM (Slack shows up to 4); unset: derived from what is indexed. */
    suggestedPrompts: z
      .array(z.object({ title: z.string().trim().min(1).max(75), message: z.string().trim().min(1).max(500) }).strict())
      .min(1)
      .max(4)
      .optional(),
    /** Signed links to labbot's document view (with LABBOT_PUBLIC_URL): how long one opens its document. */
    links: z
      .object({
        ttlHours: z
          .number()
          .int()
          .min(1)
          .max(24 * 365)
          .default(168),
      })
      .strict()
      .default({ ttlHours: 168 }),
  })
  .strict();

type ParsedSource = z.infer<typeof sourceSchema>;

/** Where a Zotero source reads its library from. The API key itself lives only here, never in logs. */
export type ZoteroAccess =
  | { via: 'web'; apiUrl: string; library: string; apiKey: string | undefined; collection?: string }
  | { via: 'local'; dataDir: string; library?: string; collection?: string };

/**
 * A source with its path resolved (git sources without one clone under the data dir). For zotero
 * sources `path` is the mirror folder under the data dir that the rest of labbot indexes, and
 * `zotero` says where the library is read from.
 */
export type SourceConfig = Omit<ParsedSource, 'path'> & { path: string; zotero?: ZoteroAccess; gitAuth?: GitAuth };
export type FileConfig = z.infer<typeof fileSchema>;

const envSchema = z.object({
  LABBOT_DATA_DIR: z.string().default('./data'),
  LABBOT_CONFIG: z.string().default('./labbot.config.json'),
  CHROMA_URL: z.url({ message: 'CHROMA_URL must be a URL such as http://127.0.0.1:8000' }).optional(),
  LABBOT_COLLECTION: z
    .string()
    .regex(
      /^[a-zA-Z0-9][a-zA-Z0-9._-]{1,200}[a-zA-Z0-9]$/,
      'LABBOT_COLLECTION must be 3+ characters of [a-zA-Z0-9._-], starting and ending alphanumeric',
    )
    .default('labbot'),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'REDIS_URL must start with redis:// or rediss://')
    .default('redis://127.0.0.1:6379'),
  EMBEDDINGS: z.enum(['openai', 'hash']).optional(),
  EMBEDDING_MODEL: z.string().min(1).optional(),
  EMBEDDING_DIMENSIONS: z.coerce.number().int().min(8).max(8192).optional(),
  LLM: z.enum(['openai', 'none']).optional(),
  LLM_MODEL: z.string().min(1).default('gpt-4o-mini'),
  OPENAI_BASE_URL: z.url({ message: 'OPENAI_BASE_URL must be a URL such as http://localhost:11434/v1' }).optional(),
  OPENAI_API_KEY: z.string().min(1).optional(),
  RERANK_URL: z.url({ message: 'RERANK_URL must be the URL of a /rerank endpoint (Cohere, Jina or TEI style)' }).optional(),
  RERANK_MODEL: z.string().min(1).optional(),
  RERANK_API_KEY: z.string().min(1).optional(),
  MODEL_TIMEOUT_MS: z.coerce.number().int().min(1000).default(60_000),
  MODEL_MAX_RETRIES: z.coerce.number().int().min(0).max(10).default(3),
  LABBOT_PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  LABBOT_HOST: z.string().min(1).default('127.0.0.1'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).optional(),
  LABBOT_TRANSLATION: z.enum(['auto', 'apertium', 'model', 'off']).optional(),
  APERTIUM_BIN: z.string().min(1).optional(),
  // auto: readable lines on a terminal, JSON lines otherwise (src/log.ts).
  LOG_FORMAT: z.enum(['auto', 'pretty', 'json']).default('auto'),
  // https://no-color.org: any non-empty value turns colour off (an empty one is unset here anyway).
  NO_COLOR: z.string().optional(),
  LABBOT_WORKER: z.enum(['on', 'off']).default('on'),
  // Express "trust proxy": true/false, a hop count, or addresses/subnets/names (loopback, 10.0.0.0/8).
  LABBOT_TRUST_PROXY: z
    .string()
    .regex(
      /^(true|false|\d{1,2}|[\w.:/-]+(\s*,\s*[\w.:/-]+)*)$/,
      'LABBOT_TRUST_PROXY is true, false, a hop count, or a comma-separated list of proxy addresses, subnets or loopback/linklocal/uniquelocal',
    )
    .transform((v): boolean | number | string => (v === 'true' ? true : v === 'false' ? false : /^\d+$/.test(v) ? Number(v) : v))
    .default(false),
  // Anonymous POST /api/ask requests per client: "30/1m"; "off" for none.
  LABBOT_ASK_RATE: z
    .string()
    .regex(/^(off|\d+\/\d+(ms|s|m|h))$/, 'LABBOT_ASK_RATE is requests per window such as "30/1m", or "off"')
    .default('30/1m'),
  LABBOT_ADMIN_TOKEN: z.string().min(16, 'LABBOT_ADMIN_TOKEN must be at least 16 characters').optional(),
  LABBOT_ADMINS: z
    .string()
    .regex(/^[UW][A-Z0-9]+(,[UW][A-Z0-9]+)*$/, 'LABBOT_ADMINS is a comma-separated list of Slack user ids (U012ABCDEF)')
    .optional(),
  SLACK_BOT_TOKEN: z
    .string()
    .regex(/^xoxb-/, 'SLACK_BOT_TOKEN is a bot token starting with xoxb-')
    .optional(),
  SLACK_SIGNING_SECRET: z.string().min(8).optional(),
  SLACK_APP_TOKEN: z
    .string()
    .regex(/^xapp-/, 'SLACK_APP_TOKEN is an app-level token starting with xapp-')
    .optional(),
  SLACK_API_URL: z.url({ message: 'SLACK_API_URL must be a URL such as https://slack.com/api/' }).optional(),
  ZOTERO_API_URL: z.url({ message: 'ZOTERO_API_URL must be a URL such as https://api.zotero.org' }).optional(),
  CROSSREF_API_URL: z
    .url({ message: 'CROSSREF_API_URL must be a URL such as https://api.crossref.org' })
    .default('https://api.crossref.org'),
  // Where lab members reach this server (behind the TLS proxy): Sources without a URL of their own
  // link to its document view, with links signed by LABBOT_LINK_SECRET.
  LABBOT_PUBLIC_URL: z
    .url({ message: 'LABBOT_PUBLIC_URL must be the http(s) URL at which this server is reachable, such as https://labbot.example.org' })
    .refine((u) => /^https?:\/\//i.test(u), 'LABBOT_PUBLIC_URL must be an http(s) URL')
    .optional(),
  LABBOT_LINK_SECRET: z.string().min(32, 'LABBOT_LINK_SECRET must be at least 32 characters (e.g. openssl rand -hex 32)').optional(),
});

/** How to log, as configured; src/log.ts chooses from it with what only the process knows (a terminal or not). */
export interface LogSettings {
  level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** LOG_LEVEL was given: a command that logs only warnings by default then logs at that level. */
  levelSet: boolean;
  format: 'auto' | 'pretty' | 'json';
  noColor: boolean;
}

export interface Config {
  dataDir: string;
  configFile: string | undefined;
  chromaUrl: string | undefined;
  collection: string;
  redisUrl: string;
  embeddings: { provider: 'openai' | 'hash'; model: string; dimensions: number | undefined };
  llm: { provider: 'openai' | 'none'; model: string };
  openai: { baseURL: string | undefined; apiKey: string | undefined; timeoutMs: number; maxRetries: number };
  /** A /rerank HTTP endpoint; unset means the offline reranker. */
  rerank: { url: string; model: string | undefined; apiKey: string | undefined } | undefined;
  port: number;
  host: string;
  log: LogSettings;
  sources: SourceConfig[];
  access: FileConfig['access'];
  chunking: FileConfig['chunking'];
  retrieval: FileConfig['retrieval'];
  ingest: FileConfig['ingest'];
  queue: FileConfig['queue'];
  gaps: FileConfig['gaps'];
  translation: FileConfig['translation'];
  /** DOI enrichment from Crossref; undefined when off. */
  enrich: { crossref: { apiUrl: string; mailto: string; maxAgeMs: number } } | undefined;
  /** Run a queue worker inside `serve` (LABBOT_WORKER=off for bot-only replicas). */
  workerInServe: boolean;
  /** Express "trust proxy": which peers' X-Forwarded-* headers are believed (client IP, https). */
  trustProxy: boolean | number | string;
  /** Per-client limit on anonymous POST /api/ask; undefined means none. */
  askRateLimit: { max: number; windowMs: number } | undefined;
  /** Admin dashboard token; unset, `serve` makes one per start (printed with the dashboard link) and serves the dashboard on loopback binds only. */
  adminToken: string | undefined;
  /** Slack user ids allowed to run admin commands: LABBOT_ADMINS plus the config file's `admins`. */
  admins: string[];
  /** What labbot does in Slack Connect channels (shared with other organisations). */
  slackConnect: FileConfig['slackConnect'];
  /** Bot ids whose @mentions are answered (`slack.allowBots`); every other bot's are ignored. */
  allowBots: string[];
  /** Untagged follow-ups in a channel thread are answered this long after labbot's answer (the asker's only). */
  followUpMinutes: number;
  /** The lab's own suggested prompts; undefined: derived from the index. */
  suggestedPrompts: FileConfig['suggestedPrompts'];
  /**
   * labbot's document view for Sources without a URL: its public base URL, the HMAC secret of its
   * links and how long a link opens its document. Unset without LABBOT_PUBLIC_URL (no such links).
   */
  docLinks: { baseUrl: string; secret: string; ttlMs: number } | undefined;
  /** Secrets still written in the config file, and similar advice: logged at start-up (never a value). */
  warnings: string[];
  /** Every secret value configured, so the logger can redact it from whatever line it reaches. */
  secrets: string[];
  /** Unset when no Slack variables are given: `serve` runs without the bot. */
  slack: { botToken: string; signingSecret: string | undefined; appToken: string | undefined; apiUrl: string | undefined } | undefined;
}

function parseRate(v: string): Config['askRateLimit'] {
  const m = /^(\d+)\/(\d+)(ms|s|m|h)$/.exec(v);
  if (!m) return undefined;
  const windowMs = Number(m[2]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[3] as 'ms' | 's' | 'm' | 'h'];
  return Number(m[1]) > 0 && windowMs > 0 ? { max: Number(m[1]), windowMs } : undefined;
}

function describeIssues(error: z.ZodError, where: string): string {
  const lines = error.issues.map((i) => `  ${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`);
  return `Invalid configuration in ${where}:\n${lines.join('\n')}`;
}

/** Reads and validates a config file; a missing default file means "no sources". */
export function readConfigFile(
  file: string,
  required: boolean,
  dataDir = path.resolve('data'),
): Omit<FileConfig, 'sources'> & { sources: SourceConfig[] } {
  if (!existsSync(file)) {
    if (required) throw new ConfigError(`Config file not found: ${file}`);
    return { ...fileSchema.parse({}), sources: [] };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(`Config file ${file} is not valid JSON: ${(err as Error).message}`);
  }
  const parsed = fileSchema.safeParse(raw);
  if (!parsed.success) throw new ConfigError(describeIssues(parsed.error, file));
  const base = path.dirname(path.resolve(file));
  const resolve = (p: string) => path.resolve(base, p === '~' || p.startsWith('~/') ? path.join(os.homedir(), p.slice(1)) : p);
  return {
    ...parsed.data,
    sources: parsed.data.sources.map((s) => {
      if (s.type !== 'zotero') {
        const sshKeyPath = s.sshKeyPath === undefined ? undefined : resolve(s.sshKeyPath);
        if (sshKeyPath !== undefined && !isReadableFile(sshKeyPath))
          throw new ConfigError(`Invalid configuration in ${file}: source "${s.id}": sshKeyPath ${sshKeyPath} is not a readable file`);
        return {
          ...s,
          path: s.path ? resolve(s.path) : path.join(dataDir, 'git', s.id),
          ...(sshKeyPath ? { sshKeyPath, gitAuth: { sshKeyPath } } : {}),
        };
      }
      const zotero: ZoteroAccess = s.path
        ? { via: 'local', dataDir: resolve(s.path), library: s.library, collection: s.collection }
        : { via: 'web', apiUrl: DEFAULT_ZOTERO_API, library: s.library!, apiKey: undefined, collection: s.collection };
      return { ...s, path: path.join(dataDir, 'zotero', s.id), zotero };
    }),
  };
}

const DEFAULT_ZOTERO_API = 'https://api.zotero.org';

function isReadableFile(p: string): boolean {
  try {
    accessSync(p, constants.R_OK);
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** A variable a source names; unset is an error naming the variable (never a value). */
function fromEnv(env: Record<string, string | undefined>, source: string, name: string, what: string): string {
  const v = env[name];
  if (!v) throw new ConfigError(`Invalid configuration: source "${source}" reads its ${what} from ${name}, which is not set`);
  return v;
}

/** An http(s) git URL without its userinfo, and that userinfo decoded (undefined when there is none). */
function splitCredentials(url: string): { url: string; user?: string; password?: string } {
  if (!isHttpUrl(url)) return { url };
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { url };
  }
  if (!u.username && !u.password) return { url };
  const user = decodeURIComponent(u.username);
  const password = u.password || /^[a-z]+:\/\/[^@/]*:@/i.test(url) ? decodeURIComponent(u.password) : undefined;
  u.username = '';
  u.password = '';
  return { url: u.toString(), user, password };
}

/**
 * Each source's webhook secret and git credentials, from the variables it names or (old configs,
 * warned about) from the file. Credentials in a git URL leave the URL in every case: git gets them
 * as a header (ingest/sources/git.ts), so they reach neither the clone's .git/config nor `ps`.
 */
function withSourceSecrets(
  sources: SourceConfig[],
  env: Record<string, string | undefined>,
  file: string,
  warnings: string[],
): SourceConfig[] {
  return sources.map((s) => {
    let secret = s.secret;
    if (s.secretEnv) {
      secret = fromEnv(env, s.id, s.secretEnv, 'webhook secret');
      if (secret.length < 8)
        throw new ConfigError(
          `Invalid configuration: the webhook secret in ${s.secretEnv} (source "${s.id}") must be at least 8 characters`,
        );
    } else if (secret) {
      warnings.push(`source "${s.id}": its webhook secret is written in ${file}; move it to .env and name the variable with "secretEnv"`);
    }
    if (s.type !== 'git' || !s.url) return { ...s, secret };
    const split = splitCredentials(s.url);
    let basic: { user: string; password: string } | undefined;
    if (s.tokenEnv)
      basic = {
        user: split.password !== undefined || split.user === undefined ? 'x-access-token' : split.user,
        password: fromEnv(env, s.id, s.tokenEnv, 'git token'),
      };
    // Exactly what git sent from such a URL: its user name, and the password or nothing.
    else if (split.user !== undefined) basic = { user: split.user, password: split.password ?? '' };
    if (split.user !== undefined && (!s.tokenEnv || split.password !== undefined)) {
      warnings.push(
        `source "${s.id}": credentials in its git URL in ${file} are no longer ` +
          `needed there; put the token in .env and name the variable with "tokenEnv" ` +
          `(${s.tokenEnv ? 'tokenEnv is used' : 'they are used for now, kept out of the clone'})`,
      );
    }
    return { ...s, secret, url: split.url, ...(basic ? { gitAuth: { ...s.gitAuth, basic } } : {}) };
  });
}

/** Every secret value, for redaction; short values are left out (they would blank ordinary words). */
function secretValues(e: z.infer<typeof envSchema>, sources: SourceConfig[]): string[] {
  const values = [
    e.OPENAI_API_KEY,
    e.RERANK_API_KEY,
    e.LABBOT_ADMIN_TOKEN,
    e.LABBOT_LINK_SECRET,
    e.SLACK_BOT_TOKEN,
    e.SLACK_SIGNING_SECRET,
    e.SLACK_APP_TOKEN,
    splitCredentials(e.REDIS_URL.replace(/^redis/, 'http')).password,
    ...sources.flatMap((s) => {
      const basic = s.gitAuth?.basic;
      // A token alone in a URL is its user name; the Authorization header git sends is base64.
      const git = basic
        ? [
            basic.password,
            basic.password === '' ? basic.user : undefined,
            Buffer.from(`${basic.user}:${basic.password}`).toString('base64'),
          ]
        : [];
      return [s.secret, ...git, s.zotero?.via === 'web' ? s.zotero.apiKey : undefined];
    }),
  ];
  return [...new Set(values.filter((v): v is string => typeof v === 'string' && v.length >= 8))];
}

/** The Web API's address and each web source's key, from the environment. */
function withZoteroEnv(sources: SourceConfig[], env: Record<string, string | undefined>, apiUrl: string | undefined): SourceConfig[] {
  return sources.map((s) => {
    if (s.zotero?.via !== 'web') return s;
    const apiKey = s.apiKeyEnv ? env[s.apiKeyEnv] : undefined;
    if (s.apiKeyEnv && !apiKey)
      throw new ConfigError(`Invalid configuration: source "${s.id}" reads its Zotero API key from ${s.apiKeyEnv}, which is not set`);
    return { ...s, zotero: { ...s.zotero, apiUrl: apiUrl ?? DEFAULT_ZOTERO_API, apiKey } };
  });
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // Empty strings in the environment mean "unset", as most shells and .env files intend.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) throw new ConfigError(describeIssues(parsed.error, 'the environment'));
  const e = parsed.data;
  const remote = Boolean(e.OPENAI_API_KEY || e.OPENAI_BASE_URL);
  const embeddingProvider = e.EMBEDDINGS ?? (remote ? 'openai' : 'hash');
  const llmProvider = e.LLM ?? (remote ? 'openai' : 'none');
  if ((embeddingProvider === 'openai' || llmProvider === 'openai') && !remote) {
    throw new ConfigError('EMBEDDINGS=openai or LLM=openai needs OPENAI_API_KEY or OPENAI_BASE_URL (an OpenAI-compatible endpoint).');
  }
  const configFileExplicit = env.LABBOT_CONFIG !== undefined && env.LABBOT_CONFIG !== '';
  const file = readConfigFile(path.resolve(e.LABBOT_CONFIG), configFileExplicit, path.resolve(e.LABBOT_DATA_DIR));
  const ids = new Set<string>();
  for (const s of file.sources) {
    if (ids.has(s.id)) throw new ConfigError(`Invalid configuration: source id "${s.id}" is used twice`);
    ids.add(s.id);
  }
  if ((e.SLACK_BOT_TOKEN || e.SLACK_SIGNING_SECRET || e.SLACK_APP_TOKEN) && !e.SLACK_BOT_TOKEN) {
    throw new ConfigError('Slack needs SLACK_BOT_TOKEN (xoxb-...) as well as SLACK_SIGNING_SECRET or SLACK_APP_TOKEN.');
  }
  if (e.SLACK_BOT_TOKEN && !e.SLACK_SIGNING_SECRET && !e.SLACK_APP_TOKEN) {
    throw new ConfigError(
      'SLACK_BOT_TOKEN is set but neither SLACK_SIGNING_SECRET (Events API over HTTP) nor SLACK_APP_TOKEN (Socket Mode) is.',
    );
  }
  if (e.LABBOT_PUBLIC_URL && !e.LABBOT_LINK_SECRET) {
    throw new ConfigError(
      'LABBOT_PUBLIC_URL is set but LABBOT_LINK_SECRET is not: document links are signed with it (at least 32 characters, e.g. openssl rand -hex 32).',
    );
  }
  const warnings: string[] = [];
  const sources = withSourceSecrets(
    withZoteroEnv(file.sources, cleaned, e.ZOTERO_API_URL?.replace(/\/+$/, '')),
    cleaned,
    path.resolve(e.LABBOT_CONFIG),
    warnings,
  );
  return {
    dataDir: path.resolve(e.LABBOT_DATA_DIR),
    configFile: existsSync(e.LABBOT_CONFIG) ? path.resolve(e.LABBOT_CONFIG) : undefined,
    chromaUrl: e.CHROMA_URL?.replace(/\/+$/, ''),
    collection: e.LABBOT_COLLECTION,
    redisUrl: e.REDIS_URL,
    embeddings: {
      provider: embeddingProvider,
      model: e.EMBEDDING_MODEL ?? (embeddingProvider === 'openai' ? 'text-embedding-3-small' : 'hash-v1'),
      dimensions: e.EMBEDDING_DIMENSIONS,
    },
    llm: { provider: llmProvider, model: e.LLM_MODEL },
    openai: { baseURL: e.OPENAI_BASE_URL, apiKey: e.OPENAI_API_KEY, timeoutMs: e.MODEL_TIMEOUT_MS, maxRetries: e.MODEL_MAX_RETRIES },
    rerank: e.RERANK_URL ? { url: e.RERANK_URL, model: e.RERANK_MODEL, apiKey: e.RERANK_API_KEY } : undefined,
    port: e.LABBOT_PORT,
    host: e.LABBOT_HOST,
    log: { level: e.LOG_LEVEL ?? 'info', levelSet: e.LOG_LEVEL !== undefined, format: e.LOG_FORMAT, noColor: e.NO_COLOR !== undefined },
    sources,
    access: file.access,
    chunking: file.chunking,
    retrieval: file.retrieval,
    ingest: file.ingest,
    queue: file.queue,
    gaps: file.gaps,
    translation: {
      ...file.translation,
      provider: e.LABBOT_TRANSLATION ?? file.translation.provider,
      binary: e.APERTIUM_BIN ?? file.translation.binary,
    },
    enrich:
      file.enrich.crossref && file.enrich.mailto
        ? { crossref: { apiUrl: e.CROSSREF_API_URL.replace(/\/+$/, ''), mailto: file.enrich.mailto, maxAgeMs: file.enrich.maxAge } }
        : undefined,
    workerInServe: e.LABBOT_WORKER === 'on',
    trustProxy: e.LABBOT_TRUST_PROXY,
    askRateLimit: parseRate(e.LABBOT_ASK_RATE),
    adminToken: e.LABBOT_ADMIN_TOKEN,
    admins: [...new Set([...(e.LABBOT_ADMINS?.split(',') ?? []), ...file.admins])],
    slackConnect: file.slackConnect,
    allowBots: file.slack.allowBots,
    followUpMinutes: file.followUpMinutes,
    suggestedPrompts: file.suggestedPrompts,
    docLinks:
      e.LABBOT_PUBLIC_URL && e.LABBOT_LINK_SECRET
        ? { baseUrl: e.LABBOT_PUBLIC_URL.replace(/\/+$/, ''), secret: e.LABBOT_LINK_SECRET, ttlMs: file.links.ttlHours * 3_600_000 }
        : undefined,
    warnings,
    secrets: secretValues(e, sources),
    slack: e.SLACK_BOT_TOKEN
      ? { botToken: e.SLACK_BOT_TOKEN, signingSecret: e.SLACK_SIGNING_SECRET, appToken: e.SLACK_APP_TOKEN, apiUrl: e.SLACK_API_URL }
      : undefined,
  };
}

/**
 * The environment of a program labbot runs (git): this process's own plus `extra`. Here because
 * this is the one module that reads process.env; a child's environment is readable only by its
 * own user (and root), unlike its arguments, which every `ps` shows.
 */
export function childEnv(extra: Record<string, string>): Record<string, string | undefined> {
  return { ...process.env, ...extra };
}

/** Access groups a Slack channel (or DM user) may read. Unknown channels see the default group only. */
export function groupsForChannel(access: FileConfig['access'], channel?: string, user?: string): string[] {
  const groups = new Set<string>([access.default]);
  if (channel) for (const g of access.channels[channel] ?? []) groups.add(g);
  if (user) for (const g of access.users[user] ?? []) groups.add(g);
  return [...groups];
}
