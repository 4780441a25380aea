/**
 * The rollout behind `troupe rollout` and `rollout()`: plays a team on a batch of tasks without
 * training, computes the advantages, writes every sample as one JSON line (atomically: temp
 * file + rename) and prints a short summary. Same config and seed -> byte-identical file.
 *
 * ```ts
 * const result = await runRollout({ config: 'examples/toy.yaml', out: 'runs/toy.jsonl', print: () => undefined });
 * ```
 */
import { computeAdvantages } from '../algo/compute-advantages.js';
import { regroup } from '../algo/regroup.js';
import { readConfig } from '../config/read-config.js';
import type { ResolvedConfig } from '../config/resolve-config.js';
import { rolloutOptions, taskOptions, teamOptions } from '../config/runtime-options.js';
import { writeFileAtomic } from '../engine/io/atomic-write.js';
import type { AnyTaskDefinition } from '../envs/task-catalog.js';
import { taskOf } from '../config/task-of-config.js';
import { rolloutInBatches } from '../rollout/rollout-in-batches.js';
import { sampleToJson } from '../rollout/sample-json.js';
import type { EpisodeStats, Sample } from '../rollout/types.js';
import { summarizeRollout, type RolloutSummary } from '../rollout/summarize-rollout.js';
import { playingPolicies } from '../train/playing-policies.js';
import { successOf, trainSuccessName } from '../train/metrics/success-of.js';
import { TroupeError } from '../util/errors.js';
import type { TroupeConfig } from '../config/troupe-config.js';

export interface RolloutRunOptions {
  /** A config file, or (from the API) the config as an object. */
  readonly config: string | TroupeConfig;
  /** Task definitions from code (defineTask). */
  readonly definitions?: readonly AnyTaskDefinition[];
  /** `key=value` overrides, as given to --set. */
  readonly set?: readonly string[];
  /** The samples' file, or `-` for stdout; the API may leave it out (the samples come back in the result). */
  readonly out?: string;
  /** Number of tasks; overrides rollout.tasks. */
  readonly tasks?: number;
  /** Where the summary goes. Default: stdout, or stderr when the samples go to stdout. */
  readonly print?: (text: string) => void;
  /**
   * Stops the rollout: with a signal the tasks are played `rollout.tasks` at a time (the
   * config's batch), and an abort keeps the batches already played.
   */
  readonly signal?: AbortSignal;
  /**
   * Hears `still waiting for <op> request <id> from <url> (N min)` after each full minute one
   * request to a Tinker service is pending (policy.kind tinker; the wait is capped by
   * policy.tinker.future_timeout_s). The library prints nothing itself; the CLI writes these to stderr.
   */
  readonly onWait?: (message: string) => void;
}

export interface RolloutRunResult {
  readonly config: ResolvedConfig;
  readonly summary: RolloutSummary;
  readonly groups: number;
  readonly droppedGroups: number;
  readonly droppedSamples: number;
  /** Every sample (advantages set), as written to `out`. */
  readonly samples: readonly Sample[];
  readonly episodes: readonly EpisodeStats[];
  /** True when the signal stopped the rollout before every task was played. */
  readonly interrupted: boolean;
}

export async function runRollout(options: RolloutRunOptions): Promise<RolloutRunResult> {
  const config = await readConfig({ config: options.config, set: options.set ?? [], tasks: options.definitions ?? [] });
  const count = options.tasks ?? config.rollout.tasks;
  if (!Number.isInteger(count) || count < 1) {
    throw new TroupeError('input', `--tasks: expected a whole number >= 1, got ${String(options.tasks)}`);
  }
  const task = taskOf(config);
  const team = task.createTeam(taskOptions(config), teamOptions(config));
  const players = await playingPolicies(config, task, team.roles.map((r) => r.name), options.onWait === undefined ? {} : { onWait: options.onWait });
  const { samples, episodes, played, interrupted } = await rolloutInBatches(
    {
      team,
      source: task.createSource(taskOptions(config), config.seed),
      tasks: Array.from({ length: count }, (_, i) => i),
      split: 'train',
      policyFor: players.policyFor,
      options: rolloutOptions(config),
      seed: config.seed,
      step: 0,
    },
    options.signal === undefined ? { batch: count } : { batch: config.rollout.tasks, signal: options.signal },
  ).finally(() => players.dispose?.());
  const advantages = computeAdvantages(regroup(samples, config.advantage.group_by), config.advantage.estimator, {
    filterZeroVariance: config.advantage.filter_zero_variance,
    stdFloor: config.advantage.std_floor,
  });
  const lines = advantages.samples.map((s) => `${sampleToJson(s)}\n`).join('');
  const toStdout = options.out === '-';
  if (toStdout) process.stdout.write(lines);
  else if (options.out !== undefined) writeFileAtomic(options.out, lines);

  const summary = summarizeRollout(samples, episodes);
  const print = options.print ?? ((text: string) => (toStdout ? process.stderr : process.stdout).write(text));
  print(formatSummary(config, summary, interrupted ? `${played} of ${count}` : String(count), toStdout ? 'stdout' : (options.out ?? '(no file)'), advantages));
  return { config, summary, groups: advantages.groups, droppedGroups: advantages.droppedGroups, droppedSamples: advantages.droppedSamples, samples: advantages.samples, episodes, interrupted };
}

function formatSummary(
  config: ResolvedConfig,
  s: RolloutSummary,
  tasks: string,
  out: string,
  adv: { groups: number; droppedGroups: number; droppedSamples: number },
): string {
  const r = config.rollout;
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  const num = (x: number) => x.toFixed(3).padStart(8);
  const lines = [
    `rollout ${config.name}: ${config.tasks.name}, ${tasks} tasks, ${r.mode} K=${r.k}${r.mode === 'tree' && r.continue !== 'best' ? ` continue ${JSON.stringify(r.continue)}` : ''}, ${config.team.variant} ${config.team.order}, seed ${config.seed}`,
    `${trainSuccessName(successOf(rolloutOptions(config)))} ${pct(s.successRate)} (${s.successes}/${s.episodes} episodes)  mean turns ${s.meanTurns.toFixed(2)}  ` +
      `parse failures ${s.parseFailures}  generation errors ${s.generationErrors}  failed actions ${s.failures}`,
    `role        samples   local  global   total`,
    ...Object.entries(s.roles).map(
      ([role, x]) => `${role.padEnd(10)} ${String(x.samples).padStart(8)}${num(x.meanLocal)}${num(x.meanGlobal)}${num(x.meanTotal)}`,
    ),
    `advantages: ${config.advantage.estimator} over ${adv.groups} groups` +
      (config.advantage.filter_zero_variance
        ? `, dropped ${adv.droppedGroups} zero-variance groups (${adv.droppedSamples} samples)`
        : ''),
    `wrote ${s.samples - adv.droppedSamples} samples to ${out}`,
  ];
  return `${lines.join('\n')}\n`;
}
