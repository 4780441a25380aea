/**
 * How a config fares from load to its first episode, without the minutes a real run takes:
 * resolved, checked as `troupe train` checks it (when its policy kind trains), its task, team
 * and task source built, and one task played by the task's scripted player with the config's
 * rollout settings. The property test over mutated example configs (config-probe.test.ts,
 * scripts/mutate-configs.mjs) asserts every outcome is `starts` or one error line.
 *
 * ```ts
 * const outcome = await probeConfig(YAML.parse(text), 'examples/toy.yaml');
 * if (outcome.kind === 'crash') console.log(outcome.detail);   // a stack trace a user would see
 * ```
 */
import { resolveConfig } from '../config/resolve-config.js';
import { rolloutOptions, taskOptions, teamOptions } from '../config/runtime-options.js';
import { taskOf } from '../config/task-of-config.js';
import type { Env, TaskSource, Team } from '../envs/types.js';
import { scriptedPolicies } from '../policy/scripted-policies.js';
import { rollout } from '../rollout/rollout.js';
import { TroupeError } from '../util/errors.js';
import { checkTrainable } from './setup-run.js';

export type ProbeOutcome =
  | { readonly kind: 'starts' }
  /**
   * A TroupeError: what the CLI prints as `troupe: <category> error: <message>`, one line (or,
   * when several keys are wrong, a head line and one line per problem), no stack frames.
   */
  | { readonly kind: 'error-line'; readonly line: string }
  /** Anything else: an uncaught exception, which the CLI would print with a stack trace. */
  | { readonly kind: 'crash'; readonly detail: string };

export async function probeConfig(object: unknown, source: string): Promise<ProbeOutcome> {
  try {
    const config = resolveConfig(object, { source });
    if (config.policy.kind === 'embedded' || config.policy.kind === 'tinker') checkTrainable(config);
    const task = taskOf(config);
    const team = task.createTeam(taskOptions(config), teamOptions(config)) as Team<Env>;
    const tasks = task.createSource(taskOptions(config), config.seed) as TaskSource<Env>;
    await rollout({ team, source: tasks, tasks: [0], policyFor: scriptedPolicies(task.scripted, 0.5), options: rolloutOptions(config), seed: config.seed, step: 0 });
    return { kind: 'starts' };
  } catch (error) {
    if (error instanceof TroupeError && !/^\s+at /m.test(error.message)) return { kind: 'error-line', line: `troupe: ${error.category} error: ${error.message}` };
    return { kind: 'crash', detail: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
}
