/**
 * `train:` the RL loop (troupe train): how many steps, the optimizer, the PPO-clip loss,
 * evaluation and checkpoints. Defaults follow SEEDS.md (clip 0.2, token-mean, no KL,
 * gradient clip 1.0, cosine schedule with warm-up) with a learning rate for small models.
 */
import { z } from 'zod';

export const trainSection = z
  .strictObject({
    /** RL steps; each plays rollout.tasks tasks and makes one update per policy. */
    steps: z.number().int().min(0).max(1_000_000).default(40),
    /** Peak learning rate of full fine-tuning; LoRA adapters train at a multiple of it (lora_lr_scale). */
    lr: z.number().positive().default(1e-3),
    /**
     * Peak learning rate of LoRA adapters (policy.map lora, or policy.kind tinker), overriding
     * the rule below. Unset: lr * lora_lr_scale.
     */
    lora_lr: z.number().positive().optional(),
    /**
     * LoRA learns at about 10x the full fine-tuning rate ("LoRA Without Regret", Thinking
     * Machines 2025; tinker-cookbook's get_lora_lr_over_full_finetune_lr returns 10), so a config
     * tuned for full fine-tuning keeps working when it switches to LoRA. Unset under LoRA
     * resolves to 10 (config/lora-lr.ts); without LoRA it stays unset and is an error to set.
     */
    lora_lr_scale: z.number().positive().max(1000).optional(),
    warmup_steps: z.number().int().min(0).max(1_000_000).default(2),
    /** The cosine schedule ends at lr * min_lr_ratio. */
    min_lr_ratio: z.number().min(0).max(1).default(0.1),
    /** MAGRPO's original loss is `reinforce`; AT-GRPO uses `ppo-clip`. */
    loss: z.enum(['ppo-clip', 'reinforce']).default('ppo-clip'),
    clip_low: z.number().min(0).max(1).default(0.2),
    clip_high: z.number().min(0).default(0.2),
    aggregation: z.enum(['token-mean', 'sequence-mean']).default('token-mean'),
    /** KL penalty towards the initial (reference) policy; 0 = off, as in AT-GRPO. */
    kl_coef: z.number().min(0).default(0),
    kl_estimator: z.enum(['k1', 'k2', 'k3']).default('k3'),
    grad_clip: z.number().positive().default(1),
    weight_decay: z.number().min(0).default(0),
    /**
     * Most tokens per micro-batch (memory bound; does not change the result). `auto` sizes it
     * to the model: about 1 GiB of activations, at most 16384 tokens (train/micro-batch-tokens.ts).
     */
    micro_batch_tokens: z.union([z.literal('auto'), z.number().int().min(64).max(1_048_576)]).default('auto'),
    /** Largest tolerated gap between sampling-time and learner logprobs (stale-weight check) when old_logprobs is sampler. */
    logprob_tolerance: z.number().positive().default(1e-3),
    /**
     * PPO's "old" policy: the logprobs recorded at sampling (`sampler`), or the learner's own
     * recomputation with a truncated importance weight min(exp(learner - sampler), tis_cap) per
     * token (`learner`: decoupled PPO). `auto`: learner for asynchronous training
     * (max_steps_off_policy > 0) and for a bf16 base, whose sampling and
     * training paths round differently (train/logprob-gap.ts), sampler otherwise.
     */
    old_logprobs: z.enum(['auto', 'sampler', 'learner']).default('auto'),
    /** Cap of the truncated importance weight (old_logprobs learner). */
    tis_cap: z.number().min(1).max(1000).default(2),
    /** Largest tolerated mean gap per token when old_logprobs is learner: above it the weights differ. */
    logprob_gap_limit: z.number().positive().default(0.05),
    /** Evaluate on held-out tasks every N steps (and at the end); 0 = only at the end. */
    eval_every: z.number().int().min(0).default(10),
    eval_tasks: z.number().int().min(1).max(100_000).default(200),
    /** Sampling temperature for evaluation (0 = greedy). */
    eval_temperature: z.number().min(0).default(0),
    checkpoint_every: z.number().int().min(0).default(10),
    keep_checkpoints: z.number().int().min(1).max(1000).default(2),
    /**
     * Policy ids that keep their starting weights: they play, their samples are recorded,
     * but their learner never updates (the "one role trained alone" ablation).
     */
    frozen: z.array(z.string().min(1)).default([]),
    /** Write the step's samples to rollouts/step-N.jsonl every N steps; 0 = never. */
    samples_every: z.number().int().min(0).default(10),
    /**
     * Asynchronous training: the rollout of step k is sampled with the weights of step k - s
     * while the learners update (docs/distributed.md). 0 = on-policy: sample, then update.
     */
    max_steps_off_policy: z.number().int().min(0).max(8).default(0),
    /**
     * Where an embedded asynchronous run samples: `worker`, a thread beside the learner with
     * its own copy of the weights (half the threads each; built-in tasks), or `inline`, the
     * learner's thread (rollout, then update). Both give the same numbers.
     */
    async_sampler: z.enum(['worker', 'inline']).default('worker'),
    /**
     * MAGRPO's loss has no ratio, so it cannot correct for stale samples: async MAGRPO must be
     * asked for explicitly (it then trains on samples up to s updates old without correction).
     */
    allow_off_policy_reinforce: z.boolean().default(false),
  })
  .prefault({});
