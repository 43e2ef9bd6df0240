// The context budget: which retrieved passages the answer step receives. One rule for every
// path that reads passages for an answer (the model's prompt, the extractive answerer) and for
// the evaluation that scores what they received, so a figure never describes passages the
// answer never saw. Pure: values in, values out.

/**
 * Passages that fit `budget` characters of passage text, best first: the first passage that does
 * not fit ends the context (a later, shorter one is not slipped in: it would reorder evidence by
 * size, not by rank). A first passage longer than the whole budget is cut to it, so a question
 * with retrieved passages never reaches the answer step with none.
 */
export function fitContext<T extends { text: string }>(passages: T[], budget: number): T[] {
  const out: T[] = [];
  let used = 0;
  for (const p of passages) {
    if (used + p.text.length > budget) {
      if (out.length === 0) out.push({ ...p, text: p.text.slice(0, budget) });
      break;
    }
    out.push(p);
    used += p.text.length;
  }
  return out;
}
