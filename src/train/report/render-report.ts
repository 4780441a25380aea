/**
 * The run report: ONE self-contained HTML page (inline CSS and SVG, no scripts, fonts or
 * images from anywhere) that opens from disk, survives being mailed around, and renders the
 * same bytes for the same metrics (no timestamps). Every piece of text is escaped.
 *
 *   const html = renderReport({ title: 'plan-path', config, records: readMetrics(path).records });
 */
import YAML from 'yaml';
import type { EvalRecord, Metric, MetricsRecord, TrainRecord } from '../metrics/types.js';
import { trainSuccessName } from '../metrics/success-of.js';
import { formatDuration } from '../progress/format-duration.js';
import { escapeHtml } from './escape-html.js';
import { htmlTable as table } from './html-table.js';
import { renderLineChart } from './line-chart.js';
import { buildReportCharts } from './report-charts.js';
import { reportStyle } from './report-style.js';
import { summarizeRun, type RunSummary } from './summarize-run.js';

export interface ReportInput {
  /** The run's name, shown as the page heading. */
  readonly title: string;
  /** The resolved config, shown as YAML in a collapsed section. */
  readonly config: unknown;
  readonly records: readonly MetricsRecord[];
  /** Remarks shown above the charts (warnings from reading the metrics, a stopped run). */
  readonly notes?: readonly string[];
}

const has = (x: Metric | undefined): x is number => typeof x === 'number' && Number.isFinite(x);
// Fixed decimals per magnitude, so a table column lines up and 0.67 never sits next to 0.278.
const pct = (x: Metric | undefined) => (has(x) ? `${(x * 100).toFixed(1)}%` : 'n/a');
const num = (x: Metric | undefined) => {
  if (!has(x)) return 'n/a';
  const abs = Math.abs(x);
  if (abs !== 0 && abs < 0.001) return x.toExponential(2);
  return x.toFixed(abs >= 1000 ? 0 : abs >= 10 ? 1 : 3);
};
const ci = (r: EvalRecord) => (has(r.ci_low) && has(r.ci_high) ? `${pct(r.ci_low)} to ${pct(r.ci_high)}` : 'n/a');

function stat(key: string, value: string, detail: string): string {
  return `<div class="stat"><div class="k">${escapeHtml(key)}</div><div class="v">${escapeHtml(value)}</div><div class="d">${escapeHtml(detail)}</div></div>`;
}

function evalDetail(r: EvalRecord): string {
  const when = r.step === -1 ? 'before RL' : `after RL step ${r.step}`;
  return `95% CI ${ci(r)}, n=${r.n}, ${when}`;
}

/** Named for whose play it measures, like the progress line (metrics/types.ts SuccessOf). */
function trainSuccessStat(r: TrainRecord): string {
  const how =
    r.success_of === 'best-branch'
      ? 'the best of K branches at every move: the search, not the policy alone'
      : r.success_of === 'sampled'
        ? 'episodes as the policy sampled them'
        : 'training episodes';
  return stat(capitalize(trainSuccessName(r.success_of)), pct(r.success_rate), `on RL step ${r.step}'s rollouts; ${how}`);
}

const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

function headline(s: RunSummary): string {
  const stats: string[] = [];
  stats.push(s.finalEval ? stat('Held-out success', pct(s.finalEval.success_rate), evalDetail(s.finalEval)) : stat('Held-out success', 'n/a', 'no evaluation recorded'));
  if (s.baseEval && s.baseEval !== s.finalEval) stats.push(stat('Starting policy', pct(s.baseEval.success_rate), evalDetail(s.baseEval)));
  if (s.lastTrain) stats.push(trainSuccessStat(s.lastTrain));
  stats.push(stat('RL steps', String(s.rlSteps), s.warmStartSteps > 0 ? `after ${s.warmStartSteps} warm-start steps` : 'no warm start'));
  if (s.wallSeconds !== undefined) {
    const split = s.rolloutShare !== undefined ? `rollout ${pct(s.rolloutShare)}, update ${pct(1 - s.rolloutShare)} of step time` : '';
    stats.push(stat('Wall time', formatDuration(s.wallSeconds), s.wallIsSum ? `sum of step times; ${split}` : split));
  }
  return `<div class="stats">${stats.join('')}</div>`;
}

function evalTable(evals: readonly EvalRecord[]): string {
  const roles = [...new Set(evals.flatMap((r) => Object.keys(r.roles)))];
  return table(
    ['step', 'success', '95% CI', 'n', 'turns', ...roles.map((r) => `reward ${r}`)],
    evals.map((r) => [r.step === -1 ? 'before RL' : String(r.step), pct(r.success_rate), ci(r), String(r.n), num(r.mean_turns), ...roles.map((role) => num(r.roles[role]?.reward))]),
  );
}

function lastStepTables(r: TrainRecord): string {
  const roles = table(
    ['role', 'reward', 'local', 'global', 'response tokens', 'samples'],
    Object.entries(r.roles).map(([name, m]) => [name, num(m.reward), num(m.local), num(m.global), num(m.response_len), String(m.samples)]),
  );
  const policies = table(
    ['policy', 'loss', 'KL', 'clip fraction', 'entropy', 'grad norm', 'tokens'],
    Object.entries(r.policies).map(([name, m]) => [name, num(m.loss), num(m.kl), pct(m.clip_fraction), num(m.entropy), num(m.grad_norm), String(m.tokens)]),
  );
  const totals = `${r.episodes} episodes, ${r.samples} samples, ${r.tokens} response tokens, ${r.parse_failures} parse failures, ${r.filtered_groups} groups filtered, learning rate ${num(r.lr)}`;
  return `<p>${escapeHtml(totals)}</p>${roles}${policies}`;
}

function configText(config: unknown): string {
  if (typeof config === 'string') return config;
  try {
    return YAML.stringify(config ?? {}, { lineWidth: 0 });
  } catch {
    return JSON.stringify(config, null, 2);
  }
}

export function renderReport(input: ReportInput): string {
  const summary = summarizeRun(input.records);
  const { sections, missing } = buildReportCharts(input.records);
  const evals = input.records.filter((r): r is EvalRecord => r.kind === 'eval').sort((a, b) => a.step - b.step);
  const body: string[] = [];
  body.push(`<header><h1>${escapeHtml(input.title)}</h1><p class="sub">Troupe training report</p>${headline(summary)}</header>`);
  if (input.notes && input.notes.length > 0) body.push(`<section class="notes">${input.notes.map((n) => `<p>${escapeHtml(n)}</p>`).join('')}</section>`);
  if (sections.length > 0) {
    const links = sections.map((s) => `<a href="#${escapeHtml(slug(s.title))}">${escapeHtml(s.title)}</a>`);
    if (evals.length > 0) links.push('<a href="#evaluations">Evaluations</a>');
    body.push(`<nav>${links.join('')}<a href="#config">Config</a></nav>`);
  } else {
    body.push('<p class="missing">No metrics recorded yet.</p>');
  }
  for (const section of sections) {
    const figures = section.charts.map((c) => {
      const caption = c.caption ? `<figcaption>${escapeHtml(c.caption)}</figcaption>` : '';
      return `<figure id="${escapeHtml(c.id)}"><h3>${escapeHtml(c.title)}</h3>${renderLineChart(c)}${caption}</figure>`;
    });
    body.push(`<section><h2 id="${escapeHtml(slug(section.title))}">${escapeHtml(section.title)}</h2><div class="charts">${figures.join('')}</div></section>`);
  }
  if (missing.length > 0) body.push(`<p class="missing">Not measured in this run: ${escapeHtml(missing.join(', '))}.</p>`);
  if (evals.length > 0) body.push(`<section><h2 id="evaluations">Held-out evaluations</h2>${evalTable(evals)}</section>`);
  if (summary.lastTrain) body.push(`<section><h2>Last RL step (${summary.lastTrain.step})</h2>${lastStepTables(summary.lastTrain)}</section>`);
  body.push(`<details id="config"><summary>Resolved config</summary><pre>${escapeHtml(configText(input.config))}</pre></details>`);
  body.push(`<footer>Made by Troupe from ${input.records.length} metrics records.</footer>`);
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(input.title)} - Troupe report</title>`,
    `<style>${reportStyle}</style></head>`,
    `<body><main>${body.join('\n')}</main></body></html>`,
    '',
  ].join('\n');
}

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}
