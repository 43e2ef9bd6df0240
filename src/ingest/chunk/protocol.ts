// Protocols: one chunk per step (people ask "what is step 4?"), the materials list as one chunk,
// and the other named sections (Notes, Safety, Troubleshooting...) by heading.

import type { Block, ChunkDraft, ChunkOptions } from '../../types.ts';
import { splitSections, type Section } from './sections.ts';
import { makeChunk, normalizeSpace, packUnits, packWhole, sentenceUnits, type ParsedDoc, type Unit } from './text.ts';
import { BARE_NUMBER_LINE, NUMBERED_LINE, STEP_MARKER } from './steps.ts';
import { blocksToUnits } from './units.ts';

export const MATERIALS_HEADING =
  /\b(materials?|reagents?|equipment|supplies|consumables|you will need|what you need|materiales?|reactivos?|equipos?|necesitar[áa]s?|insumos)\b/i;
const NOT_MATERIALS = /\bmaterials? (?:and|&) methods\b|\bmateriales y m[ée]todos\b/i;
const OTHER_HEADING = new RegExp(
  String.raw`\b(notes?|notas?|safety|seguridad|troubleshooting|problemas|background|introduction|` +
    String.raw`introducci[óo]n|antecedentes|overview|purpose|objetivos?|references|referencias|` +
    String.raw`anticipated results|expected results|resultados esperados|timing|cautions?|precauciones|` +
    String.raw`waste|residuos|disposal|storage|almacenamiento|recipes?|recetas?|solutions|soluciones|` +
    String.raw`buffers|tampones|acknowledg\w*)\b`,
  'i',
);
/** Headings that only say "here come the steps": left out of a step's section path. */
const GENERIC_PROCEDURE =
  /^(procedure|protocol|method|methods|steps|instructions|workflow|procedimiento|protocolo|m[ée]todo|pasos|instrucciones)$/i;

export function isMaterialsLabel(text: string): boolean {
  const t = normalizeSpace(text);
  return t.length <= 80 && MATERIALS_HEADING.test(t) && !NOT_MATERIALS.test(t);
}

type Role = { kind: 'step'; depth: number; number: number } | { kind: 'materials' } | { kind: 'other' } | { kind: 'procedure' };

/** The deepest heading of the path that says what the section is decides its role. */
function roleOf(section: Section): Role {
  for (let i = section.rawPath.length - 1; i >= 0; i--) {
    const h = section.rawPath[i];
    const step = STEP_MARKER.exec(h);
    if (step) return { kind: 'step', depth: i, number: Number(step[1]) };
    if (isMaterialsLabel(h)) return { kind: 'materials' };
    if (OTHER_HEADING.test(h)) return { kind: 'other' };
  }
  return { kind: 'procedure' };
}

function stepSection(parents: string[], n: number): string {
  return [...parents.filter((p) => !GENERIC_PROCEDURE.test(p)), `Step ${n}`].join(' > ');
}

interface Pending {
  section: string;
  units: Unit[];
  step?: number;
}

export function chunkProtocol(doc: ParsedDoc, opts: ChunkOptions): ChunkDraft[] {
  const chunks: ChunkDraft[] = [];
  let pending: Pending | undefined;
  const flush = (): void => {
    if (!pending) return;
    const { section, step } = pending;
    for (const p of packWhole(pending.units, opts)) {
      const extra: Pick<ChunkDraft, 'step' | 'page'> = {};
      if (step !== undefined) extra.step = step;
      if (p.page !== undefined) extra.page = p.page;
      chunks.push(makeChunk(doc.title, section, p.text, extra));
    }
    pending = undefined;
  };
  /** Add units to the pending chunk with this section label, starting a new one if it differs. */
  const add = (section: string, units: Unit[], step?: number): void => {
    if (units.length === 0) return;
    if (!pending || pending.section !== section || pending.step !== step) {
      flush();
      pending = { section, units: [], step };
    }
    pending.units.push(...units);
  };
  const labelled = (label: string, units: Unit[]): Unit[] =>
    units.length === 0
      ? units
      : [{ text: label, sep: '\n\n', page: units[0].page }, ...units.map((u, i) => (i === 0 ? { ...u, sep: '\n' as const } : u))];

  let lastRole: Role | undefined;
  for (const s of splitSections(doc.blocks, doc.title)) {
    const role = roleOf(s);
    const own = s.path[s.path.length - 1] ?? '';
    if (role.kind === 'materials') {
      const units = blocksToUnits(s.blocks, opts, s.page).units;
      // Sub-headings of a materials section ("Reagents", "Equipment") stay visible inside the one chunk.
      const continuing = lastRole?.kind === 'materials' && pending?.section === 'Materials';
      const named = own !== '' && (continuing || own.toLowerCase() !== 'materials');
      add('Materials', named ? labelled(own, units) : units);
    } else if (role.kind === 'step') {
      const parents = s.path.slice(0, role.depth);
      const heading = s.rawPath[role.depth];
      const units = blocksToUnits(s.blocks, opts, s.page).units;
      const sub = s.path.slice(role.depth + 1).join(' > ');
      const body = sub ? labelled(sub, units) : units;
      const continuing = pending?.step === role.number && pending.section === stepSection(parents, role.number);
      const withHeading = body.length > 0 ? labelled(heading, body) : [{ text: heading, sep: '\n\n' as const, page: s.page }];
      add(stepSection(parents, role.number), continuing ? body : withHeading, role.number);
    } else if (role.kind === 'other') {
      flush();
      const { units } = blocksToUnits(s.blocks, opts, s.page);
      for (const p of packUnits(units, opts)) {
        chunks.push(makeChunk(doc.title, s.path.join(' > '), p.text, p.page !== undefined ? { page: p.page } : {}));
      }
    } else {
      flush();
      procedureSection(s, opts, add, flush);
    }
    lastRole = role;
  }
  flush();
  return chunks;
}

/**
 * A section that is neither materials nor a named side section: find its steps. Ordered list
 * items, "Step N" paragraphs and numbered lines each start a step; what follows a step (a note,
 * a table, a bullet list) belongs to it until the next step. Text before the first step, and a
 * "You will need:" paragraph with its list, get their own chunks.
 */
function procedureSection(
  s: Section,
  opts: ChunkOptions,
  add: (section: string, units: Unit[], step?: number) => void,
  flush: () => void,
): void {
  let parents = s.path;
  let label = parents.join(' > ');
  const lines = s.blocks.flatMap((b) => (b.type === 'paragraph' ? b.text.split(/\r?\n/) : []));
  const numberedLines = lines.filter((l) => NUMBERED_LINE.test(l) || BARE_NUMBER_LINE.test(l)).length;
  const procedureLike = numberedLines >= 2 || parents.some((p) => GENERIC_PROCEDURE.test(p));
  /** A step number at the start of a line: "Step 3", "3." / "3)", or a bare "3" that counts on. */
  const stepAt = (line: string, current: number | undefined): RegExpExecArray | null => {
    const m = STEP_MARKER.exec(line) ?? (procedureLike ? NUMBERED_LINE.exec(line) : null);
    if (m) return m;
    const bare = procedureLike ? BARE_NUMBER_LINE.exec(line) : null;
    return bare && Number(bare[1]) === (current ?? 0) + 1 ? bare : null;
  };

  let page = s.page;
  let step: number | undefined;
  let materials = false;
  const blocks = s.blocks;
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i];
    if (b.type === 'page') {
      page = b.number;
      continue;
    }
    if (b.type === 'list' && b.ordered && !materials) {
      const start = b.start ?? 1;
      b.items.forEach((raw, j) => {
        const item = normalizeSpace(raw);
        if (!item) return;
        step = start + j;
        add(stepSection(parents, step), sentenceUnits(`${step}. ${item}`, page), step);
      });
      continue;
    }
    if (b.type === 'paragraph') {
      const text = normalizeSpace(b.text);
      const next = blocks[i + 1];
      if (isMaterialsLabel(text) && (text.endsWith(':') || text.length <= 40) && next?.type === 'list') {
        flush();
        materials = true;
        add('Materials', sentenceUnits(text, page));
        continue;
      }
      if (/^(materials?|materiales|reactivos|reagents|you will need|necesitar[áa]s?)\b[^:]{0,30}:\s*\S/i.test(text)) {
        // "Reagents: Tris-HCl, NaCl, ..." written inline as one paragraph.
        flush();
        add('Materials', sentenceUnits(text, page));
        flush();
        continue;
      }
      materials = false;
      if (procedureLike && isGroupLabel(text, next, (l) => stepAt(l, step) !== null)) {
        // "Anaesthesia", "Clipping": a protocols.io section name printed as a line between steps
        // names the steps that follow, like a sub-heading would.
        flush();
        parents = [...s.path, text];
        label = parents.join(' > ');
        continue;
      }
      let buffer: string[] = [];
      const flushBuffer = (): void => {
        const t = buffer.join(' ').trim();
        buffer = [];
        if (!t) return;
        if (step !== undefined) add(stepSection(parents, step), sentenceUnits(t, page), step);
        else add(label, sentenceUnits(t, page));
      };
      for (const raw of b.text.split(/\r?\n/)) {
        const line = normalizeSpace(raw);
        if (!line) continue;
        const m = stepAt(line, step);
        if (m) {
          flushBuffer();
          step = Number(m[1]);
          buffer.push(line);
          continue;
        }
        buffer.push(line);
      }
      flushBuffer();
      continue;
    }
    const units = blocksToUnits([b], opts, page).units;
    if (materials && units.length > 0) units[0] = { ...units[0], sep: '\n' };
    if (materials) add('Materials', units);
    else if (step !== undefined) add(stepSection(parents, step), units, step);
    else add(label, units);
    if (materials && b.type === 'list') {
      materials = false;
      flush();
    }
  }
}

/** A short title-like line, alone in its paragraph, right before a step. */
function isGroupLabel(text: string, next: Block | undefined, startsStep: (line: string) => boolean): boolean {
  if (text.length > 60 || text.includes('\n') || !/^\p{Lu}/u.test(text) || /[.:;,!?]$/.test(text) || text.split(/\s+/).length > 8)
    return false;
  if (startsStep(text)) return false;
  if (next?.type === 'list') return next.ordered;
  return next?.type === 'paragraph' && startsStep(normalizeSpace(next.text.split(/\r?\n/)[0]));
}
