/**
 * Which charts the report shows, built from metrics records as plain ChartSpecs. A role or a
 * policy keeps its colour on every chart. Charts with nothing measured (no KL without a
 * reference model, no warm start) are left out and named, so a reader knows they were not
 * forgotten.
 */
import { trainSuccessName } from '../metrics/success-of.js';
import type { EvalRecord, Metric, MetricsRecord, TrainRecord, WarmStartRecord } from '../metrics/types.js';
import { chartHasData } from './line-chart.js';
import { palette, type ChartSpec, type Point, type Series } from './chart-types.js';

export interface ReportSection {
  readonly title: string;
  readonly charts: ChartSpec[];
}

export interface ReportCharts {
  readonly sections: ReportSection[];
  /** Titles of charts with no data in this run. */
  readonly missing: string[];
}

const STEP = 'RL step';

/** Names in order of first appearance, so colours are stable along a run. */
function namesOf(records: readonly Record<string, unknown>[]): string[] {
  const seen = new Set<string>();
  for (const r of records) for (const name of Object.keys(r)) seen.add(name);
  return [...seen];
}

/** Trailing mean over the last `window` measured values (a gap stays a gap). */
export function movingAverage(points: readonly Point[], window: number): Point[] {
  const recent: number[] = [];
  return points.map(([x, y]) => {
    if (y === null || !Number.isFinite(y)) return [x, null] as const;
    recent.push(y);
    if (recent.length > window) recent.shift();
    return [x, recent.reduce((a, b) => a + b, 0) / recent.length] as const;
  });
}

function perName<R>(
  records: readonly R[],
  names: readonly string[],
  colors: Map<string, string>,
  value: (r: R, name: string) => Metric | undefined,
  options: { step: (r: R) => number; suffix?: string; dash?: Series['dash'] },
): Series[] {
  return names.map((name) => ({
    name: options.suffix ? `${name} ${options.suffix}` : name,
    color: colors.get(name)!,
    ...(options.dash ? { dash: options.dash } : {}),
    points: records.map((r) => [options.step(r), value(r, name) ?? null] as const),
  }));
}

export function buildReportCharts(records: readonly MetricsRecord[]): ReportCharts {
  const train = records.filter((r): r is TrainRecord => r.kind === 'train');
  const evals = records.filter((r): r is EvalRecord => r.kind === 'eval');
  const warm = records.filter((r): r is WarmStartRecord => r.kind === 'warm-start');
  const roles = namesOf([...train.map((r) => r.roles), ...evals.map((r) => r.roles)]);
  const policies = namesOf(train.map((r) => r.policies));
  const roleColor = new Map(roles.map((name, i) => [name, palette[i % palette.length]!]));
  const policyColor = new Map(policies.map((name, i) => [name, palette[i % palette.length]!]));
  const step = (r: { step: number }) => r.step;
  const line = (name: string, color: string, points: Point[], extra: Partial<Series> = {}): Series => ({ name, color, points, ...extra });
  const trainPoints = (f: (r: TrainRecord) => Metric) => train.map((r) => [r.step, f(r)] as const);
  const role = (f: (m: TrainRecord['roles'][string]) => Metric) => (r: TrainRecord, name: string) => {
    const m = r.roles[name];
    return m ? f(m) : null;
  };
  const policy = (f: (m: TrainRecord['policies'][string]) => Metric) => (r: TrainRecord, name: string) => {
    const m = r.policies[name];
    return m ? f(m) : null;
  };
  const byStep = { step } as const;

  // Success: raw training success is noisy, so a trailing mean is drawn over it.
  const successRaw = trainPoints((r) => r.success_rate);
  const successOf = train.at(-1)?.success_of;
  const trainName = `${trainSuccessName(successOf)} (training tasks)`;
  const trainCaption =
    successOf === 'best-branch'
      ? 'Tree success: each training episode follows the best of the K branches at every move, so it measures the search and runs above the policy alone.'
      : successOf === 'sampled'
        ? 'Policy success: the training episodes as the policy sampled them.'
        : '';
  const window = Math.min(20, Math.max(3, Math.round(train.length / 10)));
  const smooth = train.length >= 10;
  const success: ChartSpec = {
    id: 'success',
    title: 'Success rate',
    xLabel: STEP,
    yLabel: 'episodes solved',
    percent: true,
    yInclude: [0, 1],
    series: [
      line(trainName, palette[0]!, successRaw, smooth ? { opacity: 0.35 } : {}),
      ...(smooth ? [line(`${trainName}, mean of last ${window}`, palette[0]!, movingAverage(successRaw, window))] : []),
      line('held-out (95% CI)', palette[1]!, evals.map((r) => [r.step, r.success_rate] as const), {
        style: 'line+markers',
        intervals: evals.map((r) => [r.step, r.ci_low, r.ci_high] as const),
      }),
    ],
    caption: ['Held-out: the sampled policy on tasks it never trains on; step -1 is the policy before any RL update.', trainCaption].filter((c) => c !== '').join(' '),
  };

  const outcome: ChartSpec[] = [
    success,
    {
      id: 'reward',
      title: 'Reward per role (total)',
      xLabel: STEP,
      yLabel: 'mean reward',
      series: perName(train, roles, roleColor, role((m) => m.reward), byStep),
      caption: 'The mix of local and global reward that advantages are computed from.',
    },
    {
      id: 'reward-parts',
      title: 'Local and global reward per role',
      xLabel: STEP,
      yLabel: 'mean reward',
      series: [
        ...perName(train, roles, roleColor, role((m) => m.local), { step, suffix: 'local', dash: 'dashed' }),
        ...perName(train, roles, roleColor, role((m) => m.global), { step, suffix: 'global', dash: 'dotted' }),
      ],
    },
    {
      id: 'turns',
      title: 'Turns per episode',
      xLabel: STEP,
      yLabel: 'mean turns',
      yInclude: [0],
      series: [
        line('train', palette[0]!, trainPoints((r) => r.mean_turns)),
        line('held-out eval', palette[1]!, evals.map((r) => [r.step, r.mean_turns] as const), { style: 'line+markers' }),
      ],
    },
    {
      id: 'response-length',
      title: 'Response length per role',
      xLabel: STEP,
      yLabel: 'tokens',
      yInclude: [0],
      series: perName(train, roles, roleColor, role((m) => m.response_len), byStep),
    },
  ];

  const learner: ChartSpec[] = [
    { id: 'loss', title: 'Loss per policy', xLabel: STEP, yLabel: 'PPO-clip loss', series: perName(train, policies, policyColor, policy((m) => m.loss), byStep) },
    { id: 'kl', title: 'KL to the reference per policy', xLabel: STEP, yLabel: 'KL estimate', yInclude: [0], series: perName(train, policies, policyColor, policy((m) => m.kl), byStep) },
    { id: 'clip-fraction', title: 'Clip fraction per policy', xLabel: STEP, yLabel: 'tokens clipped', percent: true, yInclude: [0], series: perName(train, policies, policyColor, policy((m) => m.clip_fraction), byStep) },
    { id: 'entropy', title: 'Entropy per policy', xLabel: STEP, yLabel: 'nats per token', yInclude: [0], series: perName(train, policies, policyColor, policy((m) => m.entropy), byStep) },
    { id: 'grad-norm', title: 'Gradient norm per policy', xLabel: STEP, yLabel: 'norm before clipping', yInclude: [0], series: perName(train, policies, policyColor, policy((m) => m.grad_norm), byStep) },
  ];

  const speed: ChartSpec[] = [
    { id: 'samples-per-s', title: 'Throughput: samples per second', xLabel: STEP, yLabel: 'samples/s', yInclude: [0], series: [line('samples/s', palette[2]!, trainPoints((r) => r.samples_per_s))] },
    { id: 'tokens-per-s', title: 'Throughput: tokens per second', xLabel: STEP, yLabel: 'response tokens/s', yInclude: [0], series: [line('tokens/s', palette[4]!, trainPoints((r) => r.tokens_per_s))] },
    {
      id: 'time-split',
      title: 'Time per step: rollout vs update',
      xLabel: STEP,
      yLabel: 'seconds',
      yInclude: [0],
      series: [
        line('rollout', palette[0]!, trainPoints((r) => r.rollout_s)),
        line('update', palette[1]!, trainPoints((r) => r.update_s)),
        line('total', palette[6]!, trainPoints((r) => r.rollout_s + r.update_s), { dash: 'dotted' }),
      ],
    },
    {
      id: 'failures',
      title: 'Parse failures and filtered groups',
      xLabel: STEP,
      yLabel: 'count per step',
      yInclude: [0],
      series: [line('parse failures', palette[1]!, trainPoints((r) => r.parse_failures)), line('zero-variance groups filtered', palette[6]!, trainPoints((r) => r.filtered_groups))],
      caption: 'Filtered groups had equal rewards for every sample, so they carried no learning signal.',
    },
  ];

  const warmStart: ChartSpec[] = [
    { id: 'warm-start-loss', title: 'Warm-start loss', xLabel: 'warm-start step', yLabel: 'cross-entropy per token', yInclude: [0], series: [line('loss', palette[3]!, warm.map((r) => [r.step, r.loss] as const))] },
  ];

  const missing: string[] = [];
  const keep = (charts: ChartSpec[]) =>
    charts.filter((c) => {
      if (chartHasData(c)) return true;
      missing.push(c.title);
      return false;
    });
  const sections = [
    { title: 'Outcome', charts: keep(outcome) },
    { title: 'Learners', charts: keep(learner) },
    { title: 'Speed and data', charts: keep(speed) },
    { title: 'Warm start', charts: keep(warmStart) },
  ].filter((s) => s.charts.length > 0);
  return { sections, missing };
}
