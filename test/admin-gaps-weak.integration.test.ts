// Knowledge gaps, "weakly supported": questions answered with citations but whose best passage
// scored below the config's gaps.minTopScore reach the dashboard and its CSV, through the real
// ask API (which records the score) on a real `serve`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAB, startAdminServer, TOKEN, type AdminServer } from './admin-server.ts';

const bearer = { authorization: `Bearer ${TOKEN}` };
const QUESTIONS = ['Which antibody do we use for p53 Western blots?', 'Which p53 antibody dilution for Western blots?'];

async function askAll(s: AdminServer): Promise<number[]> {
  const scores: number[] = [];
  for (const question of QUESTIONS) {
    const res = await fetch(`${s.url}/api/ask`, {
      method: 'POST',
      headers: { ...bearer, 'content-type': 'application/json' },
      body: JSON.stringify({ question }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { refused: boolean; citations: unknown[]; passages: { score: number }[] };
    // Answered and cited: without the score rule these are not gaps at all.
    expect(body.refused).toBe(false);
    expect(body.citations.length).toBeGreaterThan(0);
    scores.push(body.passages[0]!.score);
  }
  return scores;
}

const csvLines = async (s: AdminServer) =>
  (await (await fetch(`${s.url}/admin/gaps.csv`, { headers: bearer })).text())
    .replace(/^\ufeff/, '')
    .split('\r\n')
    .filter(Boolean);

describe('knowledge gaps: weakly supported answers', () => {
  let strict: AdminServer;
  let lax: AdminServer;
  let scores: number[];

  beforeAll(async () => {
    // Above any score these answers get: both count as weakly supported.
    strict = await startAdminServer({
      env: { LABBOT_WORKER: 'off' },
      sources: [{ id: 'lab', type: 'folder', path: LAB }],
      fileConfig: { gaps: { minTopScore: 1000 } },
    });
    lax = await startAdminServer({
      env: { LABBOT_WORKER: 'off' },
      sources: [{ id: 'lab', type: 'folder', path: LAB }],
      fileConfig: { gaps: { minTopScore: -1000 } },
    });
    scores = await askAll(strict);
    await askAll(lax);
  });
  afterAll(async () => {
    await strict?.close();
    await lax?.close();
  });

  it('lists answers whose best passage scored below gaps.minTopScore, on the page and in the CSV', async () => {
    expect(Math.max(...scores)).toBeLessThan(1000);
    const page = await (await fetch(`${strict.url}/admin`, { headers: bearer })).text();
    const gaps = page.slice(page.indexOf('<section id="gaps">'));
    for (const q of QUESTIONS) expect(gaps).toContain(`${q} <small class="muted">(low score)</small>`);
    const lines = await csvLines(strict);
    const row = lines.find((l) => l.includes(QUESTIONS[0]));
    expect(row, lines.join('\n')).toBeDefined();
    // questions, refused, weak
    expect(row).toMatch(/,"2","0","2",/);
  });

  it('lists none of them when every answer clears the threshold', async () => {
    const page = await (await fetch(`${lax.url}/admin`, { headers: bearer })).text();
    expect(page.slice(page.indexOf('<section id="gaps">'))).toContain('No gaps in the recent questions.');
    expect(await csvLines(lax)).toEqual(['"topic","terms","questions","refused","weak","channels","last_asked","examples"']);
  });
});
