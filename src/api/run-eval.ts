/**
 * The evaluation behind `troupe eval` and `evaluate()`: success rate, mean turns and per-role
 * rewards on held-out tasks (the eval split, which training never sees), with a 95% interval.
 * When every completion failed (a dead server, a wrong model name) it throws instead of
 * reporting 0%.
 *
 * ```ts
 * const score = await runEval({ target: 'runs/plan-path-team', tasks: 50 });
 * ```
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readConfig, readRunConfig } from '../config/read-config.js';
import { rolloutOptions, taskOptions, teamOptions } from '../config/runtime-options.js';
import type { AnyTaskDefinition } from '../envs/task-catalog.js';
import { taskOf } from '../config/task-of-config.js';
import { evaluateStoppable, type EvalResult } from '../train/evaluate.js';
import { playingPolicies } from '../train/playing-policies.js';
import { watchPolicies } from '../train/progress/eval-progress.js';
import { TroupeError } from '../util/errors.js';
import type { TroupeConfig } from '../config/troupe-config.js';

export interface EvalRunOptions {
  /** A run folder or a config file (or, from the API, the config as an object). */
  readonly target: string | TroupeConfig;
  /** Task definitions from code (defineTask). */
  readonly definitions?: readonly AnyTaskDefinition[];
  readonly set?: readonly string[];
  /** Held-out tasks (default train.eval_tasks). */
  readonly tasks?: number;
  /** Progress lines while the team plays (default none). */
  readonly progress?: { readonly stream: { write(text: string): unknown; readonly isTTY?: boolean }; readonly everyMs: number };
  /**
   * Stops the evaluation: with a signal the tasks are played `rollout.tasks` at a time (the
   * config's batch), and an abort scores the batches already played.
   */
  readonly signal?: AbortSignal;
  /**
   * Hears `still waiting for <op> request <id> from <url> (N min)` after each full minute one
   * request to a Tinker service is pending (policy.kind tinker; the wait is capped by
   * policy.tinker.future_timeout_s). The library prints nothing itself; the CLI writes these to stderr.
   */
  readonly onWait?: (message: string) => void;
}

/** What runEval returns; `interrupted` is there only when the signal stopped it early. */
export type EvalRunResult = EvalResult & { source: string; name: string; interrupted?: true };

export async function runEval(options: EvalRunOptions): Promise<EvalRunResult> {
  const target = options.target;
  const isRun = typeof target === 'string' && existsSync(target) && statSync(target).isDirectory();
  const configPath = isRun ? join(target, 'config.yaml') : target;
  if (isRun && !existsSync(configPath as string)) {
    throw new TroupeError('input', `${target} is a folder without config.yaml; give a run folder (runs/<name>) or a config file`);
  }
  const input = { set: options.set ?? [], tasks: options.definitions ?? [] };
  const config = isRun ? await readRunConfig(target as string, input) : await readConfig({ ...input, config: configPath });
  const task = taskOf(config);
  const team = task.createTeam(taskOptions(config), teamOptions(config));
  const players = await playingPolicies(config, task, team.roles.map((r) => r.name), {
    ...(isRun ? { runDir: target as string } : {}),
    ...(options.onWait === undefined ? {} : { onWait: options.onWait }),
  });
  const { source, dispose } = players;
  const watch = watchPolicies(players.policyFor, { label: `eval ${config.name}`, everyMs: options.progress?.everyMs ?? 0, ...(options.progress ? { stream: options.progress.stream } : {}) });
  const policyFor = watch.policyFor;
  try {
    const { result, interrupted } = await evaluateStoppable({
      team,
      source: task.createSource(taskOptions(config), config.seed),
      policyFor,
      rollout: rolloutOptions(config),
      tasks: options.tasks ?? config.train.eval_tasks,
      temperature: config.train.eval_temperature,
      seed: config.seed,
      ...(options.signal === undefined ? {} : { signal: options.signal, batch: config.rollout.tasks }),
    });
    if (watch.allFailed()) {
      throw new TroupeError('policy', `every one of the ${watch.counts().completions} completions failed to generate (${source}), so there is no score; the first error: ${result.first_error ?? '(no reason given)'}`);
    }
    return { ...result, source, name: config.name, ...(interrupted ? { interrupted: true as const } : {}) };
  } finally {
    watch.stop();
    dispose?.();
  }
}
