import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chartHasData, renderLineChart, splitAtGaps } from './line-chart.js';
import { checkMarkup } from './check-markup.test-helper.js';
import type { ChartSpec } from './chart-types.js';

const base = { id: 'c', title: 'T', xLabel: 'RL step', yLabel: 'value' };

/** The y pixel coordinates of the first path drawn in `color`. */
function pathYs(svg: string, color: string): number[] {
  const m = new RegExp(`<path d="([^"]+)" fill="none" stroke="${color}"`).exec(svg);
  assert.ok(m, `a line in ${color}`);
  return [...m[1]!.matchAll(/[ML][\d.]+ ([\d.]+)/g)].map((p) => Number(p[1]));
}

test('splitAtGaps sorts by x and breaks runs at missing values', () => {
  const runs = splitAtGaps([[3, 3], [0, 0], [1, null], [2, 2], [4, Number.NaN], [5, 5]]);
  assert.deepEqual(runs, [[[0, 0]], [[2, 2], [3, 3]], [[5, 5]]]);
});

test('higher values are drawn higher, on a well-formed SVG', () => {
  const svg = renderLineChart({ ...base, series: [{ name: 'a', color: '#111111', points: [[0, 1], [1, 3], [2, 2]] }] });
  assert.deepEqual(checkMarkup(svg), []);
  const [y0, y1, y2] = pathYs(svg, '#111111');
  assert.ok(y1! < y2! && y2! < y0!, `${y0} ${y1} ${y2}`);
});

test('a missing value splits the line; a lone value becomes a dot', () => {
  const svg = renderLineChart({
    ...base,
    series: [{ name: 'a', color: '#222222', points: [[0, 1], [1, 2], [2, null], [3, 2], [4, 1], [5, null], [6, 4], [7, null]] }],
  });
  const lines = svg.match(/<path d="M[^"]*" fill="none" stroke="#222222"/g) ?? [];
  assert.equal(lines.length, 2);
  assert.equal((svg.match(/<circle [^>]*r="2.5" fill="#222222"/g) ?? []).length, 1);
});

test('ticks, labels and a legend entry per series are drawn; percent axes say %', () => {
  const spec: ChartSpec = {
    ...base,
    percent: true,
    yInclude: [0, 1],
    series: [{ name: 'train', points: [[0, 0.2], [10, 0.6]] }, { name: 'eval', style: 'markers', points: [[10, 0.5]] }],
  };
  const svg = renderLineChart(spec);
  for (const label of ['0%', '20%', '100%', 'RL step', 'value', 'train', 'eval', '>0<', '>10<']) assert.ok(svg.includes(label), label);
  assert.deepEqual(checkMarkup(svg), []);
});

test('intervals: whiskers on markers, a shaded band under a line', () => {
  const intervals = [[0, 0.1, 0.3], [1, 0.2, 0.4]] as const;
  const markers = renderLineChart({ ...base, series: [{ name: 'e', color: '#333333', style: 'markers', points: [[0, 0.2], [1, 0.3]], intervals }] });
  assert.equal((markers.match(/<path d="M[^"]*V[^"]*" stroke="#333333"/g) ?? []).length, 2);
  assert.match(markers, /<title>e, step 0: 0\.2 \[0\.1, 0\.3\]<\/title>/);
  const band = renderLineChart({ ...base, series: [{ name: 'e', color: '#333333', points: [[0, 0.2], [1, 0.3]], intervals }] });
  assert.equal((band.match(/fill="#333333" fill-opacity="0.15"/g) ?? []).length, 1);
  // The band reaches the interval ends, beyond the line itself.
  assert.ok(band.includes('0.4'));
});

test('text is escaped, so a role name cannot inject markup', () => {
  const svg = renderLineChart({ ...base, title: 'a<b', xLabel: 'x & y', series: [{ name: '<script>alert(1)</script>', points: [[0, 1], [1, 2]] }] });
  assert.ok(!svg.includes('<script>'));
  assert.ok(svg.includes('&#60;script&#62;'));
  assert.ok(svg.includes('x &#38; y'));
  assert.deepEqual(checkMarkup(svg), []);
});

test('chartHasData is false when nothing was measured', () => {
  assert.equal(chartHasData({ ...base, series: [{ name: 'kl', points: [[0, null], [1, null]] }] }), false);
  assert.equal(chartHasData({ ...base, series: [] }), false);
  assert.equal(chartHasData({ ...base, series: [{ name: 'kl', points: [[0, null], [1, 0]] }] }), true);
});

test('one point or a flat line still gets a usable axis', () => {
  const svg = renderLineChart({ ...base, series: [{ name: 'a', points: [[3, 0.5]] }] });
  assert.ok(!svg.includes('NaN') && !svg.includes('Infinity'));
  const flat = renderLineChart({ ...base, series: [{ name: 'a', color: '#444444', points: [[0, 2], [1, 2]] }] });
  assert.ok(!flat.includes('NaN'));
  const [a, b] = pathYs(flat, '#444444');
  assert.equal(a, b);
});
