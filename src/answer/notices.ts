// An answer that cites a retracted paper (or one with an expression of concern) says so in its
// own text, after the claims, once per paper: every surface shows the answer text, whatever it
// does with the Sources list. The sentence is labbot's own wording; nothing from Crossref but the
// kind and the year of the notice reaches it.
import type { Passage } from '../types.ts';
import { citationLabel, type Citation } from './cite.ts';
import { noticeNote, type Language } from './messages.ts';

export function withNoticeNotes(answer: string, citations: Citation[], passages: Passage[], language: Language): string {
  const notes: string[] = [];
  const seen = new Set<string>();
  for (const c of citations) {
    if (!c.notice || seen.has(c.doc_id)) continue;
    seen.add(c.doc_id);
    const p = passages.find((x) => x.docId === c.doc_id);
    // The paper, not the place in it: "[Sharma et al., 2022]".
    const paper = p && citationLabel({ ...p.meta, step: undefined, slide: undefined, page: undefined }, '');
    notes.push(noticeNote(language, paper ?? `"${c.title}"`, c.notice));
  }
  return notes.length ? `${answer}\n\n${notes.join('\n')}` : answer;
}
