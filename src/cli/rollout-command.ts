/**
 * `troupe rollout`: plays a team on a batch of tasks without training and writes every sample
 * as one JSON line, then prints a short summary.
 *
 *   npx troupe rollout examples/plan-path.yaml --out runs/plan-path-rollout.jsonl
 *   npx troupe rollout examples/toy.yaml --set rollout.k=8 --set policy.skill=0.9 --tasks 4 --out runs/toy.jsonl
 *
 *   npx troupe rollout examples/toy.yaml --out - | jq .role                      # samples on stdout
 *
 * Same config and seed -> byte-identical file. The file is written atomically (temp file +
 * rename) so a crash never leaves a half-written rollout behind. With `--out -` the samples go
 * to stdout and the summary to stderr, so the output pipes.
 */
import { Command } from 'commander';
import { regroup } from '../algo/regroup.js';
import { computeAdvantages } from '../algo/compute-advantages.js';
import { readConfig } from '../config/read-config.js';
import type { ResolvedConfig } from '../config/resolve-config.js';
import { rolloutOptions, taskOptions, teamOptions } from '../config/runtime-options.js';
import { writeFileAtomic } from '../engine/io/atomic-write.js';
import type { BackendName } from '../engine/kernels/backend-name.js';
import { getTask, type AnyTaskDefinition } from '../envs/registry.js';
import { rollout } from '../rollout/rollout.js';
import { sampleToJson } from '../rollout/sample-json.js';
import type { EpisodeStats, Sample } from '../rollout/types.js';
import { summarizeRollout, type RolloutSummary } from '../rollout/summarize-rollout.js';
import { playingPolicies } from '../train/playing-policies.js';
import { successOf, trainSuccessName } from '../train/metrics/success-of.js';
import { TroupeError } from '../util/errors.js';
import { backendOption, withBackendSet } from './backend-option.js';

export interface RolloutCommandOptions {
  /** A config file, or (from the API) the config as an object. */
  readonly config: string | Readonly<Record<string, unknown>>;
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
}

export interface RolloutCommandResult {
  readonly config: ResolvedConfig;
  readonly summary: RolloutSummary;
  readonly groups: number;
  readonly droppedGroups: number;
  readonly droppedSamples: number;
  /** Every sample (advantages set), as written to `out`. */
  readonly samples: readonly Sample[];
  readonly episodes: readonly EpisodeStats[];
}

export async function runRolloutCommand(options: RolloutCommandOptions): Promise<RolloutCommandResult> {
  const config = await readConfig({ config: options.config, set: options.set ?? [], tasks: options.definitions ?? [] });
  const count = options.tasks ?? config.rollout.tasks;
  if (!Number.isInteger(count) || count < 1) {
    throw new TroupeError('input', `--tasks: expected a whole number >= 1, got ${String(options.tasks)}`);
  }
  const task = getTask(config.tasks.name);
  const team = task.createTeam(taskOptions(config), teamOptions(config));
  const players = await playingPolicies(config, task, team.roles.map((r) => r.name));
  const { samples, episodes } = await rollout({
    team,
    source: task.createSource(taskOptions(config), config.seed),
    tasks: Array.from({ length: count }, (_, i) => i),
    split: 'train',
    policyFor: players.policyFor,
    options: rolloutOptions(config),
    seed: config.seed,
    step: 0,
  }).finally(() => players.dispose?.());
  const advantages = computeAdvantages(regroup(samples, config.advantage.group_by), config.advantage.estimator, {
    filterZeroVariance: config.advantage.filter_zero_variance,
  });
  const lines = advantages.samples.map((s) => `${sampleToJson(s)}\n`).join('');
  const toStdout = options.out === '-';
  if (toStdout) process.stdout.write(lines);
  else if (options.out !== undefined) writeFileAtomic(options.out, lines);

  const summary = summarizeRollout(samples, episodes);
  const print = options.print ?? ((text: string) => (toStdout ? process.stderr : process.stdout).write(text));
  print(formatSummary(config, summary, count, toStdout ? 'stdout' : (options.out ?? '(no file)'), advantages));
  return { config, summary, groups: advantages.groups, droppedGroups: advantages.droppedGroups, droppedSamples: advantages.droppedSamples, samples: advantages.samples, episodes };
}

function formatSummary(
  config: ResolvedConfig,
  s: RolloutSummary,
  tasks: number,
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

export function rolloutCommand(): Command {
  return new Command('rollout')
    .description('play a team on a batch of tasks without training; write the samples as JSONL')
    .argument('<config>', 'run config (YAML or JSON), e.g. examples/plan-path.yaml')
    .requiredOption('--out <file>', 'where to write the samples (.jsonl), or - for stdout (the summary then goes to stderr)')
    .option('--set <key=value>', 'override one config key (repeatable), e.g. --set rollout.k=8', (v: string, acc: string[]) => [...acc, v], [] as string[])
    .option('--tasks <n>', 'number of tasks (overrides rollout.tasks)', (v: string) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1) throw new TroupeError('input', `--tasks: expected a whole number >= 1, got ${JSON.stringify(v)}`);
      return n;
    })
    .addOption(backendOption())
    .action(async (config: string, opts: { out: string; set: string[]; tasks?: number; backend?: BackendName }) => {
      await runRolloutCommand({ config, out: opts.out, set: withBackendSet(opts.set, opts.backend), ...(opts.tasks === undefined ? {} : { tasks: opts.tasks }) });
    });
}
