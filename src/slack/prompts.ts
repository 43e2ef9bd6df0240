// Suggested prompts (labbot's DM in Slack, and the App Home's example questions): the lab's own
// from labbot.config.json (`suggestedPrompts`), else derived from what is indexed, so each lab's
// prompts name its own material instead of someone else's "confocal microscope": one per kind of
// document the person may read (a protocol, a paper, a wiki page, a slide deck), naming its
// newest and largest document. Pure: documents in, prompts out. Titles are document text, so they
// are cleaned of Slack's control characters (&, <, >) and of invisible characters before use.
import type { Kind } from '../types.ts';

export interface SuggestedPrompt {
  title: string;
  message: string;
}

/** Slack shows up to 4 suggested prompts. */
const MAX_PROMPTS = 4;
const TITLE_CHARS = 60;

export interface PromptDoc {
  kind: Kind;
  title: string;
  access: string;
  year?: number;
  chunkIds: string[];
}

const TEMPLATES: [Kind, (title: string) => SuggestedPrompt][] = [
  ['protocol', (t) => ({ title: 'Steps of a protocol', message: `What are the steps of the protocol “${t}”?` })],
  ['paper', (t) => ({ title: 'Findings of a paper', message: `What are the main findings of “${t}”?` })],
  ['wiki', (t) => ({ title: 'From the lab wiki', message: `What does the wiki page “${t}” say?` })],
  ['slides', (t) => ({ title: 'From a slide deck', message: `What do the slides “${t}” cover?` })],
  ['note', (t) => ({ title: 'From the notes', message: `What do the notes “${t}” say?` })],
];

/** A document title fit to be part of a prompt: one line, no markup characters, no invisible characters, short. */
export function promptTitle(title: string): string {
  const flat = title
    .replace(/[\p{Cc}\p{Cf}]/gu, ' ')
    .replace(/[<>&`“”"]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (flat.length <= TITLE_CHARS) return flat;
  const cut = flat.slice(0, TITLE_CHARS - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > TITLE_CHARS / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** Newest first, then the largest (most chunks), then by title: stable across restarts. */
function better(a: PromptDoc, b: PromptDoc): number {
  return (b.year ?? 0) - (a.year ?? 0) || b.chunkIds.length - a.chunkIds.length || a.title.localeCompare(b.title);
}

/**
 * The prompts for someone who may read `readable` groups: the configured ones, else one per kind
 * of document among those they may read (none when nothing readable is indexed).
 */
export function suggestedPrompts(
  configured: SuggestedPrompt[] | undefined,
  docs: Iterable<PromptDoc>,
  readable: string[],
): SuggestedPrompt[] {
  if (configured?.length) return configured.slice(0, MAX_PROMPTS);
  const groups = new Set(readable);
  const best = new Map<Kind, PromptDoc>();
  for (const d of docs) {
    if (!groups.has(d.access) || !promptTitle(d.title)) continue;
    const cur = best.get(d.kind);
    if (!cur || better(d, cur) < 0) best.set(d.kind, d);
  }
  const out: SuggestedPrompt[] = [];
  for (const [kind, make] of TEMPLATES) {
    const d = best.get(kind);
    if (d && out.length < MAX_PROMPTS) out.push(make(promptTitle(d.title)));
  }
  return out;
}
