// The App Home tab (app_home_opened -> views.publish), built from values (pure). Every member sees
// what helps them: how to ask, what labbot knows (in words: which sources, how many papers,
// protocols, slide decks, wiki pages, counted over what they may read), example questions, and
// their own recent questions as links to the threads where they were answered. Admins also see
// the index itself: version, chunks, per-source sync, queue counters.
import type { Kind } from '../types.ts';
import { escapeMrkdwn, type Block } from './format.ts';
import { slackStrings } from './strings.ts';

export interface HomeView {
  type: 'home';
  blocks: (Block | { type: 'header'; text: { type: 'plain_text'; text: string; emoji?: boolean } })[];
}

/** Recent questions shown: enough to find one again, few enough to read at a glance. */
const HOME_RECENT = 5;
const QUESTION_CHARS = 200;
const SECTION_CHARS = 3000;

export interface HomeQuestion {
  question: string;
  /** ISO time it was asked. */
  ts: string;
  /** A link to its thread, when it was asked in a conversation labbot can link to. */
  link?: string;
}

export interface HomeData {
  /** Per source id: documents by kind, counted over what the viewer may read. */
  known: Record<string, Partial<Record<Kind, number>>>;
  examples: string[];
  recent: HomeQuestion[];
  /** Admins only: the index status (`/labbot status`). */
  admin?: { indexStatus: string };
}

const KIND_WORDS: Record<Kind, [string, string]> = {
  paper: ['paper', 'papers'],
  protocol: ['protocol', 'protocols'],
  slides: ['slide deck', 'slide decks'],
  wiki: ['wiki page', 'wiki pages'],
  note: ['note', 'notes'],
};
const KIND_ORDER: Kind[] = ['paper', 'protocol', 'slides', 'wiki', 'note'];

function clip(text: string, max: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** "2 papers, 3 protocols and 1 slide deck". */
export function kindsInWords(counts: Partial<Record<Kind, number>>): string {
  const parts = KIND_ORDER.filter((k) => (counts[k] ?? 0) > 0).map((k) => `${counts[k]} ${KIND_WORDS[k][counts[k] === 1 ? 0 : 1]}`);
  if (parts.length <= 1) return parts[0] ?? '';
  return `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

function knownText(known: HomeData['known']): string {
  const lines = Object.keys(known)
    .sort()
    .map((source) => [source, kindsInWords(known[source])] as const)
    .filter(([, words]) => words)
    .map(([source, words]) => `• *${escapeMrkdwn(source)}*: ${words}`);
  return lines.length ? lines.join('\n') : '_Nothing indexed that you can read yet._';
}

function recentText(recent: HomeQuestion[]): string {
  if (!recent.length) return '_No questions yet. Ask one in a channel with @labbot, here in Messages, or with `/labbot ask`._';
  return recent
    .slice(0, HOME_RECENT)
    .map((r) => {
      const q = escapeMrkdwn(clip(r.question, QUESTION_CHARS));
      const when = escapeMrkdwn(r.ts.slice(0, 16).replace('T', ' '));
      return `• ${r.link ? `<${r.link}|${q}>` : q} _(${when} UTC)_`;
    })
    .join('\n');
}

const section = (text: string): Block => ({
  type: 'section',
  text: { type: 'mrkdwn', text: text.length > SECTION_CHARS ? `${text.slice(0, SECTION_CHARS - 1)}…` : text },
});

export function homeView(d: HomeData): HomeView {
  const blocks: HomeView['blocks'] = [
    { type: 'header', text: { type: 'plain_text', text: 'labbot', emoji: true } },
    section(slackStrings('en').help),
    { type: 'divider' },
    section(`*What I know*\n${knownText(d.known)}`),
  ];
  if (d.examples.length) blocks.push(section(`*Try asking*\n${d.examples.map((e) => `• ${escapeMrkdwn(e)}`).join('\n')}`));
  blocks.push({ type: 'divider' }, section(`*Your recent questions*\n${recentText(d.recent)}`));
  if (d.admin) blocks.push({ type: 'divider' }, section(`*For admins: the index*\n${d.admin.indexStatus}`));
  return { type: 'home', blocks };
}

/**
 * A link to a question's message in Slack (its thread opens with it), from the workspace URL that
 * auth.test gives; undefined for anything that is not a Slack id and ts.
 */
export function permalink(
  workspaceUrl: string | undefined,
  channel: string | undefined,
  messageTs: string | undefined,
  threadTs: string | undefined,
): string | undefined {
  if (!workspaceUrl || !/^https:\/\/[a-z0-9-]+(\.[a-z0-9-]+)*\.slack\.com\/$/.test(workspaceUrl)) return undefined;
  if (!channel || !/^[CDG][A-Z0-9]+$/.test(channel) || !messageTs || !/^\d+\.\d+$/.test(messageTs)) return undefined;
  const base = `${workspaceUrl}archives/${channel}/p${messageTs.replace('.', '')}`;
  return threadTs && threadTs !== messageTs && /^\d+\.\d+$/.test(threadTs) ? `${base}?thread_ts=${threadTs}&cid=${channel}` : base;
}
