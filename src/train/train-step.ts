/**
 * One RL step of AT-GRPO / GRPO: play a batch of training tasks with the current policies,
 * compute group-relative advantages, route each policy's samples to its own learner, update
 * every learner once, and summarise the step as a metrics record.
 *
 * The two halves are separate functions so that asynchronous training (async/step-pipeline.ts)
 * can play the rollout of a later step while this step's update runs; `trainStep` is the
 * on-policy composition, rollout then update.
 */
import { computeAdvantages } from '../algo/compute-advantages.js';
import type { EstimatorName } from '../algo/advantage-estimators.js';
import { regroup, type Grouping } from '../algo/regroup.js';
import type { Env, TaskSource, Team } from '../envs/types.js';
import type { Policy } from '../policy/types.js';
import { rollout } from '../rollout/rollout.js';
import type { EpisodeStats, RolloutOptions, Sample } from '../rollout/types.js';
import { successOf } from './metrics/success-of.js';
import type { PolicyTrainMetrics, RoleTrainMetrics, TrainRecord } from './metrics/types.js';
import type { PolicySet, PolicyUpdate } from './policy-set.js';
import { gapMetrics } from './logprob-gap.js';
import { routeSamples } from './router.js';

export interface TrainStepInput<E extends Env> {
  readonly team: Team<E>;
  readonly source: TaskSource<E>;
  readonly policies: PolicySet;
  readonly rollout: RolloutOptions;
  readonly estimator: EstimatorName;
  readonly filterZeroVariance: boolean;
  /** advantage.std_floor (absent: 0, plain GRPO). */
  readonly stdFloor?: number;
  /** advantage.group_by: the grouping ablation (absent: the rollout's own groups). */
  readonly grouping?: Grouping;
  readonly tasksPerStep: number;
  readonly seed: number;
  readonly step: number;
  readonly lr: number;
  /** Policy ids whose learners are not updated (train.frozen). */
  readonly frozen?: ReadonlySet<string>;
}

export interface TrainStepResult {
  readonly record: TrainRecord;
  /** The step's samples with advantages (for rollouts/step-N.jsonl). */
  readonly samples: readonly Sample[];
  /** What each updated policy's learner reported (the async loop reads its off-policy numbers). */
  readonly updates: ReadonlyMap<string, PolicyUpdate>;
}

/** A step's rollout: what the update of that step trains on. */
export interface StepRollout {
  readonly step: number;
  readonly samples: readonly Sample[];
  readonly episodes: readonly EpisodeStats[];
  /** Seconds the rollout took. */
  readonly rollout_s: number;
}

/** Training task indices of a step: fresh tasks every step, wrapping around a finite dataset. */
export function stepTasks(step: number, tasksPerStep: number, size?: number): number[] {
  const first = step * tasksPerStep;
  if (size === undefined) return Array.from({ length: tasksPerStep }, (_, i) => first + i);
  const count = Math.min(tasksPerStep, size);
  return Array.from({ length: count }, (_, i) => (first + i) % size);
}

const mean = (values: readonly number[]): number | null => (values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length);

/**
 * Plays step `input.step`'s tasks (or `tasks`, a subset of them) with `policyFor`
 * (default: the set's current policies).
 */
export async function rolloutStep<E extends Env>(input: TrainStepInput<E>, options: { policyFor?: (role: string) => Policy; tasks?: readonly number[] } = {}): Promise<StepRollout> {
  const started = performance.now();
  const { samples, episodes } = await rollout({
    team: input.team,
    source: input.source,
    tasks: options.tasks ?? stepTasks(input.step, input.tasksPerStep, input.source.size),
    policyFor: options.policyFor ?? ((role) => input.policies.policyFor(role)),
    options: input.rollout,
    seed: input.seed,
    step: input.step,
  });
  return { step: input.step, samples, episodes, rollout_s: (performance.now() - started) / 1000 };
}

/** A rollout's samples with group-relative advantages, and the training sequences of each policy. */
export function trainingBatch<E extends Env>(input: Pick<TrainStepInput<E>, 'estimator' | 'filterZeroVariance' | 'stdFloor' | 'grouping' | 'policies'>, samples: readonly Sample[], staleness?: (s: Sample) => number) {
  const grouped = input.grouping === undefined ? samples : regroup(samples, input.grouping);
  const advantaged = computeAdvantages(grouped, input.estimator, { filterZeroVariance: input.filterZeroVariance, stdFloor: input.stdFloor });
  return { advantaged, routed: routeSamples(advantaged.samples, new Set(input.policies.members.keys()), staleness) };
}

/**
 * Advantages, routing and one update per policy on a step's rollout. Policies update
 * concurrently (on a Tinker service each is its own training client; embedded updates run to
 * completion one after the other, in map order, as before).
 */
export async function updateStep<E extends Env>(input: TrainStepInput<E>, rolled: StepRollout, staleness?: (s: Sample) => number): Promise<TrainStepResult> {
  const started = performance.now();
  const { samples, episodes } = rolled;
  const { advantaged, routed } = trainingBatch(input, samples, staleness);
  const updates = new Map<string, PolicyUpdate>();
  await Promise.all(
    [...input.policies.members].map(async ([id, member]) => {
      const sequences = routed.byPolicy.get(id) ?? [];
      if (sequences.length > 0 && input.frozen?.has(id) !== true) updates.set(id, await member.update(sequences, input.lr));
    }),
  );
  const policies: Record<string, PolicyTrainMetrics> = {};
  for (const id of input.policies.members.keys()) {
    const m = updates.get(id);
    policies[id] = m ? { loss: m.loss, clip_fraction: m.clip_fraction, kl: m.kl, entropy: m.entropy, grad_norm: m.grad_norm, tokens: m.tokens, ...gapMetrics(m) } : { loss: null, clip_fraction: null, kl: null, entropy: null, grad_norm: null, tokens: 0 };
  }
  const updateSeconds = (performance.now() - started) / 1000;

  const roles: Record<string, RoleTrainMetrics> = {};
  for (const role of input.team.roles.map((r) => r.name)) {
    const mine = samples.filter((s) => s.role === role);
    roles[role] = {
      reward: mean(mine.map((s) => s.reward.total)),
      local: mean(mine.map((s) => s.reward.local)),
      global: mean(mine.map((s) => s.reward.global)),
      response_len: mean(mine.map((s) => s.response_ids?.length ?? s.response.length)),
      samples: mine.length,
    };
  }
  const tokens = samples.reduce((n, s) => n + (s.response_ids?.length ?? 0), 0);
  const seconds = rolled.rollout_s + updateSeconds;
  const record: TrainRecord = {
    kind: 'train',
    step: input.step,
    success_rate: mean(episodes.map((e) => (e.success ? 1 : 0))),
    success_of: successOf(input.rollout),
    mean_turns: mean(episodes.map((e) => e.turns)),
    episodes: episodes.length,
    samples: samples.length,
    tokens,
    parse_failures: episodes.reduce((n, e) => n + e.parse_failures, 0),
    filtered_groups: advantaged.droppedGroups,
    samples_per_s: samples.length / seconds,
    tokens_per_s: tokens / seconds,
    rollout_s: rolled.rollout_s,
    update_s: updateSeconds,
    lr: input.lr,
    roles,
    policies,
  };
  return { record, samples: advantaged.samples, updates };
}

/** The on-policy step: rollout with the current weights, then the update. */
export async function trainStep<E extends Env>(input: TrainStepInput<E>): Promise<TrainStepResult> {
  return updateStep(input, await rolloutStep(input));
}
