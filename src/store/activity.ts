// What people asked and what they thought of the answers, in Redis: a capped list of question ids
// (newest first) and one hash per question with a 90-day TTL, plus a hash of votes per question
// (one vote per user, so changing your mind does not count twice). The dashboard reads this.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { execChecked } from './redis.ts';

export type ActivitySource = 'slack' | 'slash' | 'api' | 'dm' | 'admin';
export type Vote = 'up' | 'down';

export interface CitationRef {
  label: string;
  doc_id: string;
  title: string;
}

export interface QuestionEntry {
  source: ActivitySource;
  channel?: string;
  user?: string;
  question: string;
  /** The question as searched when it differs (a thread follow-up rewritten with earlier context). */
  searchedAs?: string;
  answer: string;
  refused: boolean;
  citations: CitationRef[];
  /** Score of the best retrieved passage: low values point at knowledge gaps. */
  topScore?: number;
  latencyMs: number;
  model: string;
  /** Slack: the question's own message and the thread it was answered in (links from the App Home). */
  messageTs?: string;
  threadTs?: string;
  /** The access groups the answer could read (src/ask.ts decided them). */
  groups?: string[];
}

/** The entry for an answered question: what every ask path (Slack, slash, API, dashboard) records. */
export function entryFor(
  result: { answer: string; refused: boolean; citations: CitationRef[]; passages: { score: number }[]; model: string },
  asked: Pick<QuestionEntry, 'source' | 'channel' | 'user' | 'question' | 'searchedAs' | 'latencyMs' | 'messageTs' | 'threadTs' | 'groups'>,
): QuestionEntry {
  return {
    ...asked,
    answer: result.answer,
    refused: result.refused,
    citations: result.citations.map((c) => ({ label: c.label, doc_id: c.doc_id, title: c.title })),
    topScore: result.passages[0]?.score,
    model: result.model,
  };
}

export interface QuestionRecord extends QuestionEntry {
  id: string;
  /** When the question was recorded, ISO 8601. */
  ts: string;
  feedback: { up: number; down: number };
  /** Slack user id -> their vote. */
  votes: Record<string, Vote>;
}

export interface ActivityStore {
  recordQuestion(entry: QuestionEntry): Promise<string>;
  /** False when the id is unknown (never recorded, or expired). */
  recordFeedback(id: string, vote: Vote, user: string): Promise<boolean>;
  get(id: string): Promise<QuestionRecord | undefined>;
  /** Newest first. */
  recent(limit: number): Promise<QuestionRecord[]>;
}

export interface ActivityOptions {
  /** Questions kept in the list (older ids are trimmed; their hashes expire). */
  keep?: number;
  ttlSeconds?: number;
}

const DAY = 86_400;

function parseRecord(id: string, h: Record<string, string>, votesHash: Record<string, string>): QuestionRecord | undefined {
  if (!h.ts) return undefined;
  const votes: Record<string, Vote> = {};
  for (const [user, v] of Object.entries(votesHash)) if (v === 'up' || v === 'down') votes[user] = v;
  const values = Object.values(votes);
  return {
    id,
    ts: h.ts,
    source: h.source as ActivitySource,
    ...(h.channel ? { channel: h.channel } : {}),
    ...(h.user ? { user: h.user } : {}),
    question: h.question ?? '',
    ...(h.searchedAs ? { searchedAs: h.searchedAs } : {}),
    answer: h.answer ?? '',
    refused: h.refused === '1',
    citations: JSON.parse(h.citations ?? '[]') as CitationRef[],
    ...(h.topScore !== undefined && h.topScore !== '' ? { topScore: Number(h.topScore) } : {}),
    latencyMs: Number(h.latencyMs ?? 0),
    model: h.model ?? '',
    ...(h.messageTs ? { messageTs: h.messageTs } : {}),
    ...(h.threadTs ? { threadTs: h.threadTs } : {}),
    ...(h.groups ? { groups: h.groups.split(',') } : {}),
    feedback: { up: values.filter((v) => v === 'up').length, down: values.filter((v) => v === 'down').length },
    votes,
  };
}

export function createActivityStore(redis: Redis, prefix: string, opts: ActivityOptions = {}): ActivityStore {
  const keep = opts.keep ?? 5000;
  const ttl = opts.ttlSeconds ?? 90 * DAY;
  const listKey = `${prefix}activity:questions`;
  const recordKey = (id: string) => `${prefix}activity:q:${id}`;
  const votesKey = (id: string) => `${prefix}activity:votes:${id}`;

  async function getMany(ids: string[]): Promise<QuestionRecord[]> {
    if (ids.length === 0) return [];
    const pipe = redis.pipeline();
    for (const id of ids) pipe.hgetall(recordKey(id)).hgetall(votesKey(id));
    const res = (await pipe.exec()) ?? [];
    const out: QuestionRecord[] = [];
    ids.forEach((id, i) => {
      const [e1, h] = res[2 * i] ?? [];
      const [e2, v] = res[2 * i + 1] ?? [];
      if (e1 || e2) throw e1 ?? e2;
      const r = parseRecord(id, (h ?? {}) as Record<string, string>, (v ?? {}) as Record<string, string>);
      if (r) out.push(r);
    });
    return out;
  }

  return {
    async recordQuestion(entry) {
      const now = new Date();
      // Time-ordered and unguessable: ids travel in Slack button values.
      const id = `${now.getTime().toString(36)}-${randomBytes(6).toString('hex')}`;
      const fields: Record<string, string> = {
        ts: now.toISOString(),
        source: entry.source,
        question: entry.question,
        answer: entry.answer,
        refused: entry.refused ? '1' : '0',
        citations: JSON.stringify(entry.citations.map((c) => ({ label: c.label, doc_id: c.doc_id, title: c.title }))),
        latencyMs: String(Math.round(entry.latencyMs)),
        model: entry.model,
      };
      if (entry.channel) fields.channel = entry.channel;
      if (entry.user) fields.user = entry.user;
      if (entry.searchedAs && entry.searchedAs !== entry.question) fields.searchedAs = entry.searchedAs;
      if (entry.topScore !== undefined && Number.isFinite(entry.topScore)) fields.topScore = String(entry.topScore);
      if (entry.messageTs) fields.messageTs = entry.messageTs;
      if (entry.threadTs) fields.threadTs = entry.threadTs;
      // Group names are [a-z0-9_-] (config.ts), so a comma list is unambiguous.
      if (entry.groups?.length) fields.groups = entry.groups.join(',');
      await execChecked(
        redis
          .multi()
          .hset(recordKey(id), fields)
          .expire(recordKey(id), ttl)
          .lpush(listKey, id)
          .ltrim(listKey, 0, keep - 1)
          .expire(listKey, ttl),
        'recording a question',
      );
      return id;
    },
    async recordFeedback(id, vote, user) {
      if (!(await redis.exists(recordKey(id)))) return false;
      await execChecked(redis.multi().hset(votesKey(id), user, vote).expire(votesKey(id), ttl), 'recording a vote');
      return true;
    },
    async get(id) {
      return (await getMany([id]))[0];
    },
    async recent(limit) {
      if (limit <= 0) return [];
      const ids = await redis.lrange(listKey, 0, limit - 1);
      return getMany(ids);
    },
  };
}
