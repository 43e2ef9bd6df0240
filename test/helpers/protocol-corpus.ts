// A folder of local protocols without URLs: a 60-step public one and a pi-only one, for the
// document view (Sources link to labbot's view of a file that has no web address).
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const PUBLIC_URL = 'https://labbot.test';
export const LINK_SECRET = 'test-link-secret-0123456789abcdef0123456789';
export const STEPS = 60;

/** Step n of the midiprep: a distinct buffer name and volume, so a question can name one step. */
export const midiprepStep = (n: number) => `Add ${n * 10} µL of buffer QX${n} and invert the tube ${n} times before the next spin.`;

export function protocolFolder(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-protocols-'));
  const steps = Array.from(
    { length: STEPS },
    (_, i) => `${i + 1}. ${midiprepStep(i + 1)}${i === 9 ? ' Label it `<script>alert(1)</script>` & date it.' : ''}`,
  ).join('\n');
  writeFileSync(
    path.join(dir, 'midiprep.md'),
    `---\ntitle: Plasmid midiprep\nkind: protocol\nauthors: [Hannah Lee]\nyear: 2024\n---\n\n# Plasmid midiprep\n\n## Procedure\n\n${steps}\n`,
  );
  mkdirSync(path.join(dir, 'pi'));
  writeFileSync(
    path.join(dir, 'pi', 'embargoed-assay.md'),
    '---\ntitle: Embargoed kinase assay\nkind: protocol\naccess: pi-only\nyear: 2025\n---\n\n# ' +
      'Embargoed kinase assay\n\n## Procedure\n\n1. Thaw the ORIOLE-7 kinase on ice for ten ' +
      'minutes.\n2. Mix ORIOLE-7 with substrate peptide at a 1:4 ratio.\n3. Read the plate at ' +
      '450 nm after thirty minutes.\n',
  );
  return dir;
}
