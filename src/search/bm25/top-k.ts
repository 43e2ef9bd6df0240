// Min-heap of the current top-k with the worst hit at the root. "Worse" means a lower score, or
// an equal score and a larger id, which makes the cut deterministic.
import type { LexicalHit } from './types.ts';

export interface TopK {
  readonly full: boolean;
  /** The score a new hit must reach (ties then go by id); -Infinity until k hits are held. */
  readonly threshold: number;
  /** Whether (score, ord) would enter the heap. */
  admits(score: number, ord: number): boolean;
  push(score: number, ord: number): void;
  /** The hits held, best first. */
  results(): LexicalHit[];
}

/** A heap for k hits; ordToId names ordinals (for ties and results) and must not change while it is used. */
export function createTopK(k: number, ordToId: string[]): TopK {
  const scores = new Float64Array(k);
  const ords = new Int32Array(k);
  let size = 0;
  const worse = (i: number, j: number) => scores[i] < scores[j] || (scores[i] === scores[j] && ordToId[ords[i]] > ordToId[ords[j]]);
  const swap = (i: number, j: number) => {
    const s = scores[i];
    scores[i] = scores[j];
    scores[j] = s;
    const o = ords[i];
    ords[i] = ords[j];
    ords[j] = o;
  };
  const down = (i0: number) => {
    let i = i0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= size) return;
      let m = l;
      if (l + 1 < size && worse(l + 1, l)) m = l + 1;
      if (!worse(m, i)) return;
      swap(i, m);
      i = m;
    }
  };
  return {
    get full() {
      return size === k;
    },
    get threshold() {
      return size === k ? scores[0] : -Infinity;
    },
    admits(score: number, ord: number): boolean {
      if (size < k) return true;
      return score > scores[0] || (score === scores[0] && ordToId[ord] < ordToId[ords[0]]);
    },
    push(score: number, ord: number): void {
      if (size < k) {
        let i = size++;
        scores[i] = score;
        ords[i] = ord;
        while (i > 0) {
          const p = (i - 1) >> 1;
          if (!worse(i, p)) break;
          swap(i, p);
          i = p;
        }
      } else {
        scores[0] = score;
        ords[0] = ord;
        down(0);
      }
    },
    results(): LexicalHit[] {
      const out: LexicalHit[] = [];
      for (let i = 0; i < size; i++) out.push({ id: ordToId[ords[i]], score: scores[i] });
      return out.sort((x, y) => y.score - x.score || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
    },
  };
}
