/**
 * Draws a ChartSpec as an inline SVG line chart: axes with round-number ticks, axis labels, a
 * legend, several series, gaps where values are missing, and interval bands or whiskers.
 * Styling that does not depend on the data (fonts, grid colour) comes from the page's CSS
 * classes, which keeps each chart small. Every point carries a `<title>`, so hovering shows
 * its value without any script.
 */
import { escapeHtml } from './escape-html.js';
import { formatTick, niceTicks } from './nice-ticks.js';
import { palette, type ChartSpec, type Point, type Series } from './chart-types.js';

const WIDTH = 560;
const HEIGHT = 300;
const MARGIN = { left: 58, right: 16, bottom: 42 };
const CHAR_WIDTH = 6.4; // average width of an 11px sans-serif character, for legend layout
const DASHES = { solid: '', dashed: '6 4', dotted: '1.5 3' } as const;

const finite = (v: number | null | undefined): v is number => typeof v === 'number' && Number.isFinite(v);
const r1 = (v: number) => Math.round(v * 10) / 10;

/** True when at least one series has a value to draw. */
export function chartHasData(spec: ChartSpec): boolean {
  return spec.series.some((s) => s.points.some((p) => finite(p[1]) && finite(p[0])));
}

function colorOf(series: Series, index: number): string {
  return series.color ?? palette[index % palette.length]!;
}

/** Splits points (sorted by x) into runs without missing values: each run is one line. */
export function splitAtGaps(points: readonly Point[]): Array<Array<readonly [number, number]>> {
  const runs: Array<Array<readonly [number, number]>> = [];
  let current: Array<readonly [number, number]> = [];
  for (const [x, y] of [...points].sort((a, b) => a[0] - b[0])) {
    if (finite(x) && finite(y)) {
      current.push([x, y]);
    } else if (current.length > 0) {
      runs.push(current);
      current = [];
    }
  }
  if (current.length > 0) runs.push(current);
  return runs;
}

interface Layout {
  readonly legendRows: Array<Array<{ series: Series; index: number; x: number }>>;
  readonly top: number;
}

function layoutLegend(spec: ChartSpec): Layout {
  const rows: Layout['legendRows'] = [];
  if (spec.series.length > 0) {
    let row: Layout['legendRows'][number] = [];
    let x = MARGIN.left;
    spec.series.forEach((series, index) => {
      const width = 28 + series.name.length * CHAR_WIDTH + 14;
      if (row.length > 0 && x + width > WIDTH - MARGIN.right) {
        rows.push(row);
        row = [];
        x = MARGIN.left;
      }
      row.push({ series, index, x });
      x += width;
    });
    rows.push(row);
  }
  return { legendRows: rows, top: 14 + rows.length * 16 };
}

function formatValue(v: number, percent: boolean): string {
  if (percent) return `${(v * 100).toFixed(1)}%`;
  return Math.abs(v) >= 1e4 || v === 0 ? String(Math.round(v)) : Number(v.toPrecision(4)).toString();
}

export function renderLineChart(spec: ChartSpec): string {
  const { legendRows, top } = layoutLegend(spec);
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - top - MARGIN.bottom;
  const xs: number[] = [];
  const ys: number[] = [...(spec.yInclude ?? [])];
  for (const s of spec.series) {
    // Every x counts, measured or not, so charts of one run share their x range.
    for (const [x, y] of s.points) {
      if (finite(x)) xs.push(x);
      if (finite(x) && finite(y)) ys.push(y);
    }
    for (const [x, lo, hi] of s.intervals ?? []) if (finite(x)) for (const v of [lo, hi]) if (finite(v)) ys.push(v);
  }
  const percent = spec.percent === true;
  const xTicks = niceTicks(Math.min(...xs), Math.max(...xs), { integer: xs.every(Number.isInteger), extend: false, target: 6 });
  const yTicks = niceTicks(Math.min(...ys), Math.max(...ys), { target: 5 });
  const sx = (x: number) => r1(MARGIN.left + ((x - xTicks.min) / (xTicks.max - xTicks.min)) * plotW);
  const sy = (y: number) => r1(top + (1 - (y - yTicks.min) / (yTicks.max - yTicks.min)) * plotH);
  const bottom = top + plotH;
  const out: string[] = [];
  out.push(`<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${escapeHtml(spec.title)}" xmlns="http://www.w3.org/2000/svg">`);

  // Grid and axes.
  for (const v of yTicks.values) {
    const y = sy(v);
    out.push(`<line class="grid" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y}" y2="${y}"/>`);
    out.push(`<text class="tick" x="${MARGIN.left - 6}" y="${y + 3.5}" text-anchor="end">${escapeHtml(formatTick(v, yTicks.step, percent))}</text>`);
  }
  for (const v of xTicks.values) {
    const x = sx(v);
    out.push(`<line class="axis" x1="${x}" x2="${x}" y1="${bottom}" y2="${bottom + 4}"/>`);
    out.push(`<text class="tick" x="${x}" y="${bottom + 15}" text-anchor="middle">${escapeHtml(formatTick(v, xTicks.step))}</text>`);
  }
  out.push(`<line class="axis" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${bottom}" y2="${bottom}"/>`);
  out.push(`<line class="axis" x1="${MARGIN.left}" x2="${MARGIN.left}" y1="${top}" y2="${bottom}"/>`);
  out.push(`<text class="label" x="${MARGIN.left + plotW / 2}" y="${HEIGHT - 6}" text-anchor="middle">${escapeHtml(spec.xLabel)}</text>`);
  out.push(`<text class="label" transform="translate(14 ${r1(top + plotH / 2)}) rotate(-90)" text-anchor="middle">${escapeHtml(spec.yLabel)}</text>`);

  // Series: bands first so lines stay on top.
  spec.series.forEach((s, i) => out.push(...drawIntervals(s, colorOf(s, i), sx, sy)));
  spec.series.forEach((s, i) => out.push(...drawSeries(s, colorOf(s, i), sx, sy, percent)));

  // Legend.
  legendRows.forEach((row, r) => {
    const y = 12 + r * 16;
    for (const { series, index, x } of row) {
      const color = colorOf(series, index);
      const style = series.style ?? 'line';
      const dash = DASHES[series.dash ?? 'solid'];
      if (style !== 'markers') out.push(`<line x1="${x}" x2="${x + 22}" y1="${y}" y2="${y}" stroke="${color}" stroke-width="2"${dash ? ` stroke-dasharray="${dash}"` : ''}${series.opacity !== undefined ? ` opacity="${series.opacity}"` : ''}/>`);
      if (style !== 'line') out.push(`<circle cx="${x + 11}" cy="${y}" r="3.5" fill="${color}"/>`);
      out.push(`<text class="legend" x="${x + 28}" y="${y + 4}">${escapeHtml(series.name)}</text>`);
    }
  });
  out.push('</svg>');
  return out.join('');
}

type Scale = (v: number) => number;

function drawIntervals(s: Series, color: string, sx: Scale, sy: Scale): string[] {
  const intervals = (s.intervals ?? []).filter((iv): iv is readonly [number, number, number] => finite(iv[0]) && finite(iv[1]) && finite(iv[2]));
  if (intervals.length === 0) return [];
  const out: string[] = [];
  if ((s.style ?? 'line') === 'markers') {
    for (const [x, lo, hi] of intervals) {
      const X = sx(x);
      out.push(`<path d="M${X} ${sy(lo)}V${sy(hi)}M${r1(X - 3)} ${sy(lo)}h6M${r1(X - 3)} ${sy(hi)}h6" stroke="${color}" stroke-width="1.2" fill="none"/>`);
    }
    return out;
  }
  // A shaded band through consecutive intervals; gaps in the data split it.
  const runs = splitAtGaps(intervals.map(([x, lo]) => [x, lo] as const));
  const high = new Map(intervals.map(([x, , hi]) => [x, hi]));
  for (const run of runs) {
    const upper = run.map(([x]) => `${sx(x)} ${sy(high.get(x)!)}`);
    const lower = [...run].reverse().map(([x, lo]) => `${sx(x)} ${sy(lo)}`);
    out.push(`<path d="M${[...upper, ...lower].join('L')}Z" fill="${color}" fill-opacity="0.15" stroke="none"/>`);
  }
  return out;
}

function drawSeries(s: Series, color: string, sx: Scale, sy: Scale, percent: boolean): string[] {
  const out: string[] = [];
  const style = s.style ?? 'line';
  const runs = splitAtGaps(s.points);
  const opacity = s.opacity !== undefined ? ` opacity="${s.opacity}"` : '';
  if (style !== 'markers') {
    const dash = DASHES[s.dash ?? 'solid'];
    for (const run of runs) {
      if (run.length === 1 && style === 'line') {
        // A value between two gaps: no line to draw, so mark it.
        out.push(`<circle cx="${sx(run[0]![0])}" cy="${sy(run[0]![1])}" r="2.5" fill="${color}"${opacity}/>`);
        continue;
      }
      const d = run.map(([x, y], j) => `${j === 0 ? 'M' : 'L'}${sx(x)} ${sy(y)}`).join('');
      out.push(`<path d="${d}" fill="none" stroke="${color}" stroke-width="1.8" stroke-linejoin="round"${dash ? ` stroke-dasharray="${dash}"` : ''}${opacity}/>`);
    }
  }
  const points = runs.flat();
  const intervals = new Map((s.intervals ?? []).map(([x, lo, hi]) => [x, [lo, hi] as const]));
  const marker = style !== 'line';
  out.push(`<g${marker ? ` fill="${color}"` : ' class="hover"'}>`);
  // Hover targets for every point would bloat long runs (most of the page size): ~100 per series.
  const stride = marker ? 1 : Math.ceil(points.length / 100);
  for (const [x, y] of points.filter((_p, j) => j % stride === 0)) {
    const iv = intervals.get(x);
    const range = iv && finite(iv[0]) && finite(iv[1]) ? ` [${formatValue(iv[0], percent)}, ${formatValue(iv[1], percent)}]` : '';
    const title = `${s.name}, step ${x}: ${formatValue(y, percent)}${range}`;
    out.push(`<circle cx="${sx(x)}" cy="${sy(y)}" r="${marker ? 3.5 : 4}"><title>${escapeHtml(title)}</title></circle>`);
  }
  out.push('</g>');
  return out;
}
