// A small grouped bar chart as inline SVG, rendered on the server (no chart library, no CDN).
import type { Bucket } from '../activity-views.ts';
import { html, type Html } from './html.ts';

export interface Series {
  name: string;
  /** A CSS class defined in admin.css (fill colour). */
  cls: string;
  buckets: Bucket[];
}

const W = 720;
const H = 160;
const PAD = { l: 32, r: 8, t: 10, b: 22 };

export function barChart(series: Series[], opts: { title: string; labelEvery?: number; label?: (start: number) => string }): Html {
  const n = series[0]?.buckets.length ?? 0;
  const max = Math.max(1, ...series.flatMap((s) => s.buckets.map((b) => b.count)));
  const plotW = W - PAD.l - PAD.r;
  const plotH = H - PAD.t - PAD.b;
  const slot = n ? plotW / n : plotW;
  const barW = Math.max(1, (slot * 0.8) / Math.max(1, series.length));
  const y = (v: number) => PAD.t + plotH - (v / max) * plotH;
  const label = opts.label ?? ((t: number) => `${String(new Date(t).getHours()).padStart(2, '0')}h`);
  const every = opts.labelEvery ?? Math.max(1, Math.ceil(n / 8));
  const bars = series.flatMap((s, si) =>
    s.buckets.map((b, i) => {
      if (b.count === 0) return html``;
      const x = PAD.l + i * slot + slot * 0.1 + si * barW;
      const top = y(b.count);
      const at = new Date(b.start).toISOString().slice(0, 16).replace('T', ' ');
      return html`<rect class="${s.cls}" x="${x.toFixed(1)}" y="${top.toFixed(1)}" width="${barW.toFixed(1)}"
height="${(PAD.t + plotH - top).toFixed(1)}"><title>${s.name}: ${b.count} (${at} UTC)</title></rect>`;
    }),
  );
  const ticks = (series[0]?.buckets ?? []).map((b, i) =>
    i % every === 0
      ? html`<text x="${(PAD.l + i * slot + slot / 2).toFixed(1)}" y="${H - 6}" text-anchor="middle">${label(b.start)}</text>`
      : html``,
  );
  const totals = series.map((s) => `${s.name}: ${s.buckets.reduce((a, b) => a + b.count, 0)}`).join(', ');
  return html`<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="${opts.title} (${totals})" xmlns="http://www.w3.org/2000/svg">
<title>${opts.title} (${totals})</title>
<line class="axis" x1="${PAD.l}" y1="${PAD.t + plotH}" x2="${W - PAD.r}" y2="${PAD.t + plotH}"/>
<text x="${PAD.l - 4}" y="${PAD.t + 8}" text-anchor="end">${max}</text><text x="${PAD.l - 4}" y="${PAD.t + plotH}" text-anchor="end">0</text>
${bars}${ticks}
</svg>
<p class="legend">${series.map((s) => html`<span class="key ${s.cls}"></span>${s.name} (${s.buckets.reduce((a, b) => a + b.count, 0)}) `)}</p>`;
}
