import { html, type SafeHtml } from './html.ts';

/** One line of a chart: a label and a value per x position (null leaves a gap). */
export interface ChartSeries {
  readonly label: string;
  readonly values: readonly (number | null)[];
  /** Drawn dashed (used for the extrapolated p^k column). */
  readonly dashed?: boolean;
  /** The line's colour; a run's own (`seriesColour` of its place among the runs) wherever it is drawn. */
  readonly colour?: string;
}

const WIDTH = 420;
const HEIGHT = 220;
const PAD = 36;
const COLOURS = ['#1f6feb', '#d1242f', '#1a7f37', '#9a6700', '#8250df', '#57606a'];

/** The colour of the i-th run (or series): the same index gives the same colour on every chart. */
export function seriesColour(i: number): string {
  return COLOURS[((i % COLOURS.length) + COLOURS.length) % COLOURS.length] ?? '#000';
}
/** About how many px one axis label needs at 10 px type; labels closer than this are thinned. */
const LABEL_PX = 34;

function x(i: number, count: number): number {
  return PAD + (count <= 1 ? 0 : (i * (WIDTH - 2 * PAD)) / (count - 1));
}

function y(v: number): number {
  return HEIGHT - PAD - v * (HEIGHT - 2 * PAD);
}

/** Which of `count` evenly spaced labels to draw so none overlap (the first and last always). */
export function labelStep(count: number, spanPx: number, labelPx = LABEL_PX): number {
  if (count <= 1) return 1;
  const gap = spanPx / (count - 1);
  return Math.max(1, Math.ceil(labelPx / gap));
}

function shown(i: number, count: number, step: number): boolean {
  return i % step === 0 || (i === count - 1 && (count - 1) % step >= step / 2);
}

/** Truncates a label to `max` characters with an ellipsis (the full text goes in a title). */
export function shortLabel(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(1, max - 1))}…`;
}

function axes(xLabels: readonly string[]): SafeHtml {
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  const step = labelStep(xLabels.length, WIDTH - 2 * PAD);
  return html`<line x1="${PAD}" y1="${HEIGHT - PAD}" x2="${WIDTH - PAD}" y2="${HEIGHT - PAD}" stroke="#888"/><line x1="${PAD}" y1="${PAD}" x2="${PAD}" y2="${HEIGHT - PAD}" stroke="#888"/>${ticks.map(
    (t) => html`<text x="${PAD - 4}" y="${y(t) + 4}" font-size="10" text-anchor="end">${t.toFixed(2)}</text>`,
  )}${xLabels.map((l, i) => (shown(i, xLabels.length, step) ? html`<text class="xl" x="${x(i, xLabels.length)}" y="${HEIGHT - PAD + 14}" font-size="10" text-anchor="middle">${l}</text>` : ''))}`;
}

function legend(series: readonly ChartSeries[]): SafeHtml {
  return html`<div class="chart-legend small">${series.map(
    (s, si) => html`<span><svg width="22" height="8" aria-hidden="true"><line x1="0" y1="4" x2="22" y2="4" stroke="${s.colour ?? seriesColour(si)}" stroke-width="2" ${s.dashed ? html`stroke-dasharray="5,4"` : ''}/></svg> ${s.label}</span>`,
  )}</div>`;
}

/** An inline SVG line chart of rates in [0, 1] (pass^k and pass@k curves); the legend sits below the plot. */
export function lineChart(title: string, xLabels: readonly string[], series: readonly ChartSeries[]): SafeHtml {
  const lines = series.map((s, si) => {
    const colour = s.colour ?? seriesColour(si);
    const points = s.values.flatMap((v, i) => (v === null ? [] : [`${x(i, xLabels.length).toFixed(1)},${y(v).toFixed(1)}`]));
    return html`<polyline fill="none" stroke="${colour}" stroke-width="2" ${s.dashed ? html`stroke-dasharray="5,4"` : ''} points="${points.join(' ')}"/>${s.values.map((v, i) =>
      v === null ? '' : html`<circle cx="${x(i, xLabels.length).toFixed(1)}" cy="${y(v).toFixed(1)}" r="3" fill="${colour}"><title>${s.label} ${xLabels[i]}: ${v.toFixed(3)}</title></circle>`,
    )}`;
  });
  return html`<figure class="chart"><figcaption>${title}</figcaption><svg width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${title}">${axes(xLabels)}${lines}</svg>${legend(series)}</figure>`;
}

/** An inline SVG bar chart of counts (the k-of-n histogram); labels are thinned so they never overlap. */
export function barChart(title: string, labels: readonly string[], counts: readonly number[]): SafeHtml {
  const max = Math.max(1, ...counts);
  const slot = (WIDTH - 2 * PAD) / Math.max(1, counts.length);
  const step = labelStep(counts.length, (WIDTH - 2 * PAD) * (1 - 1 / Math.max(1, counts.length)), 26);
  const bars = counts.map((c, i) => {
    const h = (c / max) * (HEIGHT - 2 * PAD);
    const left = PAD + i * slot + slot * 0.15;
    const mid = (left + slot * 0.35).toFixed(1);
    return html`<rect x="${left.toFixed(1)}" y="${(HEIGHT - PAD - h).toFixed(1)}" width="${(slot * 0.7).toFixed(1)}" height="${h.toFixed(1)}" fill="#1f6feb"><title>${labels[i]}: ${c}</title></rect>${
      slot >= 14 || c === max ? html`<text x="${mid}" y="${(HEIGHT - PAD - h - 3).toFixed(1)}" font-size="10" text-anchor="middle">${c}</text>` : ''
    }${shown(i, counts.length, step) ? html`<text class="xl" x="${mid}" y="${HEIGHT - PAD + 14}" font-size="10" text-anchor="middle">${labels[i]}</text>` : ''}`;
  });
  return html`<figure class="chart"><figcaption>${title}</figcaption><svg width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${title}"><line x1="${PAD}" y1="${HEIGHT - PAD}" x2="${WIDTH - PAD}" y2="${HEIGHT - PAD}" stroke="#888"/>${bars}</svg></figure>`;
}

/** One row of an interval chart: a label, a point estimate and its interval. */
export interface IntervalRow {
  readonly label: string;
  readonly value: number | null;
  readonly interval: readonly [number, number] | null;
  /** The row's colour (a run's own); by row order when absent. */
  readonly colour?: string;
}

/**
 * A dot-and-whisker chart of rates in [0, 1], one row per run: labels in their own column
 * (truncated, full text in a title), so many runs never overlap.
 */
export function intervalChart(title: string, rows: readonly IntervalRow[]): SafeHtml {
  const labelW = 230;
  const plotW = 360;
  const rowH = 22;
  const top = 8;
  const height = top + rows.length * rowH + 28;
  const px = (v: number): number => labelW + v * plotW;
  const grid = [0, 0.25, 0.5, 0.75, 1].map((t) => html`<line x1="${px(t)}" y1="${top}" x2="${px(t)}" y2="${height - 22}" stroke="#eaeef2"/><text x="${px(t)}" y="${height - 8}" font-size="10" text-anchor="middle">${t.toFixed(2)}</text>`);
  const marks = rows.map((r, i) => {
    const cy = top + i * rowH + rowH / 2;
    const colour = r.colour ?? seriesColour(i);
    return html`<g class="ci-row"><text x="${labelW - 8}" y="${cy + 4}" font-size="11" text-anchor="end"><title>${r.label}</title>${shortLabel(r.label, 34)}</text>${
      r.interval ? html`<line x1="${px(r.interval[0]).toFixed(1)}" y1="${cy}" x2="${px(r.interval[1]).toFixed(1)}" y2="${cy}" stroke="${colour}" stroke-width="2"/>` : ''
    }${r.value === null ? '' : html`<circle cx="${px(r.value).toFixed(1)}" cy="${cy}" r="4" fill="${colour}"><title>${r.label}: ${r.value.toFixed(3)}${r.interval ? ` [${r.interval[0].toFixed(3)}, ${r.interval[1].toFixed(3)}]` : ''}</title></circle>`}</g>`;
  });
  const width = labelW + plotW + 16;
  return html`<figure class="chart"><figcaption>${title}</figcaption><svg width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${title}">${grid}${marks}</svg></figure>`;
}
