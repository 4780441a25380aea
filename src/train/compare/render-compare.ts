/**
 * The page `troupe compare --out` writes: like report.html, ONE self-contained HTML file
 * (inline CSS and SVG, no scripts or fetched resources, the same bytes for the same runs): the
 * final held-out table, then the runs' curves on shared axes, then where each run came from.
 */
import { escapeHtml } from '../report/escape-html.js';
import { htmlTable } from '../report/html-table.js';
import { renderLineChart } from '../report/line-chart.js';
import { reportStyle } from '../report/report-style.js';
import { buildCompareCharts } from './compare-charts.js';
import { rowCells, tableHead, type CompareRow } from './compare-table.js';
import type { ComparedRun } from './read-run.js';
import type { SeedGroup } from './seed-groups.js';

export interface CompareInput {
  readonly title: string;
  readonly groups: readonly SeedGroup<ComparedRun>[];
  readonly rows: readonly CompareRow[];
}

export function renderCompare(input: CompareInput): string {
  const { charts, missing } = buildCompareCharts(input.groups);
  const runs = input.groups.flatMap((g) => g.members.map((m) => m.run));
  const body: string[] = [];
  body.push(`<header><h1>${escapeHtml(input.title)}</h1><p class="sub">Troupe: ${runs.length} runs side by side</p></header>`);
  const notes = runs.flatMap((r) => r.warnings);
  if (notes.length > 0) body.push(`<section class="notes">${notes.map((n) => `<p>${escapeHtml(n)}</p>`).join('')}</section>`);
  body.push(`<section><h2 id="final">Final held-out success</h2>${htmlTable(tableHead, input.rows.map(rowCells))}</section>`);
  const figures = charts.map((c) => {
    const caption = c.caption ? `<figcaption>${escapeHtml(c.caption)}</figcaption>` : '';
    return `<figure id="${escapeHtml(c.id)}"><h3>${escapeHtml(c.title)}</h3>${renderLineChart(c)}${caption}</figure>`;
  });
  body.push(`<section><h2 id="curves">Curves</h2><div class="charts">${figures.join('')}</div></section>`);
  if (missing.length > 0) body.push(`<p class="missing">Not recorded by these runs: ${escapeHtml(missing.join(', '))}.</p>`);
  body.push(`<section><h2 id="runs">Runs</h2>${htmlTable(['run', 'folder', 'metrics records'], runs.map((r) => [r.name, r.dir, String(r.records.length)]))}</section>`);
  body.push('<footer>Made by Troupe (troupe compare) from each run\'s metrics.jsonl.</footer>');
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(input.title)} - Troupe compare</title>`,
    `<style>${reportStyle}</style></head>`,
    `<body><main>${body.join('\n')}</main></body></html>`,
    '',
  ].join('\n');
}
