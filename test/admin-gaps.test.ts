// Pure parts of the dashboard: gap grouping, CSV, time buckets, escaping and the SVG chart.
import { describe, expect, it } from 'vitest';
import { countPerBucket } from '../src/admin/activity-views.ts';
import { csvCell, gapReason, gapsCsv, groupGaps, toCsv } from '../src/admin/gaps.ts';
import { barChart } from '../src/admin/views/chart.ts';
import { escapeHtml, html, safeJson } from '../src/admin/views/html.ts';

const q = (
  question: string,
  extra: Partial<{
    refused: boolean;
    citations: unknown[];
    channel: string;
    ts: string;
    feedback: { up: number; down: number };
    topScore: number;
  }> = {},
) => ({
  question,
  refused: true,
  citations: [],
  ts: '2024-05-01T10:00:00.000Z',
  ...extra,
});

describe('knowledge gaps', () => {
  it('keeps refused and weak answers only', () => {
    expect(gapReason(q('a'))).toBe('refused');
    expect(gapReason(q('a', { refused: false }))).toBe('no citations');
    expect(gapReason(q('a', { refused: false, citations: [1] }))).toBeUndefined();
    expect(gapReason(q('a', { refused: false, citations: [1], feedback: { up: 0, down: 2 } }))).toBe('thumbs down');
    expect(gapReason(q('a', { refused: false, citations: [1], topScore: 0.1 }), { minTopScore: 0.5 })).toBe('low score');
  });

  it('groups questions sharing stemmed terms, with counts and channels', () => {
    const groups = groupGaps([
      q('How do I book the confocal microscope?', { channel: 'C1' }),
      q('Booking the confocal for next week', { channel: 'C2', ts: '2024-05-02T10:00:00.000Z' }),
      q('Who maintains the confocal microscopes?', { channel: 'C1' }),
      q('Where is the liquid nitrogen dewar?'),
      q('Answered fine', { refused: false, citations: [1] }),
    ]);
    expect(groups[0].terms[0]).toBe('confoc');
    expect(groups[0].count).toBe(3);
    expect(groups[0].channels).toEqual({ C1: 2, C2: 1 });
    expect(groups[0].topic).toMatch(/^confocal/);
    expect(groups[0].lastAsked).toBe('2024-05-02T10:00:00.000Z');
    expect(groups[1].count).toBe(1);
    expect(groups[1].channels).toEqual({ public: 1 });
    expect(groups.reduce((n, g) => n + g.count, 0)).toBe(4);
  });

  it('counts channels named like Object.prototype members', () => {
    const [g] = groupGaps([
      q('pipette calibration', { channel: 'constructor' }),
      q('pipette calibration drift', { channel: '__proto__' }),
      q('pipette calibration log', { channel: '__proto__' }),
    ]);
    expect(Object.entries(g.channels).sort()).toEqual([
      ['__proto__', 2],
      ['constructor', 1],
    ]);
    expect(gapsCsv([g])).toContain('"__proto__ (2); constructor (1)"');
  });

  it('quotes CSV cells and neutralises formulas', () => {
    expect(csvCell('plain')).toBe('"plain"');
    expect(csvCell('a;=1+1')).toBe('"a;=1+1"');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    for (const f of ['=1+1', '+1', '-1', '@SUM(A1)']) expect(csvCell(f).startsWith(`"'${f[0]}`)).toBe(true);
    expect(csvCell('=cmd|" /C calc"!A0')).toBe(`"'=cmd|"" /C calc""!A0"`);
    expect(
      toCsv([
        ['a', 1],
        ['b', 2],
      ]),
    ).toBe('"a","1"\r\n"b","2"\r\n');
    const csv = gapsCsv(groupGaps([q('=2+3 pipette calibration'), q('pipette calibration')]));
    expect(csv.split('\r\n')[1]).toContain("'=2+3 pipette calibration");
  });
});

describe('dashboard views', () => {
  it('counts timestamps per hour bucket', () => {
    const now = Date.UTC(2024, 4, 1, 12, 30);
    const b = countPerBucket(
      [Date.UTC(2024, 4, 1, 12, 5), Date.UTC(2024, 4, 1, 11, 59), Date.UTC(2024, 4, 1, 11, 0), Date.UTC(2024, 3, 1)],
      now,
      3,
      3_600_000,
    );
    expect(b.map((x) => x.count)).toEqual([0, 2, 1]);
    expect(b[2].start).toBe(Date.UTC(2024, 4, 1, 12));
  });

  it('escapes interpolations but not nested templates', () => {
    expect(escapeHtml(`<a href="x">'&`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;');
    const inner = html`<b>${'<i>'}</b>`;
    expect(html`<p>${inner}${['<x>', 1]}</p>`.value).toBe('<p><b>&lt;i&gt;</b>&lt;x&gt;1</p>');
    expect(safeJson({ t: '</script><b>&' })).toBe('{"t":"\\u003c/script\\u003e\\u003cb\\u003e\\u0026"}');
    expect(JSON.parse(safeJson({ t: '</script>' }))).toEqual({ t: '</script>' });
  });

  it('draws one bar per non-empty bucket', () => {
    const buckets = [
      { start: 0, count: 0 },
      { start: 3_600_000, count: 4 },
      { start: 7_200_000, count: 1 },
    ];
    const svg = barChart([{ name: 'questions', cls: 'q', buckets }], { title: 'T <x>' }).value;
    expect(svg.match(/<rect /g)).toHaveLength(2);
    expect(svg).toContain('T &lt;x&gt; (questions: 5)');
    expect(svg).not.toContain('<x>');
  });
});
