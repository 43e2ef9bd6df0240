// What a procedure looks like when nobody said it is one: numbered steps ("1.", "1)", "Step 1:",
// a list, or a step number on a line of its own as protocols.io prints it) that mostly state lab
// quantities (volumes, temperatures, times, speeds). A wiki page's "1. Collect your key card"
// list has steps but no quantities; a paper's numbered Methods have both, which is why papers are
// told apart by their Results/Discussion sections (detect-kind.ts), not here. Pure.
import type { Block } from '../../types.ts';
import { normalizeSpace } from './text.ts';

/** "Step 3", "Paso 3", "Etapa 3" at the start of a heading, paragraph or line. */
export const STEP_MARKER = /^\s*(?:step|paso|etapa)\s*(\d{1,3})\b\s*[:.)\-–]?\s*/i;
/** "3. Centrifuge..." / "3) Centrifuge...": numbered lines in text that lost its list structure. */
export const NUMBERED_LINE = /^\s*(\d{1,3})[.)]\s+(?=\S)/;
/** "3 Centrifuge...": a bare step number (protocols.io prints it in a column of its own). */
export const BARE_NUMBER_LINE = /^\s*(\d{1,3})\s+(?=\p{Lu})/u;

/**
 * A quantity or condition a bench step states: 50 µl, 2 ml, 10 ng, 5 mM, 1%, 37 °C, 30 s,
 * 10 min, 1 h, 250 rpm, 14,000 × g, 100 V, 500 bp; or overnight / on ice / room temperature.
 */
const LAB_QUANTITY = new RegExp(
  [
    String.raw`\d(?:[\d,.]*\d)?\s*(?:[µμu]l|[µμu]L|ml|mL|nl|nL|µg|μg|ug|ng|pg|mg|kg|g|[µμunpm]M|M|%|°\s*C|ºC|℃|` +
      String.raw`s|sec|secs|seconds?|min|mins|minutes?|h|hr|hrs|hours?|d|days?|rpm|×\s*g|x\s*g|xg|V|kV|mA|bp|kb|kDa|U|units?|` +
      String.raw`minutos?|horas?|segundos?|d[ií]as?)(?![\p{L}\d])`,
    String.raw`\b(?:overnight|on ice|room temperature|toda la noche|en hielo|temperatura ambiente)\b`,
  ].join('|'),
  'iu',
);

export const hasLabQuantity = (text: string): boolean => LAB_QUANTITY.test(text);

/** Headings that only say "here come the steps". */
export const PROCEDURE_HEADING =
  /^(?:procedure|protocol|method|steps|instructions|workflow|procedimiento|protocolo|m[ée]todo|pasos|instrucciones)$/i;

export interface ProcedureShape {
  /** Steps found (list items of ordered lists, "Step N" headings or lines, numbered lines). */
  steps: number;
  /** Steps that state a lab quantity or condition. */
  withQuantities: number;
  /** Share of the document's text that is step text. */
  share: number;
  /** A heading (or short stand-alone line) says "Procedure", "Steps", "Protocol"... */
  procedureHeading: boolean;
}

/**
 * Steps written as numbered lines of paragraphs. Numbers must count up for a bare number ("3
 * Centrifuge" after "2 ..." is a step, "50 Hz" is not); a line without a number continues the
 * step of its own paragraph only.
 */
function numberedLines() {
  const steps: string[] = [];
  let expected = 1;
  return {
    steps,
    paragraph(lines: string[]): void {
      let open = false;
      for (const raw of lines) {
        const line = normalizeSpace(raw);
        if (!line) continue;
        const m = NUMBERED_LINE.exec(line) ?? BARE_NUMBER_LINE.exec(line);
        const isStep = m !== null && (Number(m[1]) === expected || (NUMBERED_LINE.test(line) && /^\S+\s+\p{Lu}/u.test(line)));
        if (isStep) {
          steps.push(line.slice(m[0].length));
          expected = Number(m[1]) + 1;
          open = true;
        } else if (open) {
          steps[steps.length - 1] += ` ${line}`;
        }
      }
    },
  };
}

export function procedureShape(blocks: Block[]): ProcedureShape {
  const steps: string[] = [];
  const numbered = numberedLines();
  let total = 0;
  let procedureHeading = false;
  blocks.forEach((b, i) => {
    if (b.type === 'page') return;
    if (b.type === 'heading' || (b.type === 'paragraph' && b.text.length <= 40)) {
      if (PROCEDURE_HEADING.test(normalizeSpace(b.text).replace(/[:.]$/, ''))) procedureHeading = true;
    }
    switch (b.type) {
      case 'list':
        total += b.items.reduce((n, t) => n + t.length, 0);
        if (b.ordered && b.items.length >= 2) steps.push(...b.items);
        return;
      case 'heading':
        total += b.text.length;
        if (STEP_MARKER.test(b.text)) {
          // A "Step 2: Phase separation" heading: its text is the paragraph under it.
          const next = blocks[i + 1];
          steps.push(`${b.text.replace(STEP_MARKER, '')} ${next?.type === 'paragraph' ? next.text : ''}`);
        }
        return;
      case 'paragraph': {
        total += b.text.length;
        const lines = b.text.split(/\r?\n/);
        const marked = lines.filter((l) => STEP_MARKER.test(l));
        if (marked.length) steps.push(...marked.map((l) => l.replace(STEP_MARKER, '')));
        else numbered.paragraph(lines);
        return;
      }
      case 'table':
        total += b.rows.flat().join(' ').length;
        return;
      case 'code':
        total += b.text.length;
        return;
      case 'slide':
        return;
    }
  });
  steps.push(...numbered.steps);
  const stepChars = steps.reduce((n, s) => n + s.length, 0);
  return {
    steps: steps.length,
    withQuantities: steps.filter(hasLabQuantity).length,
    share: total > 0 ? Math.min(1, stepChars / total) : 0,
    procedureHeading,
  };
}

/**
 * Steps that read as a bench procedure on their own: at least four, most of them stating
 * quantities, and either most of the text or under a "Procedure" heading.
 */
export function readsAsProcedure(shape: ProcedureShape): boolean {
  return shape.steps >= 4 && shape.withQuantities >= shape.steps / 2 && (shape.share >= 0.4 || shape.procedureHeading);
}
