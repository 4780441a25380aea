/**
 * The charts of `troupe compare`: one line per run on shared axes, drawn by the report's chart
 * code. A seed group shares one colour (its seeds differ by dash), so a group reads as a band
 * of lines. Held-out success comes first, with each evaluation's 95% interval; reward,
 * entropy and turns follow when the runs recorded them, as trailing means because one
 * step's training numbers are noisy. A panel no run has data for is left out and named.
 */
import type { Metric, TrainRecord, EvalRecord } from '../metrics/types.js';
import { palette, type ChartSpec, type Point, type Series } from '../report/chart-types.js';
import { chartHasData } from '../report/line-chart.js';
import { movingAverage } from '../report/report-charts.js';
import type { ComparedRun } from './read-run.js';
import type { SeedGroup } from './seed-groups.js';

const DASHES: readonly NonNullable<Series['dash']>[] = ['solid', 'dashed', 'dotted'];
const STEP = 'RL step';

/** Mean of `value` over the entries, weighted; null when nothing was measured. */
function weightedMean<T>(entries: readonly T[], value: (e: T) => Metric, weight: (e: T) => number): Metric {
  let sum = 0;
  let total = 0;
  for (const e of entries) {
    const v = value(e);
    const w = weight(e);
    if (v === null || !Number.isFinite(v) || w <= 0) continue;
    sum += v * w;
    total += w;
  }
  return total > 0 ? sum / total : null;
}

/** Per train step of one run: the numbers the panels draw (a team's roles and policies averaged). */
const perStep: Record<'reward' | 'entropy' | 'turns', (r: TrainRecord) => Metric> = {
  reward: (r) => weightedMean(Object.values(r.roles), (m) => m.reward, (m) => m.samples),
  entropy: (r) => weightedMean(Object.values(r.policies), (m) => m.entropy, (m) => m.tokens),
  turns: (r) => r.mean_turns,
};

/** The trailing-mean window the report uses for a run of this many steps. */
const windowFor = (steps: number) => Math.min(20, Math.max(3, Math.round(steps / 10)));

interface Styled {
  readonly run: ComparedRun;
  readonly color: string;
  readonly dash: NonNullable<Series['dash']>;
}

function styleRuns(groups: readonly SeedGroup<ComparedRun>[]): Styled[] {
  return groups.flatMap((group, g) => group.members.map((m, i) => ({ run: m.run, color: palette[g % palette.length]!, dash: DASHES[i % DASHES.length]! })));
}

function trainSeries(runs: readonly Styled[], value: (r: TrainRecord) => Metric): Series[] {
  return runs.map(({ run, color, dash }) => {
    const train = run.records.filter((r): r is TrainRecord => r.kind === 'train').sort((a, b) => a.step - b.step);
    const points: Point[] = train.map((r) => [r.step, value(r)] as const);
    return { name: run.name, color, dash, points: train.length >= 10 ? movingAverage(points, windowFor(train.length)) : points };
  });
}

export function buildCompareCharts(groups: readonly SeedGroup<ComparedRun>[]): { charts: ChartSpec[]; missing: string[] } {
  const runs = styleRuns(groups);
  const success: ChartSpec = {
    id: 'held-out',
    title: 'Held-out success',
    xLabel: STEP,
    yLabel: 'episodes solved',
    percent: true,
    yInclude: [0, 1],
    series: runs.map(({ run, color, dash }) => {
      const evals = run.records.filter((r): r is EvalRecord => r.kind === 'eval').sort((a, b) => a.step - b.step);
      return { name: run.name, color, dash, style: 'line+markers', points: evals.map((r) => [r.step, r.success_rate] as const), intervals: evals.map((r) => [r.step, r.ci_low, r.ci_high] as const) };
    }),
    caption: 'Each run\'s policy on tasks it never trains on, with 95% intervals; step -1 is the policy before any RL update.',
  };
  const smoothed = 'Trailing mean over the last 3-20 steps (a tenth of the run), as in each run\'s report.';
  const panels: ChartSpec[] = [
    success,
    { id: 'reward', title: 'Reward (total, mean over roles)', xLabel: STEP, yLabel: 'mean reward', series: trainSeries(runs, perStep.reward), caption: `Training rollouts' reward, weighted by each role's samples. ${smoothed}` },
    { id: 'entropy', title: 'Entropy (mean over policies)', xLabel: STEP, yLabel: 'nats per token', yInclude: [0], series: trainSeries(runs, perStep.entropy), caption: `Per-token entropy on the update's tokens, weighted by each policy's tokens. ${smoothed}` },
    { id: 'turns', title: 'Turns per episode (training)', xLabel: STEP, yLabel: 'mean turns', yInclude: [0], series: trainSeries(runs, perStep.turns), caption: smoothed },
  ];
  const charts = panels.filter(chartHasData);
  return { charts, missing: panels.filter((c) => !charts.includes(c)).map((c) => c.title) };
}
