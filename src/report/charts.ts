import { html, type SafeHtml } from './html.ts';

/** One line of a chart: a label and a value per x position (null leaves a gap). */
export interface ChartSeries {
  readonly label: string;
  readonly values: readonly (number | null)[];
  /** Drawn dashed (used for the extrapolated p^k column). */
  readonly dashed?: boolean;
}

const WIDTH = 420;
const HEIGHT = 220;
const PAD = 36;
const COLOURS = ['#1f6feb', '#d1242f', '#1a7f37', '#9a6700', '#8250df', '#57606a'];

function x(i: number, count: number): number {
  return PAD + (count <= 1 ? 0 : (i * (WIDTH - 2 * PAD)) / (count - 1));
}

function y(v: number): number {
  return HEIGHT - PAD - v * (HEIGHT - 2 * PAD);
}

function axes(xLabels: readonly string[]): SafeHtml {
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  return html`<line x1="${PAD}" y1="${HEIGHT - PAD}" x2="${WIDTH - PAD}" y2="${HEIGHT - PAD}" stroke="#888"/><line x1="${PAD}" y1="${PAD}" x2="${PAD}" y2="${HEIGHT - PAD}" stroke="#888"/>${ticks.map(
    (t) => html`<text x="${PAD - 4}" y="${y(t) + 4}" font-size="10" text-anchor="end">${t.toFixed(2)}</text>`,
  )}${xLabels.map((l, i) => html`<text x="${x(i, xLabels.length)}" y="${HEIGHT - PAD + 14}" font-size="10" text-anchor="middle">${l}</text>`)}`;
}

/** An inline SVG line chart of rates in [0, 1] (pass^k and pass@k curves). */
export function lineChart(title: string, xLabels: readonly string[], series: readonly ChartSeries[]): SafeHtml {
  const lines = series.map((s, si) => {
    const colour = COLOURS[si % COLOURS.length] ?? '#000';
    const points = s.values.flatMap((v, i) => (v === null ? [] : [`${x(i, xLabels.length).toFixed(1)},${y(v).toFixed(1)}`]));
    return html`<polyline fill="none" stroke="${colour}" stroke-width="2" ${s.dashed ? html`stroke-dasharray="5,4"` : ''} points="${points.join(' ')}"/>${s.values.map((v, i) =>
      v === null ? '' : html`<circle cx="${x(i, xLabels.length).toFixed(1)}" cy="${y(v).toFixed(1)}" r="3" fill="${colour}"><title>${s.label} ${xLabels[i]}: ${v.toFixed(3)}</title></circle>`,
    )}`;
  });
  const legend = series.map((s, si) => html`<text x="${WIDTH - PAD}" y="${PAD + 12 * si}" font-size="10" text-anchor="end" fill="${COLOURS[si % COLOURS.length]}">${s.label}</text>`);
  return html`<figure><figcaption>${title}</figcaption><svg width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="${title}">${axes(xLabels)}${lines}${legend}</svg></figure>`;
}

/** An inline SVG bar chart of counts (the k-of-n histogram). */
export function barChart(title: string, labels: readonly string[], counts: readonly number[]): SafeHtml {
  const max = Math.max(1, ...counts);
  const slot = (WIDTH - 2 * PAD) / Math.max(1, counts.length);
  const bars = counts.map((c, i) => {
    const h = (c / max) * (HEIGHT - 2 * PAD);
    const left = PAD + i * slot + slot * 0.15;
    return html`<rect x="${left.toFixed(1)}" y="${(HEIGHT - PAD - h).toFixed(1)}" width="${(slot * 0.7).toFixed(1)}" height="${h.toFixed(1)}" fill="#1f6feb"><title>${labels[i]}: ${c}</title></rect><text x="${(left + slot * 0.35).toFixed(1)}" y="${(HEIGHT - PAD - h - 3).toFixed(1)}" font-size="10" text-anchor="middle">${c}</text><text x="${(left + slot * 0.35).toFixed(1)}" y="${HEIGHT - PAD + 14}" font-size="10" text-anchor="middle">${labels[i]}</text>`;
  });
  return html`<figure><figcaption>${title}</figcaption><svg width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="${title}"><line x1="${PAD}" y1="${HEIGHT - PAD}" x2="${WIDTH - PAD}" y2="${HEIGHT - PAD}" stroke="#888"/>${bars}</svg></figure>`;
}
