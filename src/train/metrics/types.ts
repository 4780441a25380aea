/**
 * The records of `metrics.jsonl`, the run folder's measurement log. Read this file first.
 *
 * The file holds one JSON object per line, appended as the run goes, so a run killed at any
 * moment leaves a readable file (at worst its last line is cut short). Field names are
 * snake_case because this is a file format that other tools (pandas, jq, a spreadsheet) read.
 *
 * Three kinds of record share the file, told apart by `kind`:
 * - `train`: one per RL step, measured on that step's rollouts and update.
 * - `eval`: success on held-out tasks that training never sees, with a 95% interval.
 * - `warm-start`: one per supervised fine-tuning step that builds the weak starting policy.
 *
 * Steps: `train` and `eval` records count RL steps from 0; an `eval` record with step `s` was
 * measured on the weights after the update of step `s`, and `-1` means before any RL update
 * (the base policy the run starts from). `warm-start` records count their own steps from 0.
 *
 * Missing values: a number typed `Metric` may be `null` when it was not measured at that step
 * (no reference model so no KL, every group filtered so no loss, no episodes so no success
 * rate). The writer turns non-finite numbers (NaN, Infinity) into `null` as well, and the
 * report draws a gap there instead of a misleading zero.
 *
 * Adding a field is backwards compatible (readers keep unknown fields); renaming one is not.
 *
 * Example line (wrapped here):
 *   {"kind":"eval","step":9,"split":"eval","success_rate":0.62,"ci_low":0.55,"ci_high":0.68,
 *    "n":200,"mean_turns":3.1,"roles":{"tool":{"reward":0.41},"plan":{"reward":0.72}}}
 */

/** A measured number, or `null` when it was not measured this step (drawn as a gap). */
export type Metric = number | null;

/** Fields every record has. */
interface RecordBase {
  /** 0-based step of the record's own phase (RL steps for train/eval, SFT steps for warm-start). */
  readonly step: number;
  /**
   * Seconds since the run started (resumed runs continue the count). Optional because timing
   * is not part of a run's deterministic result; the report uses it for the wall time.
   */
  readonly elapsed_s?: number;
}

/** Per-role numbers of one RL step, averaged over that role's samples (every tree branch). */
export interface RoleTrainMetrics {
  /** Mean total reward: the alpha-mix of local and global that advantages are computed from. */
  readonly reward: Metric;
  /** Mean local reward (the role's own shaping reward). */
  readonly local: Metric;
  /** Mean global reward (the team's task reward). */
  readonly global: Metric;
  /** Mean response length in tokens. */
  readonly response_len: Metric;
  /** Number of samples this role produced this step. */
  readonly samples: number;
}

/** Per-policy numbers of one RL update (one learner per policy id). */
export interface PolicyTrainMetrics {
  /** PPO-clip loss, averaged over the update's minibatches. */
  readonly loss: Metric;
  /** Fraction of tokens whose probability ratio was clipped. */
  readonly clip_fraction: Metric;
  /** KL estimate to the frozen reference; `null` without a reference model. */
  readonly kl: Metric;
  /** Mean per-token entropy of the policy on the update's tokens. */
  readonly entropy: Metric;
  /** Gradient norm before clipping. */
  readonly grad_norm: Metric;
  /** Response tokens this policy was trained on this step. */
  readonly tokens: number;
  /**
   * Largest and mean per-token |sampling-time - learner| logprob: float rounding (~1e-6 in
   * float32; on a bf16 base of the Qwen3-0.6B shape a mean of 1.55e-3, up to 6.56e-3) unless the
   * sampler used other weights. Absent on older runs.
   */
  readonly logprob_gap_max?: Metric;
  readonly logprob_gap_mean?: Metric;
  /** Mean truncated importance weight, and the fraction of tokens at train.tis_cap; only when old_logprobs is learner. */
  readonly is_weight_mean?: Metric;
  readonly is_truncated_fraction?: Metric;
}

/**
 * Whose play a train record's `success_rate` measures.
 * - `best-branch` (tree and joint modes): each episode follows the best-scoring of the K
 *   branches at every node. That is the success of the search around the policy, and it is
 *   higher than the policy's own: a policy that finds the goal 1 time in 4 per move still
 *   scores near 100% with K = 4. Progress line and report call it "tree success".
 * - `sampled` (independent mode, or K = 1 where the only branch is the best): every episode
 *   as the policy sampled it: the policy's own success on training tasks ("policy success").
 * The policy's own success on tasks it never trains on is the `eval` record's success_rate
 * ("held-out"); tree mode does not play policy-only episodes, so between evals there is no
 * per-step policy success for it (README, "The progress line", says why).
 */
export type SuccessOf = 'best-branch' | 'sampled';

/** One RL step: rollouts, then one update per policy. */
export interface TrainRecord extends RecordBase {
  readonly kind: 'train';
  /** Fraction of this step's episodes that solved their task; `success_of` says whose play. */
  readonly success_rate: Metric;
  /** Optional because files written before it existed lack it (read as unknown). */
  readonly success_of?: SuccessOf;
  /** Mean number of turns per episode. */
  readonly mean_turns: Metric;
  /** Whole episodes played (a tree rollout counts its chosen path once per task). */
  readonly episodes: number;
  /** Samples produced (every branch of every group). */
  readonly samples: number;
  /** Response tokens produced. */
  readonly tokens: number;
  /** Responses that could not be parsed into an action. */
  readonly parse_failures: number;
  /** Groups dropped by the zero-variance filter (every reward equal: no learning signal). */
  readonly filtered_groups: number;
  readonly samples_per_s: Metric;
  readonly tokens_per_s: Metric;
  /** Seconds spent sampling and playing episodes. */
  readonly rollout_s: number;
  /** Seconds spent in the learners' updates. */
  readonly update_s: number;
  /** Learning rate used this step (after warm-up/decay). */
  readonly lr: Metric;
  readonly roles: Readonly<Record<string, RoleTrainMetrics>>;
  readonly policies: Readonly<Record<string, PolicyTrainMetrics>>;
  /** Asynchronous training only (train.max_steps_off_policy >= 1); absent in on-policy runs. */
  readonly off_policy?: OffPolicyMetrics;
}

/**
 * How stale a step's training data was, and what correcting for it did. A group's staleness is
 * the number of updates its policy received between sampling it and training on it.
 */
export interface OffPolicyMetrics {
  /** The bound s in force. */
  readonly max_steps_off_policy: number;
  /** Trained groups per staleness, e.g. {"1": 140} (keys "0".."s"). */
  readonly staleness: Readonly<Record<string, number>>;
  /** Largest staleness trained on; never above max_steps_off_policy (asserted before the update). */
  readonly max_staleness: number;
  /** Groups taken out because they were older than s; their tasks were sampled again. */
  readonly requeued_groups: number;
  /** Groups the update trained on (a resumed run must add up to the uninterrupted run's count). */
  readonly trained_groups: number;
  /** Largest |sampler - learner| logprob of any trained token (large for stale samples, ~0 for fresh). */
  readonly logprob_gap_max: Metric;
  /** Range of the truncated importance weights the loss applied (null when no learner reported them). */
  readonly is_weight_min: Metric;
  readonly is_weight_max: Metric;
}

/** Held-out evaluation of the current weights. */
export interface EvalRecord extends RecordBase {
  readonly kind: 'eval';
  /** Always `eval`: held-out seeds, disjoint from the training tasks. */
  readonly split: 'eval';
  readonly success_rate: Metric;
  /** Lower end of the 95% interval of the success rate. */
  readonly ci_low: Metric;
  /** Upper end of the 95% interval of the success rate. */
  readonly ci_high: Metric;
  /** Episodes evaluated. */
  readonly n: number;
  readonly mean_turns: Metric;
  readonly roles: Readonly<Record<string, { readonly reward: Metric }>>;
}

/** One supervised fine-tuning step of the warm start. */
export interface WarmStartRecord extends RecordBase {
  readonly kind: 'warm-start';
  /** Mean cross-entropy per response token. */
  readonly loss: Metric;
  /** Tokens trained on this step. */
  readonly tokens: number;
  readonly lr: Metric;
}

export type MetricsRecord = TrainRecord | EvalRecord | WarmStartRecord;
export type MetricsKind = MetricsRecord['kind'];
export const metricsKinds: readonly MetricsKind[] = ['train', 'eval', 'warm-start'];
