/**
 * The trainer loop's schedule of rollouts and updates, on-policy or asynchronous
 * (`train.max_steps_off_policy: s`).
 *
 * Step k's rollout R_k is sampled with the weights that exist after update k - s (version
 * max(0, k - s) of every policy): with s = 0 that is rollout then update, today's on-policy
 * step; with s >= 1, R_{k+s} is played WHILE update U_k runs, from the newest finished weights.
 *
 *   s = 1:   R0 | U0 + R1 | U1 + R2 | U2 + R3 | ...     (the sampler is always one update behind)
 *   s = 2:   R0 R1 | U0 + R2 | U1 + R3 | ...
 *
 * Each step ends at a barrier (U_k and R_{k+s} both done), so the schedule, and with it every
 * sample and metric, is fixed by (seed, config, s): it does not depend on which of the two
 * finished first. That is what async gives up against a free-running sampler: it never uses
 * weights fresher than k - s even when an update finishes early. What it keeps: determinism,
 * exact resume (the finished rollouts R_{k+1}..R_{k+s} go into the checkpoint), and a bound:
 * no group older than s updates is trained (splitStale requeues one; assertWithinStaleness).
 *
 * Where the overlap is real: on a Tinker service (sampling and training are remote requests;
 * the rollout samples through pinned samplers of the weights it started with), and on the
 * embedded engine with a `sampler` thread (rollout-worker.ts: its own copy of the weights,
 * sent before each rollout). Without one, the embedded engine runs R_{k+s} and then U_k on
 * the same thread: the same numbers, no overlap.
 */
import type { Env } from '../../envs/types.js';
import type { Policy } from '../../policy/types.js';
import type { Sample } from '../../rollout/types.js';
import type { OffPolicyMetrics } from '../metrics/types.js';
import type { PolicySet, PolicyUpdate } from '../policy-set.js';
import { rolloutStep, stepTasks, trainingBatch, updateStep, type StepRollout, type TrainStepInput, type TrainStepResult } from '../train-step.js';
import { assertWithinStaleness, sampleStaleness, splitStale, stalenessHistogram, tagVersions } from './staleness.js';

/** What a checkpoint must hold besides the weights to resume an async run exactly. */
export interface PipelineState {
  /** Updates each policy has received. */
  readonly versions: Record<string, number>;
  /** Finished rollouts of the steps after the checkpoint's (R_{k+1}..R_{k+s}). */
  readonly pending: readonly StepRollout[];
}

export type StepBase = Omit<TrainStepInput<Env>, 'step' | 'lr'>;

/** A sampler on another thread (rollout-worker.ts): rollouts with the weights last sent. */
export interface AheadSampler {
  syncWeights(): void;
  rollout(step: number): Promise<StepRollout>;
}

/** The rollouts' policies, fixed to the current weights (Tinker samplers pinned; embedded ones run before the update). */
function pinnedPolicies(policies: PolicySet): (role: string) => Policy {
  const pinned = new Map<string, Policy>();
  for (const [id, member] of policies.members) pinned.set(id, member.backend === 'tinker' ? member.policy.pinned() : member.policy);
  return (role) => pinned.get(policies.roleToPolicy.get(role)!) ?? policies.policyFor(role);
}

export class StepPipeline {
  private readonly base: StepBase;
  private readonly maxOffPolicy: number;
  private readonly steps: number;
  private readonly pending = new Map<number, StepRollout>();
  private readonly versions = new Map<string, number>();
  /** The rollout and the update overlap only when nothing runs in this thread (every policy on a service). */
  private readonly overlap: boolean;
  private readonly sampler: AheadSampler | undefined;

  constructor(init: { base: StepBase; maxOffPolicy: number; steps: number; sampler?: AheadSampler }) {
    this.base = init.base;
    this.sampler = init.sampler;
    this.maxOffPolicy = init.maxOffPolicy;
    this.steps = init.steps;
    for (const id of init.base.policies.members.keys()) this.versions.set(id, 0);
    this.overlap = [...init.base.policies.members.values()].every((m) => m.backend === 'tinker');
  }

  get async(): boolean {
    return this.maxOffPolicy > 0;
  }

  /** The state after the last finished step, for a checkpoint (undefined on-policy: nothing is in flight). */
  state(): PipelineState | undefined {
    if (!this.async) return undefined;
    return { versions: Object.fromEntries(this.versions), pending: [...this.pending.values()].sort((a, b) => a.step - b.step) };
  }

  restore(state: PipelineState): void {
    for (const [id, v] of Object.entries(state.versions)) this.versions.set(id, v);
    for (const r of state.pending) this.pending.set(r.step, r);
  }

  /** Step k: its update, and (async) the rollout of step k + s beside it. */
  async step(step: number, lr: number): Promise<TrainStepResult> {
    const input: TrainStepInput<Env> = { ...this.base, step, lr };
    // The prologue (and every on-policy step): rollouts that must exist before U_k, in order.
    const last = Math.max(step, Math.min(step + this.maxOffPolicy - 1, this.steps - 1));
    for (let j = step; j <= last; j++) {
      if (!this.pending.has(j)) this.pending.set(j, await this.rollout(j));
    }
    const ahead = step + this.maxOffPolicy;
    const sampleAhead = this.async && ahead < this.steps && !this.pending.has(ahead);
    let result: TrainStepResult;
    let next: StepRollout | undefined;
    if (!this.async) {
      result = await updateStep(input, this.take(step));
    } else if (this.overlap) {
      const pinned = pinnedPolicies(this.base.policies);
      const updating = this.update(input);
      const rolling = sampleAhead ? this.rollout(ahead, pinned) : undefined;
      void this.prefetchNext(step + 1, rolling);
      [result, next] = await Promise.all([updating, rolling]);
    } else if (this.sampler) {
      // The thread gets this step's weights (version k), starts R_{k+s}, and U_k runs here meanwhile.
      const elsewhere = sampleAhead ? this.rolloutElsewhere(this.sampler, ahead) : undefined;
      [result, next] = await Promise.all([this.update(input), elsewhere]);
    } else {
      next = sampleAhead ? await this.rollout(ahead) : undefined;
      result = await this.update(input);
    }
    if (next) this.pending.set(ahead, next);
    return result;
  }

  /**
   * Tinker learners: U_{k+1}'s forwards go to the service as soon as its batch exists (R_{k+1}
   * pending, or the rollout now beside U_k) and U_k has called its optimizer step, so they run
   * there right after it (TinkerLearner.prefetch). Only a head start: U_{k+1} checks they are
   * its batch's at its weights and sends its own otherwise, so any failure here is ignored.
   */
  private async prefetchNext(nextStep: number, rolling: Promise<StepRollout> | undefined): Promise<void> {
    try {
      const rolled = this.pending.get(nextStep) ?? (await rolling);
      if (nextStep >= this.steps || rolled?.step !== nextStep) return;
      const { routed } = trainingBatch(this.base, rolled.samples);
      for (const [id, member] of this.base.policies.members) {
        const sequences = routed.byPolicy.get(id) ?? [];
        if (member.backend === 'tinker' && sequences.length > 0 && this.base.frozen?.has(id) !== true) member.learner.prefetch(sequences).catch(() => undefined);
      }
    } catch {
      // U_{k+1} sends its own forwards and reports what failed.
    }
  }

  private take(step: number): StepRollout {
    const rolled = this.pending.get(step)!;
    this.pending.delete(step);
    return rolled;
  }

  /** R_j with the current weights; async samples carry the version that produced them. */
  private async rollout(step: number, policyFor?: (role: string) => Policy, tasks?: readonly number[]): Promise<StepRollout> {
    const versions = new Map(this.versions);
    const rolled = await rolloutStep({ ...this.base, step, lr: 0 }, { policyFor, tasks });
    return this.async ? { ...rolled, samples: tagVersions(rolled.samples, versions) } : rolled;
  }

  private async rolloutElsewhere(sampler: AheadSampler, step: number): Promise<StepRollout> {
    const versions = new Map(this.versions);
    sampler.syncWeights();
    const rolled = await sampler.rollout(step);
    return { ...rolled, samples: tagVersions(rolled.samples, versions) };
  }

  /** U_k on R_k: stale tasks sampled again first, the bound asserted, versions advanced. */
  private async update(input: TrainStepInput<Env>): Promise<TrainStepResult> {
    let rolled = this.take(input.step);
    const split = splitStale(rolled.samples, this.versions, this.maxOffPolicy);
    if (split.staleTasks.length > 0) rolled = await this.requeue(rolled, split.staleTasks, split.fresh);
    assertWithinStaleness(rolled.samples, this.versions, this.maxOffPolicy);
    const versions = new Map(this.versions);
    const histogram = stalenessHistogram(rolled.samples, versions);
    const result = await updateStep(input, rolled, (s) => sampleStaleness(s, versions));
    for (const id of result.updates.keys()) this.versions.set(id, this.versions.get(id)! + 1);
    const gaps = [...result.updates.values()].map((u) => u.max_logprob_gap ?? 0);
    const offPolicy: OffPolicyMetrics = {
      max_steps_off_policy: this.maxOffPolicy,
      staleness: histogram,
      max_staleness: Math.max(0, ...Object.keys(histogram).map(Number)),
      requeued_groups: split.requeuedGroups,
      trained_groups: new Set(rolled.samples.map((s) => `${s.policy}\u0000${s.group}`)).size,
      logprob_gap_max: gaps.length === 0 ? null : Math.max(...gaps),
      ...isWeightRange(result.updates.values()),
    };
    return { ...result, record: { ...result.record, off_policy: offPolicy } };
  }

  /** The tasks of `staleTasks` played again with the current weights, in place of their old samples. */
  private async requeue(rolled: StepRollout, staleTasks: readonly string[], fresh: readonly Sample[]): Promise<StepRollout> {
    const ids = new Set(staleTasks);
    const { source, tasksPerStep } = this.base;
    const indices = stepTasks(rolled.step, tasksPerStep, source.size).filter((i) => ids.has(source.make(i, 'train').taskId));
    const again = await this.rollout(rolled.step, undefined, indices);
    return {
      step: rolled.step,
      samples: [...fresh, ...again.samples],
      episodes: [...rolled.episodes.filter((e) => !ids.has(e.task_id)), ...again.episodes],
      rollout_s: rolled.rollout_s + again.rollout_s,
    };
  }
}

/** The truncated importance weights' range over the step's updates (null when no learner reported one). */
function isWeightRange(updates: Iterable<PolicyUpdate>): { is_weight_min: number | null; is_weight_max: number | null } {
  const all = [...updates];
  const lows = all.flatMap((u) => (u.is_weight_min === undefined ? [] : [u.is_weight_min]));
  const highs = all.flatMap((u) => (u.is_weight_max === undefined ? [] : [u.is_weight_max]));
  return { is_weight_min: lows.length === 0 ? null : Math.min(...lows), is_weight_max: highs.length === 0 ? null : Math.max(...highs) };
}
