/**
 * The learner of a `policy.kind: tinker` policy: Troupe's exact PPO-clip update
 * (src/algo/policy-loss.ts) run on a Tinker-compatible service.
 *
 * One update is Tinker's custom-loss recipe (what the SDK's forward_backward_custom does):
 *
 *   1. `forward` every sequence (prompt + response) -> the current logprobs of its tokens;
 *      they must equal the sampler's (the stale-weight check of the embedded learner);
 *   2. Troupe's policy loss on those logprobs, here -> d(loss)/d(logprob) per token;
 *   3. `forward_backward` with `cross_entropy` and weights = -d(loss)/d(logprob) (the service
 *      backpropagates sum(-w * logprob), whose gradient is exactly Troupe's; on a service that
 *      averages instead of summing, the same gradient another way: gradient-datums.ts), then
 *      `optim_step` with Troupe's AdamW settings, then `save_weights_for_sampler`:
 *      three requests sent back to back (pipelined: the client submits each once the previous
 *      one is acknowledged, so every service runs them in call order).
 *
 * Asynchronous training knows the next batch while an update runs: `prefetch` sends its forwards
 * (step 1 above) right after this update's optim_step, and the next `update` takes them when they
 * are its batch's at its weights (TinkerTrainingModel.weightVersion).
 *
 * With a KL penalty (train.kl_coef > 0) the reference is the base model, as for an embedded
 * LoRA learner: its logprobs of the batch come from one `forward` on a reference training
 * client that is never trained (a fresh LoRA adds B A x with B = 0, so it IS the base model),
 * sent together with the policy's own `forward`. One request for the whole batch, where the
 * SDK's compute_logprobs on a base sampler would take one `asample` per sequence.
 *
 * The loss, clip fraction and KL are computed here from the service's logprobs, so they are
 * the embedded learner's numbers for the same weights. Entropy is not available: the API
 * returns the logprob of the sampled token only, not the distribution (reported as null).
 */
import { policyLoss, type PolicyLossOptions } from '../algo/policy-loss.js';
import { gradientDatums, type LossReduction } from './gradient-datums.js';
import type { TinkerTrainingModel } from '../tinker/tinker-client.js';
import type { ForwardBackwardOutput } from '../tinker/types.js';
import { TroupeError } from '../util/errors.js';

/** One sampled response with its advantage (the embedded learner's TrainingSequence). */
export interface TinkerTrainingSequence {
  readonly promptIds: readonly number[];
  readonly responseIds: readonly number[];
  readonly oldLogprobs: readonly number[];
  readonly advantage: number;
  /** Asynchronous training: updates since sampling (absent = 0); only fresh sequences must match the service's logprobs. */
  readonly staleness?: number;
}

export interface TinkerLearnerOptions {
  readonly loss: PolicyLossOptions;
  readonly gradClip: number;
  readonly weightDecay: number;
  readonly logprobTolerance: number;
  /**
   * PPO's "old" policy: the sampler's logprobs (default), or (`learner`, what asynchronous
   * training resolves `auto` to) the service's forward logprobs with each token weighted by the
   * truncated importance ratio min(exp(forward - sampler), tisCap): decoupled PPO.
   */
  readonly oldLogprobs?: 'auto' | 'sampler' | 'learner';
  readonly tisCap?: number;
  /** How the service reduces a datum's per-token losses (gradient-datums.ts); default `sum`, the Tinker API's. */
  readonly lossReduction?: LossReduction;
  /** AdamW moments; Troupe's defaults (not Tinker's) so that runs match embedded ones. */
  readonly beta1?: number;
  readonly beta2?: number;
  readonly eps?: number;
}

export interface TinkerUpdateMetrics {
  readonly loss: number;
  readonly clip_fraction: number;
  readonly kl: number | null;
  readonly entropy: null;
  readonly grad_norm: number | null;
  readonly tokens: number;
  readonly sequences: number;
  readonly max_logprob_gap: number;
  readonly mean_logprob_gap: number;
  /** Decoupled PPO only: the truncated importance weights' range and mean. */
  readonly is_weight_min?: number;
  readonly is_weight_max?: number;
  readonly is_weight_mean?: number;
  readonly is_truncated_fraction?: number;
}

type Forwards = [ForwardBackwardOutput, ForwardBackwardOutput | undefined];

/** A batch's forwards sent before its update (TinkerLearner.prefetch). */
interface Prefetched {
  /** The model's weightVersion when they were sent: they saw those weights. */
  readonly weightVersion: number;
  readonly sequences: readonly TinkerTrainingSequence[];
  readonly forwards: Promise<Forwards>;
}

/** Same tokens, in the same order: the forwards of one batch are the forwards of the other. */
function sameTokens(a: readonly TinkerTrainingSequence[], b: readonly TinkerTrainingSequence[]): boolean {
  const equal = (x: readonly number[], y: readonly number[]) => x.length === y.length && x.every((v, i) => v === y[i]);
  return a.length === b.length && a.every((s, i) => equal(s.promptIds, b[i]!.promptIds) && equal(s.responseIds, b[i]!.responseIds));
}

export class TinkerLearner {
  readonly policyId: string;
  private current: TinkerTrainingModel;
  private readonly options: TinkerLearnerOptions;
  private readonly reference?: TinkerTrainingModel;
  private prefetched: Prefetched | undefined;
  private prefetchHits = 0;
  /** Resolves once the running update has called optim_step: a prefetch is sent after it. */
  private optimCalled: Promise<void> = Promise.resolve();

  /** `reference`: a never-trained LoRA training client of the base model, needed when options.loss.klCoef > 0. */
  constructor(init: { policyId: string; model: TinkerTrainingModel; options: TinkerLearnerOptions; reference?: TinkerTrainingModel }) {
    if (init.options.loss.klCoef !== 0 && init.reference === undefined) {
      throw new TroupeError('config', `policy '${init.policyId}': a KL coefficient is set but there is no reference model (an untrained LoRA of the base) to take reference logprobs from`);
    }
    this.policyId = init.policyId;
    this.current = init.model;
    this.options = init.options;
    this.reference = init.reference;
  }

  /** The training client that updates go to. */
  get model(): TinkerTrainingModel {
    return this.current;
  }

  /**
   * Trains from now on through `model` (a fresh client that loaded a checkpoint: a Tinker
   * service takes load_weights only as a client's first request). Forwards prefetched on the
   * previous client are dropped.
   */
  useModel(model: TinkerTrainingModel): void {
    this.current = model;
    this.prefetched = undefined;
  }

  /**
   * Sends the forwards of the NEXT update's batch now (asynchronous training, where that batch
   * exists while this update runs), so that the service runs them right after this update's
   * optimizer step instead of after the trainer's turn-around. Waits for the running update to
   * call optim_step first. `update` uses them only when its batch has the same tokens and no
   * weight change was called since (the same weights, so the same numbers); otherwise it sends
   * its own, and a prefetch is only wasted work.
   */
  async prefetch(sequences: readonly TinkerTrainingSequence[]): Promise<void> {
    await this.optimCalled;
    const usable = sequences.filter((s) => s.responseIds.length > 0);
    if (usable.length === 0) return;
    const forwards = this.forwards(usable);
    // Its errors are update()'s to report, if it uses it; an unused one must not crash the process.
    forwards.catch(() => undefined);
    this.prefetched = { weightVersion: this.model.weightVersion, sequences: usable, forwards };
  }

  /** Updates that used forwards sent by `prefetch`. */
  get prefetchesUsed(): number {
    return this.prefetchHits;
  }

  /** The policy's forward of the batch and (with a KL penalty) the reference's, sent together. */
  private forwards(usable: readonly TinkerTrainingSequence[]): Promise<Forwards> {
    const unweighted = gradientDatums(usable, usable.map(() => []), [], 'sum').data; // weights 0: scores only
    return Promise.all([
      this.model.forwardBackward(unweighted, 'cross_entropy', { forwardOnly: true }),
      this.options.loss.klCoef !== 0 ? this.reference!.forwardBackward(unweighted, 'cross_entropy', { forwardOnly: true }) : undefined,
    ]);
  }

  /** The prefetched forwards if they are this batch's at the current weights. */
  private takePrefetched(usable: readonly TinkerTrainingSequence[]): Promise<Forwards> | undefined {
    const prefetched = this.prefetched;
    this.prefetched = undefined;
    if (prefetched === undefined || prefetched.weightVersion !== this.model.weightVersion || !sameTokens(prefetched.sequences, usable)) return undefined;
    this.prefetchHits++;
    return prefetched.forwards;
  }

  /** One policy-gradient step at learning rate `lr`; resolves to the metrics and a sampler of the new weights. */
  async update(sequences: readonly TinkerTrainingSequence[], lr: number): Promise<{ metrics: TinkerUpdateMetrics; sampler: string }> {
    let optimCalled!: () => void;
    this.optimCalled = new Promise<void>((resolve) => (optimCalled = resolve));
    try {
      return await this.runUpdate(sequences, lr, optimCalled);
    } finally {
      optimCalled();
    }
  }

  private async runUpdate(sequences: readonly TinkerTrainingSequence[], lr: number, optimCalled: () => void): Promise<{ metrics: TinkerUpdateMetrics; sampler: string }> {
    const usable = sequences.filter((s) => s.responseIds.length > 0);
    if (usable.length === 0) throw new TroupeError('invariant', `internal invariant broken: policy '${this.policyId}' was asked to update on no response tokens`);
    const withKl = this.options.loss.klCoef !== 0;
    const [forward, reference] = await (this.takePrefetched(usable) ?? this.forwards(usable));
    const flat = { logprobs_N: [] as number[], oldLogprobs_N: [] as number[], advantages_N: [] as number[], sequence_N: [] as number[], refLogprobs_N: [] as number[] };
    let freshGap = 0;
    usable.forEach((s, b) => {
      const all = forward.loss_fn_outputs[b]!.logprobs!.data;
      for (let t = 0; t < s.responseIds.length; t++) {
        if (reference) flat.refLogprobs_N.push(reference.loss_fn_outputs[b]!.logprobs!.data[s.promptIds.length - 1 + t]!);
        flat.logprobs_N.push(all[s.promptIds.length - 1 + t]!);
        flat.oldLogprobs_N.push(s.oldLogprobs[t]!);
        if ((s.staleness ?? 0) === 0) freshGap = Math.max(freshGap, Math.abs(flat.logprobs_N.at(-1)! - s.oldLogprobs[t]!));
        flat.advantages_N.push(s.advantage);
        flat.sequence_N.push(b);
      }
    });
    // Stale sequences (asynchronous training) were sampled by older weights: their gap is data.
    const gap = flat.logprobs_N.reduce((g, lp, i) => Math.max(g, Math.abs(lp - flat.oldLogprobs_N[i]!)), 0);
    if (!(freshGap <= this.options.logprobTolerance)) {
      throw new TroupeError('invariant', `policy '${this.policyId}': logprobs recorded at sampling differ from the service's forward logprobs by up to ${freshGap.toExponential(2)} (tolerance ${this.options.logprobTolerance}); the sampler did not use the training model's current weights`);
    }
    const decoupled = this.options.oldLogprobs === 'learner';
    const refLogprobs_N = withKl ? flat.refLogprobs_N : undefined;
    // Decoupled: the forward (the weights before this step) is the old policy, the sampler's
    // logprobs the behaviour policy whose truncated ratio weights each token.
    const result = decoupled
      ? policyLoss({ ...flat, oldLogprobs_N: flat.logprobs_N, behaviourLogprobs_N: flat.oldLogprobs_N, refLogprobs_N }, { ...this.options.loss, tisCap: this.options.tisCap ?? 2 })
      : policyLoss({ ...flat, refLogprobs_N }, this.options.loss);
    const weights = result.importance;
    let at = 0;
    const coefficients = usable.map((s) => {
      const w = new Float32Array(s.responseIds.length);
      for (let t = 0; t < w.length; t++, at++) w[t] = -result.dLogprobs_N[at]!;
      return w;
    });
    const forwardLogprobs = usable.map((_, b) => forward.loss_fn_outputs[b]!.logprobs!.data);
    const { lossFn, data } = gradientDatums(usable, coefficients, forwardLogprobs, this.options.lossReduction ?? 'sum');
    const o = this.options;
    const adam = { learning_rate: lr, beta1: o.beta1 ?? 0.9, beta2: o.beta2 ?? 0.999, eps: o.eps ?? 1e-8, weight_decay: o.weightDecay, grad_clip_norm: o.gradClip };
    // Pipelined: called together; the client submits them in call order without waiting for results.
    const sent = Promise.all([this.model.forwardBackward(data, lossFn), this.model.optimStep(adam), this.model.saveForSampler()]);
    optimCalled();
    const [, step, sampler] = await sent;
    const gradNorm = step.metrics?.['grad_norm:mean'];
    return {
      metrics: {
        loss: result.loss,
        clip_fraction: result.clipFraction,
        kl: withKl ? result.kl : null,
        entropy: null,
        grad_norm: gradNorm === undefined ? null : gradNorm,
        tokens: flat.logprobs_N.length,
        sequences: usable.length,
        max_logprob_gap: gap,
        mean_logprob_gap: flat.logprobs_N.length === 0 ? 0 : flat.logprobs_N.reduce((sum, lp, i) => sum + Math.abs(lp - flat.oldLogprobs_N[i]!), 0) / flat.logprobs_N.length,
        ...(weights === null ? {} : { is_weight_min: weights.minWeight, is_weight_max: weights.maxWeight, is_weight_mean: weights.meanWeight, is_truncated_fraction: weights.truncatedFraction }),
      },
      sampler,
    };
  }
}
