/**
 * `troupe eval`: success rate, mean turns and per-role rewards on held-out tasks (the eval
 * split, which training never sees), with a 95% interval.
 *
 *   npx troupe eval runs/plan-path-team            # a run folder: its config and newest checkpoint
 *   npx troupe eval examples/plan-path.yaml --set policy.skill=0.9 --json
 *
 * A slow (remote) model shows how many completions came back on stderr; when every completion
 * failed (a dead server, a wrong model name) the command fails instead of reporting 0%.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { readConfig } from '../config/read-config.js';
import { rolloutOptions, taskOptions, teamOptions } from '../config/runtime-options.js';
import type { BackendName } from '../engine/kernels/backend-name.js';
import { getTask, type AnyTaskDefinition } from '../envs/registry.js';
import { evaluate, type EvalResult } from '../train/evaluate.js';
import { playingPolicies } from '../train/playing-policies.js';
import { TroupeError } from '../util/errors.js';
import { backendOption, withBackendSet } from './backend-option.js';
import { watchPolicies } from './eval-progress.js';

export interface EvalCommandOptions {
  /** A run folder or a config file (or, from the API, the config as an object). */
  readonly target: string | Readonly<Record<string, unknown>>;
  /** Task definitions from code (defineTask). */
  readonly definitions?: readonly AnyTaskDefinition[];
  readonly set?: readonly string[];
  /** Held-out tasks (default train.eval_tasks). */
  readonly tasks?: number;
  /** Progress lines while the team plays (default none). */
  readonly progress?: { readonly stream: { write(text: string): unknown; readonly isTTY?: boolean }; readonly everyMs: number };
}

export async function runEvalCommand(options: EvalCommandOptions): Promise<EvalResult & { source: string; name: string }> {
  const target = options.target;
  const isRun = typeof target === 'string' && existsSync(target) && statSync(target).isDirectory();
  const configPath = isRun ? join(target, 'config.yaml') : target;
  if (isRun && !existsSync(configPath as string)) {
    throw new TroupeError('input', `${target} is a folder without config.yaml; give a run folder (runs/<name>) or a config file`);
  }
  const config = await readConfig({ config: configPath, set: options.set ?? [], tasks: options.definitions ?? [] });
  const task = getTask(config.tasks.name);
  const team = task.createTeam(taskOptions(config), teamOptions(config));
  const players = await playingPolicies(config, task, team.roles.map((r) => r.name), isRun ? (target as string) : undefined);
  const { source, dispose } = players;
  const watch = watchPolicies(players.policyFor, { label: `eval ${config.name}`, everyMs: options.progress?.everyMs ?? 0, ...(options.progress ? { stream: options.progress.stream } : {}) });
  const policyFor = watch.policyFor;
  try {
    const result = await evaluate({
      team,
      source: task.createSource(taskOptions(config), config.seed),
      policyFor,
      rollout: rolloutOptions(config),
      tasks: options.tasks ?? config.train.eval_tasks,
      temperature: config.train.eval_temperature,
      seed: config.seed,
    });
    if (watch.allFailed()) {
      throw new TroupeError('policy', `every one of the ${watch.counts().completions} completions failed to generate (${source}), so there is no score; the first error: ${result.first_error ?? '(no reason given)'}`);
    }
    return { ...result, source, name: config.name };
  } finally {
    watch.stop();
    dispose?.();
  }
}

export function formatEval(r: EvalResult & { source: string; name: string }): string {
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  const lines = [
    `eval ${r.name} (${r.source}): success ${pct(r.success_rate)} [95% ${pct(r.ci_low)}-${pct(r.ci_high)}] on ${r.n} held-out tasks, mean turns ${r.mean_turns.toFixed(2)}, parse failures ${r.parse_failures}`,
    ...Object.entries(r.roles).map(([role, x]) => `  ${role.padEnd(8)} reward ${x.reward.toFixed(3)} (local ${x.local.toFixed(3)}, global ${x.global.toFixed(3)})`),
    ...(r.generation_errors > 0 ? [`warning: ${r.generation_errors} completions could not be generated; the first: ${r.first_error ?? '(no reason given)'}`] : []),
  ];
  return `${lines.join('\n')}\n`;
}

export function evalCommand(): Command {
  return new Command('eval')
    .description('score a team on held-out tasks: success rate with a 95% interval, mean turns, per-role rewards')
    .argument('<config-or-run>', 'a run folder (runs/<name>) or a config file')
    .option('--set <key=value>', 'override one config key (repeatable)', (v: string, acc: string[]) => [...acc, v], [] as string[])
    .option('--tasks <n>', 'number of held-out tasks (default train.eval_tasks)', (v: string) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1) throw new TroupeError('input', `--tasks: expected a whole number >= 1, got ${JSON.stringify(v)}`);
      return n;
    })
    .option('--json', 'print one JSON object')
    .addOption(backendOption())
    .action(async (target: string, opts: { set: string[]; tasks?: number; json?: boolean; backend?: BackendName }) => {
      const progress = { stream: process.stderr, everyMs: process.stderr.isTTY ? 1000 : 5000 };
      const result = await runEvalCommand({ target, set: withBackendSet(opts.set, opts.backend), tasks: opts.tasks, progress });
      process.stdout.write(opts.json ? `${JSON.stringify(result)}\n` : formatEval(result));
    });
}
